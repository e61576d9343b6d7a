/** Updated notices on Discord: a reply to the first message, and the older version greyed out. */
import { afterEach, describe, expect, it } from 'vitest';
import { COLOURS } from '../../../src/channels/discord/render.js';
import { createDiscordChannels } from '../../../src/channels/discord/send.js';
import type { Alert, SendContext } from '../../../src/channels/types.js';
import { systemClock } from '../../../src/lib/clock.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { deadlineAlert, memoryThreads, noticeAlert, updatedAlert } from '../../fakes/alerts.js';
import { type DiscordFake, FAKE_CHANNEL, startDiscordFake } from '../../fakes/discord.js';

const TARGET = { kind: 'discord' as const, channel: FAKE_CHANNEL };
let fake: DiscordFake;
let close: () => Promise<void> = async () => {};

afterEach(async () => {
  await close();
  await fake.close();
});

async function setup() {
  fake = await startDiscordFake();
  const channels = createDiscordChannels(
    { token: fake.token, apiUrl: fake.url },
    { clock: systemClock, logger: silentLogger },
  );
  close = async () => channels.discord.close?.();
  const threads = memoryThreads();
  const ctx: SendContext = { now: '2026-11-20T15:00:00Z', threads };
  return { ...channels, threads, ctx };
}

/** Version `v` of notice `id`, as an update. */
function version(v: number, id = 101): Alert {
  const a = updatedAlert({ id, subject: `Station 165 limited, version ${v}` });
  return { ...a, key: `transco-constraints|notice:${id}:v${v}|discord:${FAKE_CHANNEL}` };
}

const colours = (i: number) => fake.messages[i]!.embeds.map((e) => e.color);

describe('threading', () => {
  it('remembers the first message for a notice and the target', async () => {
    const { discord, threads, ctx } = await setup();
    await discord.send(TARGET, [noticeAlert()], ctx);
    const ref = await threads.get(`discord:${FAKE_CHANNEL}`, 'notice:101');
    expect(ref).toMatchObject({ channel: FAKE_CHANNEL, message: fake.messages[0]!.id, index: '0' });
    expect(JSON.parse(ref!.embeds!)).toEqual(fake.messages[0]!.embeds);
    expect(Object.values(ref!).every((v) => typeof v === 'string')).toBe(true);
  });

  it('replies to the first message with an update and marks the first superseded', async () => {
    const { discord, ctx } = await setup();
    await discord.send(TARGET, [noticeAlert()], ctx);
    const delivered = await discord.send(TARGET, [updatedAlert()], ctx);
    const [first, reply] = fake.messages;
    expect(reply!.message_reference).toEqual({ message_id: first!.id });
    expect(
      fake.calls.find(
        (c) =>
          c.method === 'POST' &&
          c.path.endsWith('/messages') &&
          c.status === 200 &&
          (c.body as { message_reference?: unknown }).message_reference,
      )?.body,
    ).toMatchObject({
      message_reference: { message_id: first!.id, fail_if_not_exists: false },
    });
    expect(delivered.detail).toBe(
      `ok channel=${FAKE_CHANNEL} message=${reply!.id} reply_to=${first!.id}`,
    );
    expect(first!.edits).toBe(1);
    expect(colours(0)).toEqual([COLOURS.superseded]);
    expect((first!.embeds[0]!.footer as { text: string }).text).toMatch(
      /^Superseded by a later version · /,
    );
    expect(colours(1)).toEqual([COLOURS.critical]);
    const patch = fake.calls.find((c) => c.method === 'PATCH')!;
    expect(patch.path).toBe(`/v10/channels/${FAKE_CHANNEL}/messages/${first!.id}`);
    expect(patch.body).toMatchObject({ allowed_mentions: { parse: [] } });
  });

  it('threads every later version under the first and greys the one it replaces', async () => {
    const { discord, ctx } = await setup();
    await discord.send(TARGET, [noticeAlert()], ctx);
    await discord.send(TARGET, [version(2)], ctx);
    await discord.send(TARGET, [version(3)], ctx);
    const [first, second, third] = fake.messages;
    expect(second!.message_reference?.message_id).toBe(first!.id);
    expect(third!.message_reference?.message_id).toBe(first!.id);
    expect([first!.edits, second!.edits, third!.edits]).toEqual([1, 1, 0]);
    expect([colours(0), colours(1), colours(2)]).toEqual([
      [COLOURS.superseded],
      [COLOURS.superseded],
      [COLOURS.critical],
    ]);
  });

  it('greys only the superseded notice of a digest, keeping earlier edits', async () => {
    const { discord, ctx } = await setup();
    const a = noticeAlert({ id: 1 }, `r|notice:1:v1|d`);
    const b = noticeAlert({ id: 2, category: 'Non-Critical' }, `r|notice:2:v1|d`);
    await discord.send(TARGET, [a, b], ctx);
    await discord.send(TARGET, [version(2, 2)], ctx);
    expect(colours(0)).toEqual([COLOURS.critical, COLOURS.superseded]);
    await discord.send(TARGET, [version(2, 1)], ctx);
    expect(colours(0)).toEqual([COLOURS.superseded, COLOURS.superseded]);
    expect(fake.messages[0]!.edits).toBe(2);
  });

  it('posts an update without a first message as a plain message that later ones reply to', async () => {
    const { discord, ctx } = await setup();
    await discord.send(TARGET, [version(2)], ctx);
    await discord.send(TARGET, [version(3)], ctx);
    expect(fake.messages[0]!.message_reference).toBeUndefined();
    expect(fake.messages[1]!.message_reference?.message_id).toBe(fake.messages[0]!.id);
  });

  it('replies to the notice with a deadline reminder without editing it', async () => {
    const { discord, ctx } = await setup();
    await discord.send(TARGET, [noticeAlert()], ctx);
    await discord.send(TARGET, [deadlineAlert()], ctx);
    expect(fake.messages[1]!.message_reference?.message_id).toBe(fake.messages[0]!.id);
    expect(fake.messages[0]!.edits).toBe(0);
  });

  it('still delivers the update when the first message is gone', async () => {
    const { discord, threads, ctx } = await setup();
    await threads.set(`discord:${FAKE_CHANNEL}`, 'notice:101', {
      channel: FAKE_CHANNEL,
      message: '1100000000000000777',
      index: '0',
      embeds: '[{"title":"old"}]',
    });
    await discord.send(TARGET, [updatedAlert()], ctx);
    expect(fake.messages).toHaveLength(1);
    expect(fake.messages[0]!.message_reference).toBeUndefined();
    expect(fake.count(404)).toBe(1);
  });
});
