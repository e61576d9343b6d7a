/**
 * The chat core on a real database and engine: each command and button changes what it
 * says and nothing else, an error stores nothing, and what is stored is in force at once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatCaller, ChatReply } from '../../src/chat/types.js';
import type { Store } from '../../src/store/index.js';
import type { Notice } from '../../src/upstream/schemas.js';
import { location } from '../fakes/alerts.js';
import { transcoCycle } from '../fakes/capacity-event.js';
import { makeNotice } from '../fakes/notice.js';
import { CORE_NOW, type CoreUnderTest, startChatCore } from '../support/chat-core.js';

const NOW = CORE_NOW;
let started: CoreUnderTest | undefined;
let store: Store;
afterEach(() => started?.close());

function setup(admins: string[] = [], maxPerChannel?: number, opsTarget?: { kind: 'console' }) {
  started = startChatCore({
    admins,
    ...(maxPerChannel === undefined ? {} : { limits: { subscriptionsPerChannel: maxPerChannel } }),
    opsTarget,
  });
  store = started.store;
  const { core: chat, engine, clock } = started;
  return { chat, engine, clock };
}

const alice: ChatCaller = {
  platform: 'slack',
  channel: 'C0GAS',
  channelName: 'gas',
  user: 'U0ALICE',
};
const bob: ChatCaller = { ...alice, user: 'W0BOB' };

function seed(n: Notice) {
  store.notices.upsert(n, NOW, false);
}

const all = (r: ChatReply) =>
  r.sections
    .map((s) => (s.kind === 'list' ? [s.title, ...s.items.map((i) => i.text)].join('\n') : s.text))
    .join('\n');

describe('subscribe', () => {
  it('stores a subscription of this channel, in force at once, and counts what it would have matched', async () => {
    const { chat, engine } = setup();
    seed(makeNotice({ id: 1, posted_at: '2026-11-20T10:00:00Z' }));
    seed(makeNotice({ id: 2, type: 'Maintenance', posted_at: '2026-11-20T11:00:00Z' }));
    seed(makeNotice({ id: 3, posted_at: '2026-11-18T11:00:00Z' }));
    const answer = await chat.command(alice, 'subscribe transco type:constraint');
    expect(answer.reply.private).toBe(false);
    expect(answer.reply.text).toMatch(
      /U0ALICE subscribed this channel: transco; type constraint \(#1\)/,
    );
    expect((await engine.rules()).map((r) => [r.name, r.notify, r.origin?.label])).toEqual([
      ['sub-1', [{ kind: 'slack', channel: 'C0GAS' }], 'slack:C0GAS by U0ALICE, 2026-11-20'],
    ]);
    const follow = await answer.followUp;
    expect(follow?.text).toBe('In the last 24 h it would have matched 1 notice.');
    expect(all(follow!)).toMatch(/transco 26-0412: Capacity Constraint - Station 165/);
  });

  it('a pipeline typo is answered privately with a suggestion, and nothing is stored', async () => {
    const { chat } = setup();
    const answer = await chat.command(alice, 'subscribe trnsco type:constraint');
    expect(answer.reply.private).toBe(true);
    expect(all(answer.reply)).toMatch(/transco/);
    expect(store.subscriptions.all()).toEqual([]);
  });

  it('a regex RE2 cannot run is refused, and nothing is stored', async () => {
    const { chat } = setup();
    const answer = await chat.command(alice, 'subscribe transco text:"(?=outage)"');
    expect(answer.reply.private).toBe(true);
    expect(store.subscriptions.all()).toEqual([]);
  });

  it('with admins set, only they may change a channel; anyone may set reminders', async () => {
    const { chat } = setup(['U0ALICE']);
    const refused = await chat.command(bob, 'subscribe transco');
    expect(refused.reply).toMatchObject({ private: true });
    expect(refused.reply.text).toMatch(/only pipewatch's admins/);
    expect((await chat.command(bob, 'remind transco before:2h')).reply.text).toMatch(
      /You will get reminders/,
    );
    expect((await chat.command(alice, 'subscribe transco')).reply.text).toMatch(/subscribed/);
    expect(store.subscriptions.all().map((s) => s.target)).toEqual([
      'slack_dm:W0BOB',
      'slack:C0GAS',
    ]);
  });

  it('in a direct message with the bot it says where subscriptions belong, and stores nothing', async () => {
    const { chat } = setup();
    const dm = { ...alice, channel: 'D0ALICE', direct: true };
    expect((await chat.command(dm, 'subscribe transco')).reply.text).toMatch(
      /Subscriptions belong to channels/,
    );
    expect(store.subscriptions.all()).toEqual([]);
  });

  it('a channel has at most so many subscriptions', async () => {
    const { chat } = setup([], 2);
    await chat.command(alice, 'subscribe transco');
    await chat.command(alice, 'subscribe tgp');
    expect((await chat.command(alice, 'subscribe texas-eastern')).reply.text).toMatch(
      /has 2 subscriptions, the most/,
    );
    expect(store.subscriptions.all()).toHaveLength(2);
  });
});

describe('the words commands are checked against', () => {
  it('are read again after five minutes, once the answer that found them stale is out', async () => {
    const { chat, clock } = setup();
    expect((await chat.command(alice, 'subscribe tennessee')).reply.private).toBe(true);
    store.pipelines.upsert(
      {
        id: 9,
        name: 'Tennessee Gas Pipeline',
        slug: 'tennessee',
        url: '',
        tsp_name: 'TGP',
        tsp_id: '9',
        service_created_at: NOW,
        service_updated_at: NOW,
      },
      NOW,
    );
    expect((await chat.command(alice, 'subscribe tennessee')).reply.private).toBe(true);
    clock.advance(5 * 60_000);
    // The command that finds them stale is judged by what was read before…
    expect((await chat.command(alice, 'subscribe tennessee')).reply.private).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    // …and the next by what the store says now.
    expect((await chat.command(alice, 'subscribe tennessee')).reply.text).toMatch(
      /subscribed this channel: tennessee/,
    );
  });
});

describe('list, unsubscribe', () => {
  it("list shows this channel, the caller's reminders and the silences here, with ids", async () => {
    const { chat } = setup();
    await chat.command(alice, 'subscribe transco type:constraint');
    await chat.command(alice, 'remind tgp before:2h');
    await chat.command({ ...alice, channel: 'C0OPS' }, 'subscribe tgp');
    await chat.command(alice, 'mute transco for 4h');
    const list = (await chat.command(alice, 'list')).reply;
    expect(list.private).toBe(true);
    expect(list.text).toBe('1 subscription here, 1 reminder of yours, 1 silence in force.');
    expect(all(list)).toMatch(/transco; type constraint · by U0ALICE/);
    expect(all(list)).not.toMatch(/^tgp · by/m);
  });

  it("unsubscribe removes this channel's subscription, not another channel's", async () => {
    const { chat, engine } = setup();
    await chat.command({ ...alice, channel: 'C0OPS' }, 'subscribe tgp');
    await chat.command(alice, 'subscribe transco');
    expect((await chat.command(alice, 'unsubscribe 1')).reply.text).toMatch(
      /no subscription #1 in this channel/,
    );
    expect((await chat.command(alice, 'unsubscribe 2')).reply.text).toBe('Removed #2.');
    expect((await engine.rules()).map((r) => r.name)).toEqual(['sub-1']);
  });
});

describe('mute, unmute', () => {
  it('mute silences this channel for one pipeline, by id and by name; unmute ends it', async () => {
    const { chat } = setup();
    const said = (await chat.command(alice, 'mute transco for 4h')).reply;
    expect(said.text).toMatch(
      /muted transco here for 4h, until 2026-11-20T19:00:00Z \(silence #1\)/,
    );
    expect(store.silences.active(NOW)[0]?.matchers).toEqual([
      { key: 'target', op: '=', value: 'slack:C0GAS' },
      { key: 'target', op: '=', value: 'slack:#gas' },
      { key: 'pipeline', op: '=', value: 'transco' },
    ]);
    expect((await chat.command(alice, 'unmute')).reply.text).toMatch(/ended silence #1/);
    expect(store.silences.active(NOW)).toEqual([]);
  });
});

describe('buttons', () => {
  it("a silence's Remove button is held to the admins as unmute is", async () => {
    const { chat } = setup(['U0ALICE']);
    await chat.command(alice, 'mute transco for 4h');
    const refused = await chat.action(bob, { kind: 'remove', what: 'silence', id: 1 });
    expect(refused.reply?.text).toMatch(/^Not ended: only pipewatch's admins/);
    expect(store.silences.active(NOW)).toHaveLength(1);
    expect(
      (await chat.action(alice, { kind: 'remove', what: 'silence', id: 1 })).reply?.text,
    ).toMatch(/ended silence #1/);
  });

  it('acknowledge: the first click wins, later ones are told who it was', async () => {
    const { chat } = setup();
    const first = await chat.action(alice, { kind: 'ack', message: '1700000000.000100' });
    const second = await chat.action(bob, { kind: 'ack', message: '1700000000.000100' });
    expect(first.acknowledged).toEqual({ by: 'U0ALICE', at: NOW, already: false });
    expect(second.acknowledged).toEqual({ by: 'U0ALICE', at: NOW, already: true });
  });

  it("remind me plans direct-message reminders before that notice's deadline", async () => {
    const { chat } = setup();
    seed(makeNotice({ id: 7, response_at: '2026-11-21T15:00:00Z' }));
    const result = await chat.action(bob, { kind: 'remind', noticeId: 7 });
    expect(result.reply?.private).toBe(true);
    expect(store.reminders.all().map((r) => [r.rule, r.notice_id, r.due_at])).toEqual([
      ['sub-1', 7, '2026-11-20T15:00:00Z'],
      ['sub-1', 7, '2026-11-21T13:00:00Z'],
    ]);
    expect(store.subscriptions.get(1)).toMatchObject({ target: 'slack_dm:W0BOB', notice_id: 7 });
  });

  it('unsubscribing a reminder removes its reminders still to be sent', async () => {
    const { chat } = setup();
    seed(makeNotice({ id: 7, response_at: '2026-11-21T15:00:00Z' }));
    await chat.action(bob, { kind: 'remind', noticeId: 7 });
    expect(store.reminders.all()).toHaveLength(2);
    expect((await chat.command(bob, 'unsubscribe 1')).reply.text).toBe('Removed #1.');
    expect(store.reminders.all()).toEqual([]);
  });

  it('remind me on a notice without a deadline says so and stores nothing', async () => {
    const { chat } = setup();
    seed(makeNotice({ id: 8 }));
    expect((await chat.action(bob, { kind: 'remind', noticeId: 8 })).reply?.text).toMatch(
      /no response deadline/,
    );
    expect(store.subscriptions.all()).toEqual([]);
  });
});

describe('a channel that goes away', () => {
  it('pauses its subscriptions; a subscribe there later resumes them', async () => {
    const { chat, engine } = setup();
    await chat.command(alice, 'subscribe transco');
    expect(await chat.channelGone('slack', 'C0GAS', 'channel_archived')).toBe(1);
    expect(await engine.rules()).toEqual([]);
    expect((await chat.command(alice, 'list')).reply.text).toMatch(
      /1 subscription here \(1 paused\)/,
    );
    expect((await chat.command(alice, 'subscribe tgp')).reply.text).toMatch(
      /1 paused subscription of this channel resumed/,
    );
    expect((await engine.rules()).map((r) => r.name)).toEqual(['sub-1', 'sub-2']);
  });
});

describe('a channel gone, for whoever runs pipewatch', () => {
  it('sends one operations alert, not one per event that says so', async () => {
    const { chat } = setup([], undefined, { kind: 'console' });
    await chat.command(alice, 'subscribe transco');
    await chat.command(alice, 'subscribe tgp');
    expect(await chat.channelGone('slack', 'C0GAS', 'the channel was archived (is_archived)')).toBe(
      2,
    );
    expect(await chat.channelGone('slack', 'C0GAS', 'the bot was removed')).toBe(0);
    const ops = store.outbox.due('2030-01-01T00:00:00Z').map((r) => r.payload);
    expect(ops).toEqual([
      expect.objectContaining({
        kind: 'operations',
        state: 'channel-gone',
        operations: expect.objectContaining({ channel: 'slack:C0GAS', paused: 2 }),
      }),
    ]);
  });
});

describe('home', () => {
  it("lists the user's reminders and the subscriptions of their channels", async () => {
    const { chat } = setup();
    await chat.command(alice, 'subscribe transco');
    await chat.command(bob, 'remind tgp');
    const home = await chat.home('slack', 'W0BOB', ['C0GAS', 'C0OPS']);
    expect(all(home)).toMatch(/Your reminders\ntgp; response_at 1d, 2h before/);
    expect(all(home)).toMatch(/Subscriptions of C0GAS\ntransco · by U0ALICE/);
  });
});

describe('suggestions while a command is typed', () => {
  it('offers the tracked pipelines holding what was typed, those starting with it first, keeping the slugs typed before', async () => {
    const { chat } = setup();
    expect((await chat.suggest({ kind: 'pipeline' }, 'tr')).map((s) => s.value)).toEqual([
      'transco',
    ]);
    expect((await chat.suggest({ kind: 'pipeline' }, 'e')).map((s) => s.value)).toEqual([
      'texas-eastern',
    ]);
    expect((await chat.suggest({ kind: 'pipeline' }, 'tgp,tex')).map((s) => s.value)).toEqual([
      'tgp,texas-eastern',
    ]);
    expect((await chat.suggest({ kind: 'pipeline' }, '')).map((s) => s.value)).toEqual([
      'texas-eastern',
      'tgp',
      'transco',
    ]);
    expect(await chat.suggest({ kind: 'pipeline' }, 'zzz')).toEqual([]);
  });

  it("offers the locations of the pipeline's latest cycle by name or identifier, and none without a pipeline", async () => {
    const { chat } = setup();
    const cycle = transcoCycle({
      cycle: 'Timely',
      gasDay: '2026-11-20',
      seenAt: NOW,
      locations: [
        location({ id: 85, location: 'Station 85 Zone 4', identifier: '1000085' }),
        location({ id: 165, location: 'Station 165 Zone 5', identifier: '1000165' }),
        location({ id: 7, location: 'Leidy Hub', identifier: '1000007' }),
        location({ id: 9, location: 'Zone 6 Pooling', identifier: '1000009' }),
        location({ id: 10, location: `Meter ${'X'.repeat(120)}`, identifier: '1000777' }),
      ],
    });
    store.capacity.upsertCycle(cycle.cycle, cycle.locations, NOW);
    const at = async (typed: string, pipeline?: string) =>
      (await chat.suggest({ kind: 'location', pipeline }, typed)).map((s) => s.value);
    expect(await at('stat', 'transco')).toEqual(['Station 85 Zone 4', 'Station 165 Zone 5']);
    expect(await at('1000165', 'transco')).toEqual(['Station 165 Zone 5']);
    expect(await at('hub', 'Transco')).toEqual(['Leidy Hub']);
    expect(await at('zone', 'transco')).toEqual([
      'Zone 6 Pooling',
      'Station 85 Zone 4',
      'Station 165 Zone 5',
    ]);
    expect(await at('stat')).toEqual([]);
    expect(await at('stat', 'tgp')).toEqual([]);
    // A name too long for a choice goes in as its identifier, which the engine matches.
    expect(await at('meter', 'transco')).toEqual(['1000777']);
    expect((await chat.command(alice, 'oac transco 1000777 below:1')).reply.text).toMatch(
      /subscribed this channel: transco 1000777/,
    );
  });

  it('tells a Discord user in a direct message where subscriptions belong, in Discord words', async () => {
    const { chat } = setup();
    const dm: ChatCaller = { platform: 'discord', channel: '1', user: '2', direct: true };
    const text = (await chat.command(dm, 'subscribe transco')).reply.text;
    expect(text).toMatch(/in a server pipewatch was added to/);
    expect(text).not.toContain('/invite');
  });
});

describe('a platform pipewatch cannot post to', () => {
  it('refuses subscriptions and reminders whose alerts could never arrive, naming the setting, and stores nothing', async () => {
    started = startChatCore({
      undelivered: (kind) => (kind.startsWith('discord') ? 'DISCORD_BOT_TOKEN' : undefined),
    });
    store = started.store;
    const chat = started.core;
    const discord: ChatCaller = {
      platform: 'discord',
      channel: '1100000000000000001',
      user: '1400000000000000001',
      canManageChannel: true,
    };
    for (const text of ['subscribe transco', 'remind transco']) {
      const { reply } = await chat.command(discord, text);
      expect(reply.private).toBe(true);
      expect(reply.text).toBe(
        'Not subscribed: pipewatch cannot post to Discord yet (DISCORD_BOT_TOKEN is not set); ask whoever runs it. Nothing was stored.',
      );
    }
    expect(store.subscriptions.all()).toEqual([]);
    expect((await chat.command(alice, 'subscribe transco')).reply.private).toBe(false);
  });
});
