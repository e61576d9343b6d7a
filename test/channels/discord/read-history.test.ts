/**
 * A Discord channel where pipewatch may post but not read the message history: an
 * updated notice, posted as a reply to the notice's first alert, is refused with 403
 * 50013 (Missing Permissions), and goes again as a message of its own, with a warning
 * that says what to grant; the channel's subscriptions stay as they are. Through the
 * real channel sender and the real chat core, against the fake's wire format.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SendContext } from '../../../src/channels/types.js';
import { memoryThreads, noticeAlert, updatedAlert } from '../../fakes/alerts.js';
import { startDiscordFake } from '../../fakes/discord.js';
import { capturedLogger } from '../../support/captured-logger.js';
import { goneChannels, NOW, startGoneCore } from './gone-setup.js';

/** A channel where pipewatch may post, but not read what was posted before. */
const NO_HISTORY = '1100000000000000021';

const WARNING =
  `discord: the alert was posted as a message of its own, not as a reply to the first alert of its notice: pipewatch may not read the message history in channel ${NO_HISTORY} (Missing Permissions, 50013); ` +
  "give pipewatch's role the Read Message History permission in that channel";

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setup() {
  const fake = await startDiscordFake({
    channels: [NO_HISTORY],
    noReadHistory: [NO_HISTORY],
    bucket: { limit: 50, resetAfterMs: 5000 },
  });
  const { logger, lines } = capturedLogger();
  const chat = startGoneCore(logger);
  const { discord, told } = goneChannels(fake, chat, logger, {}, {});
  closers.push(
    () => fake.close(),
    () => discord.close?.(),
    () => chat.close(),
  );
  const ctx: SendContext = { now: NOW, threads: memoryThreads() };
  const send = (alert = noticeAlert()) =>
    discord.send({ kind: 'discord', channel: NO_HISTORY }, [alert], ctx);
  const logged = (level: number) =>
    lines
      .map((l) => JSON.parse(l) as { level: number; msg: string; channel?: string })
      .filter((l) => l.level === level && l.msg.includes('not as a reply'));
  const posts = () =>
    fake.calls
      .filter((c) => c.method === 'POST' && c.path === `/v10/channels/${NO_HISTORY}/messages`)
      .map((c) => c.status);
  return { fake, chat, told, send, logged, posts };
}

describe('a channel where pipewatch may not read the message history', () => {
  it('gets the update as a message of its own, a warning, and keeps its subscriptions', async () => {
    const { fake, chat, told, send, logged, posts } = await setup();
    await chat.subscribe(NO_HISTORY);
    await send();
    const delivered = await send(updatedAlert());

    expect(posts()).toEqual([200, 403, 200]);
    const [first, update, ...others] = fake.messages;
    expect(others).toEqual([]);
    expect(update?.message_reference).toBeUndefined();
    expect(update?.embeds[0]?.title).toBe(`Updated ${first?.embeds[0]?.title}`);
    expect(delivered.detail).toBe(`ok channel=${NO_HISTORY} message=${update?.id}`);
    expect(logged(40)).toMatchObject([{ msg: WARNING, channel: NO_HISTORY }]);
    expect(told).toEqual([]);
    expect(await chat.pauses()).toEqual([[`discord:${NO_HISTORY}`, null]]);
    expect(await chat.opsAlerts()).toEqual([]);
  });

  it('warns once, then at debug level, and again once a reply got through and failed anew', async () => {
    const { fake, send, logged } = await setup();
    await send();
    await send(updatedAlert({ subject: 'version 2' }));
    await send(updatedAlert({ subject: 'version 3' }));
    expect(logged(40)).toHaveLength(1);
    expect(logged(20).map((l) => l.msg)).toEqual([WARNING]);

    fake.noReadHistory.delete(NO_HISTORY);
    await send(updatedAlert({ subject: 'version 4' }));
    fake.noReadHistory.add(NO_HISTORY);
    await send(updatedAlert({ subject: 'version 5' }));
    expect(logged(40)).toHaveLength(2);
  });
});
