/**
 * The Discord app's autocompletion and its answers to clicks on pipewatch's components,
 * end to end over loopback on the real chat core: alerts posted to the Discord fake by
 * the Discord channel as the daemon posts them, clicks on their components signed as
 * Discord signs them, and what comes of them in the store and in the answers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { alertComponents, encodeCustomId } from '../../../src/channels/discord/actions.js';
import { createDiscordChannels } from '../../../src/channels/discord/index.js';
import type { Alert } from '../../../src/channels/types.js';
import { location, memoryThreads, noticeAlert } from '../../fakes/alerts.js';
import { transcoCycle } from '../../fakes/capacity-event.js';
import { FAKE_CHANNEL } from '../../fakes/discord.js';
import { PERMISSIONS, USERS, type Where } from '../../fakes/discord-interaction-payloads.js';
import { messageProblems } from '../../fakes/discord-interactions.js';
import { makeNotice } from '../../fakes/notice.js';
import { failingCore, LOCKED } from '../../support/chat-core.js';
import { type AppUnderTest, NOW, startAppUnderTest } from './app-setup.js';

let t: AppUnderTest;

afterEach(async () => {
  await t?.close();
});

const EPHEMERAL = 64;
const manager: Where = { user: USERS.alice, permissions: PERMISSIONS.manager };
const member: Where = { user: USERS.bob, permissions: PERMISSIONS.member };

/** An alert posted to #gas by the Discord channel, with the components alerts carry. */
async function postedAlert(alert: Alert = noticeAlert()) {
  const { discord } = createDiscordChannels(
    { token: t.fake.token, apiUrl: t.fake.url, timeoutMs: 5000 },
    { clock: t.clock, logger: t.logger },
  );
  try {
    await discord.send({ kind: 'discord', channel: FAKE_CHANNEL }, [alert], {
      now: NOW,
      threads: memoryThreads(),
    });
  } finally {
    await discord.close?.();
  }
  const posted = t.fake.messages.at(-1)!;
  const notice = alert.payload.kind === 'notice' ? alert.payload.notice : undefined;
  const components = alertComponents({
    pipeline: 'transco',
    remindNotice: notice?.response_at ? notice.id : undefined,
  });
  return { id: posted.id, embeds: posted.embeds, components };
}

/** The answer to an interaction, checked to be one Discord takes. */
async function answered(payload: Parameters<AppUnderTest['discord']['interact']>[0]) {
  const res = await t.discord.interact(payload);
  expect(res.status).toBe(200);
  const data = (res.json?.data ?? {}) as Record<string, unknown>;
  if (res.json?.type === 4 || res.json?.type === 7) expect(messageProblems(data)).toEqual([]);
  return { type: res.json?.type, data, content: String(data.content ?? '') };
}

describe('autocomplete', () => {
  it('offers the tracked pipelines matching what is typed, keeping the slugs before it', async () => {
    t = await startAppUnderTest();
    const first = await answered(
      t.discord.autocomplete('subscribe', { pipelines: { focused: 'tr' } }),
    );
    expect(first).toMatchObject({
      type: 8,
      data: { choices: [{ name: 'transco (transco)', value: 'transco' }] },
    });
    const more = await answered(
      t.discord.autocomplete('remind', { pipelines: { focused: 'tgp, te' } }),
    );
    expect(more.data.choices).toEqual([
      { name: 'texas-eastern (texas-eastern)', value: 'tgp, texas-eastern' },
    ]);
  });

  it("offers the locations of the pipeline option's latest cycle; nothing for other options", async () => {
    t = await startAppUnderTest();
    const cycle = transcoCycle({
      cycle: 'timely',
      gasDay: '2026-11-21',
      seenAt: NOW,
      locations: [
        location({ id: 85, location: 'Station 85', identifier: '1000085' }),
        location({ id: 165, location: 'Station 165', identifier: '1000165' }),
      ],
    });
    t.store.capacity.upsertCycle(cycle.cycle, cycle.locations, NOW);
    const typed = await answered(
      t.discord.autocomplete('oac', { pipeline: 'transco', location: { focused: '16' } }),
    );
    expect(typed.data.choices).toEqual([{ name: 'Station 165 (1000165)', value: 'Station 165' }]);
    const unknown = await answered(
      t.discord.autocomplete('oac', { pipeline: 'tgp', location: { focused: '' } }),
    );
    expect(unknown.data.choices).toEqual([]);
    const other = await answered(
      t.discord.autocomplete('subscribe', { pipelines: 'transco', type: { focused: 't' } }),
    );
    expect(other).toEqual({ type: 8, data: { choices: [] }, content: '' });
  });

  it('a core that fails offers nothing, and logs why', async () => {
    t = await startAppUnderTest({ chat: (core) => failingCore(core, LOCKED) });
    const res = await answered(
      t.discord.autocomplete('subscribe', { pipelines: { focused: 't' } }),
    );
    expect(res.data).toEqual({ choices: [] });
    expect(t.lines.some((l) => l.includes('a Discord interaction failed'))).toBe(true);
  });
});

