/**
 * Thread references as the dispatcher keeps them: in the store, read and written through
 * its asynchronous repository mid-send, so an update threads under the first message of
 * its notice whether the references are on SQLite or PostgreSQL, and after a restart
 * too. A reference the database cannot read back costs the update its thread, never the
 * alert; any other failure of the store is not taken for a missing reference.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDiscordChannels } from '../../src/channels/discord/send.js';
import { createSlackChannels } from '../../src/channels/slack/index.js';
import type { AnyChannel } from '../../src/channels/types.js';
import { Dispatcher } from '../../src/delivery/dispatcher.js';
import { readablePastDamage } from '../../src/delivery/threads.js';
import type { Target } from '../../src/domain/targets.js';
import { systemClock } from '../../src/lib/clock.js';
import { silentLogger } from '../../src/lib/logger.js';
import { toUtcIso } from '../../src/lib/time.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import type { Store } from '../../src/store/index.js';
import { StoredDataError } from '../../src/store/stored-json.js';
import { noticeAlert, updatedAlert } from '../fakes/alerts.js';
import { type DiscordFake, FAKE_CHANNEL, startDiscordFake } from '../fakes/discord.js';
import { type SlackFake, startSlackFake } from '../fakes/slack.js';
import { capturedLogger } from '../support/captured-logger.js';
import { InstantClock } from '../support/clock.js';
import { useTempStore } from '../support/temp-store.js';

const temp = useTempStore('pipewatch-threads-');
const closing: Array<() => Promise<unknown> | undefined> = [];
let clock: InstantClock;

beforeEach(() => {
  clock = new InstantClock('2026-11-20T15:00:00Z');
});
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** Sends everything due on `store` through `channel`, as a daemon started on it would. */
async function dispatch(store: Store, channel: AnyChannel): Promise<void> {
  const d = new Dispatcher(
    {
      store: asyncStoreOf(store),
      channels: { for: () => channel as never },
      clock,
      logger: silentLogger,
    },
    { digestWindowMs: 0, maxAgeMs: 6 * 3_600_000, random: () => 0.5 },
  );
  expect(await d.dispatchDue()).toMatchObject({ sent: 1, dead: 0, retrying: 0 });
}

/** Queues version `v` of notice 101 (the first, or an update) for `target`. */
function enqueue(store: Store, target: Target, v: 1 | 2): void {
  const { payload } = v === 1 ? noticeAlert() : updatedAlert();
  store.outbox.enqueue(`notice:101:v${v}`, 'rule', target, payload, toUtcIso(clock.now()));
}

/** A Slack channel on `fake`, closed after the test. */
function slackOn(fake: SlackFake): AnyChannel {
  const { slack } = createSlackChannels(
    { token: fake.token, apiUrl: fake.url, perChannel: { perSecond: 50, burst: 5 } },
    { clock: systemClock, logger: silentLogger },
  );
  closing.push(() => slack.close?.());
  return slack;
}

/** A Discord channel on `fake`, closed after the test. */
function discordOn(fake: DiscordFake): AnyChannel {
  const { discord } = createDiscordChannels(
    { token: fake.token, apiUrl: fake.url },
    { clock: systemClock, logger: silentLogger },
  );
  closing.push(() => discord.close?.());
  return discord;
}

const storedRefs = (store: Store) =>
  store.db
    .prepare<[], { target: string; subject: string }>('SELECT target, subject FROM threads')
    .all();

describe('the dispatcher threads updates through the store', () => {
  it('Slack: the update is posted in the thread of the first message, after a restart', async () => {
    const fake = await startSlackFake();
    closing.push(() => fake.close());
    const gas: Target = { kind: 'slack', channel: '#gas' };
    enqueue(temp.store, gas, 1);
    await dispatch(temp.store, slackOn(fake));
    expect(storedRefs(temp.store)).toEqual([{ target: 'slack:#gas', subject: 'notice:101' }]);
    const store = temp.reopen();
    enqueue(store, gas, 2);
    await dispatch(store, slackOn(fake));
    const [first, update] = fake.posts;
    expect(update).toMatchObject({ channel: 'C0GAS', thread_ts: first!.ts, reply_broadcast: true });
    expect(fake.updates).toHaveLength(1);
  });

  it('Discord: the update replies to the first message, which is greyed out, after a restart', async () => {
    const fake = await startDiscordFake();
    closing.push(() => fake.close());
    const target: Target = { kind: 'discord', channel: FAKE_CHANNEL };
    enqueue(temp.store, target, 1);
    await dispatch(temp.store, discordOn(fake));
    const store = temp.reopen();
    enqueue(store, target, 2);
    await dispatch(store, discordOn(fake));
    const [first, update] = fake.messages;
    expect(update!.message_reference?.message_id).toBe(first!.id);
    expect(first!.edits).toBe(1);
  });
});

describe('a thread reference the store cannot give', () => {
  it('damaged: read as none, with one warning however often it is read', async () => {
    temp.store.threads.set('slack:#gas', 'notice:101', { channel: 'C0GAS', ts: '1.1' });
    temp.store.db.prepare('UPDATE threads SET ref = ?').run('{"channel":"C0GAS","ts":');
    const { logger, lines } = capturedLogger();
    const threads = readablePastDamage(asyncStoreOf(temp.store).threads, logger);
    expect(await threads.get('slack:#gas', 'notice:101')).toBeUndefined();
    expect(await threads.get('slack:#gas', 'notice:101')).toBeUndefined();
    expect(lines.filter((l) => l.includes('the thread reference of notice:101'))).toHaveLength(1);
  });

  it('the store failing otherwise: the failure, not a missing reference', async () => {
    const threads = readablePastDamage(asyncStoreOf(temp.store).threads, silentLogger);
    temp.store.close();
    const error = await threads.get('slack:#gas', 'notice:101').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(StoredDataError);
  });
});