describe('Acknowledge', () => {
  it('edits the message for everyone; a second click is told who did it and when', async () => {
    t = await startAppUnderTest();
    const message = await postedAlert();
    const ack = encodeCustomId({ kind: 'ack', message: '' });
    const first = await answered(t.discord.click({ customId: ack, message }, member));
    const at = Math.floor(Date.parse(NOW) / 1000);
    expect(first).toMatchObject({
      type: 7,
      data: {
        content: `✅ Acknowledged by <@${USERS.bob.id}> <t:${at}:f>`,
        embeds: message.embeds,
        components: [],
        allowed_mentions: { parse: [] },
      },
    });
    t.clock.advance(60_000);
    const second = await answered(t.discord.click({ customId: ack, message }, manager));
    expect(second.type).toBe(4);
    expect(second.data.flags).toBe(EPHEMERAL);
    expect(second.content).toBe(`Already acknowledged by <@${USERS.bob.id}> <t:${at}:f>.`);
  });
});

describe('Mute and Remind me', () => {
  it('the Mute menu mutes the pipeline here for the hours chosen, answering the clicker alone', async () => {
    t = await startAppUnderTest();
    const message = await postedAlert();
    const mute = encodeCustomId({ kind: 'mute', pipeline: 'transco', forMs: 0 });
    const res = await answered(
      t.discord.click({ customId: mute, values: ['4'], message }, manager),
    );
    expect(res.type).toBe(4);
    expect(res.data.flags).toBe(EPHEMERAL);
    expect(res.content).toMatch(/^Alice muted transco here for 4h/);
    expect(t.store.silences.active(NOW)).toMatchObject([
      {
        matchers: expect.arrayContaining([{ key: 'pipeline', op: '=', value: 'transco' }]),
        ends_at: '2026-11-20T19:00:00Z',
      },
    ]);
  });

  it('the Mute menu is refused to a member who may not manage the channel', async () => {
    t = await startAppUnderTest();
    const message = await postedAlert();
    const mute = encodeCustomId({ kind: 'mute', pipeline: 'transco', forMs: 0 });
    const res = await answered(t.discord.click({ customId: mute, values: ['1'], message }, member));
    expect(res.data.flags).toBe(EPHEMERAL);
    expect(res.content).toMatch(/^Not muted: .*Manage Channels/);
    expect(t.store.silences.active(NOW)).toEqual([]);
  });

  it('Remind me sets a direct-message reminder of that notice for whoever clicked', async () => {
    t = await startAppUnderTest();
    const due = { id: 101, response_at: '2026-11-21T15:00:00Z' };
    t.store.notices.upsert(makeNotice(due), NOW, false);
    const message = await postedAlert(noticeAlert(due));
    const remind = encodeCustomId({ kind: 'remind', noticeId: 101 });
    expect(JSON.stringify(message.components)).toContain(remind);
    const res = await answered(t.discord.click({ customId: remind, message }, member));
    expect(res.data.flags).toBe(EPHEMERAL);
    expect(res.content).toMatch(/^You will get a direct message before 26-0412/);
    expect(t.store.subscriptions.all()).toMatchObject([
      { target: `discord_dm:${USERS.bob.id}`, notice_id: 101, created_by: USERS.bob.id },
    ]);
  });
});

describe('Remind me clicked again', () => {
  it('on the same notice sets nothing more, and says which reminder is set', async () => {
    t = await startAppUnderTest();
    const due = { id: 101, response_at: '2026-11-21T15:00:00Z' };
    t.store.notices.upsert(makeNotice(due), NOW, false);
    const message = await postedAlert(noticeAlert(due));
    const remind = encodeCustomId({ kind: 'remind', noticeId: 101 });
    await answered(t.discord.click({ customId: remind, message }, member));
    for (let click = 0; click < 3; click++) {
      const again = await answered(t.discord.click({ customId: remind, message }, member));
      expect(again.data.flags).toBe(EPHEMERAL);
      expect(again.content.replaceAll('\\', '')).toMatch(
        /^You already have a reminder before 26-0412's response deadline .* \(#1\); nothing more was set/,
      );
    }
    expect(t.store.subscriptions.all()).toHaveLength(1);
    // Someone else's click is theirs.
    await answered(t.discord.click({ customId: remind, message }, manager));
    expect(t.store.subscriptions.all()).toHaveLength(2);
  });
});

describe('Remove, and components no longer valid', () => {
  it("a list's Remove button removes that subscription", async () => {
    t = await startAppUnderTest();
    await t.discord.interact(t.discord.command('subscribe', { pipelines: 'transco' }, manager));
    const list = await answered(t.discord.command('list', {}, manager));
    const [made] = t.store.subscriptions.all();
    const remove = encodeCustomId({ kind: 'remove', what: 'subscription', id: made!.id });
    expect(JSON.stringify(list.data.components)).toContain(remove);
    const res = await answered(
      t.discord.click(
        {
          customId: remove,
          message: {
            id: '1500000000000000077',
            content: list.content,
            components: list.data.components as unknown[],
          },
        },
        manager,
      ),
    );
    expect(res.data.flags).toBe(EPHEMERAL);
    expect(t.store.subscriptions.all()).toEqual([]);
  });

  it('a custom id that does not decode is answered "no longer valid", and nothing is done', async () => {
    t = await startAppUnderTest();
    const message = await postedAlert();
    for (const [customId, values] of [
      ['pipewatch:v0:mute:transco', ['4']],
      ['pipewatch:v1:mute:transco', ['9999']],
      ['pipewatch:v1:remind:abc', undefined],
      ['someone-else:ack', undefined],
    ] as const) {
      const res = await answered(
        t.discord.click({ customId, ...(values ? { values: [...values] } : {}), message }, manager),
      );
      expect(res, customId).toMatchObject({
        type: 4,
        data: { flags: EPHEMERAL },
        content: 'This button is no longer valid.',
      });
    }
    expect(t.store.silences.active(NOW)).toEqual([]);
    expect(t.store.subscriptions.all()).toEqual([]);
  });

  it('a click the core fails on tells the clicker, and is logged in one line', async () => {
    t = await startAppUnderTest({ chat: (core) => failingCore(core, LOCKED) });
    const message = await postedAlert();
    const res = await answered(
      t.discord.click({ customId: encodeCustomId({ kind: 'ack', message: '' }), message }, manager),
    );
    expect(res).toMatchObject({
      type: 4,
      data: { flags: EPHEMERAL },
      content: 'pipewatch could not do that just now; the error is in its log.',
    });
    const failed = t.lines.filter((l) => l.includes('a Discord interaction failed'));
    expect(failed).toHaveLength(1);
    expect(failed[0]).toContain('a Discord interaction failed: database is locked at Statement');
  });
});
