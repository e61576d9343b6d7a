/**
 * One receiver that never finishes answering holds back only itself: the dispatcher
 * sends to a webhook that drips a byte every 5 seconds, to a healthy webhook and to
 * Slack. The others are delivered while the drip is in flight; the drip's attempt ends
 * at the delivery deadline as a temporary failure. Outbox time, deadlines and the drip
 * all run on one ManualClock: nothing waits for real time.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSlackChannels } from '../../src/channels/slack/index.js';
import type { AnyChannel, ChannelSet } from '../../src/channels/types.js';
import { createWebhookChannel } from '../../src/channels/webhook/send.js';
import { Dispatcher } from '../../src/delivery/dispatcher.js';
import { ManualClock, systemClock } from '../../src/lib/clock.js';
import { silentLogger } from '../../src/lib/logger.js';
import type { Target } from '../../src/rules/types.js';
import { Store } from '../../src/store/index.js';
import { toUtcIso } from '../../src/upstream/schemas.js';
import { noticeAlert } from '../fakes/alerts.js';
import { type DripReceiver, startDripReceiver } from '../fakes/drip.js';
import { type SlackFake, startSlackFake } from '../fakes/slack.js';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook.js';

const T0 = Date.parse('2026-11-20T15:00:00Z');
const MINUTE = 60_000;
const at = (ms: number) => toUtcIso(new Date(T0 + ms));

/** Yields to the event loop until `done()` holds; gives up after 10 s of real time. */
async function until(done: () => boolean, what: string): Promise<void> {
  const limit = performance.now() + 10_000;
  while (!done()) {
    if (performance.now() > limit) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('a webhook receiver that drips its answer', () => {
  const open: Array<{ close(): Promise<unknown> | unknown }> = [];
  afterEach(async () => {
    for (const o of open.reverse()) await o.close();
    open.length = 0;
  });

  it('holds back only itself and fails at the deadline', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipewatch-stuck-'));
    const store = Store.open(dir);
    const clock = new ManualClock(T0);
    const drip: DripReceiver = await startDripReceiver({ clock, everyMs: 5_000 });
    const healthy: WebhookReceiver = await startWebhookReceiver();
    const slackFake: SlackFake = await startSlackFake();
    const webhook = createWebhookChannel({ perSecond: 1000 }, { clock, logger: silentLogger });
    const slack = createSlackChannels(
      { token: slackFake.token, apiUrl: slackFake.url, perChannel: { perSecond: 50, burst: 5 } },
      { clock: systemClock, logger: silentLogger },
    );
    open.push(store, drip, healthy, slackFake);
    open.push({ close: () => webhook.close?.() }, { close: () => slack.slack.close?.() });
    const byKind: Partial<Record<Target['kind'], AnyChannel>> = { webhook, slack: slack.slack };
    const channels: ChannelSet = { for: (kind) => byKind[kind] as never };
    const dispatcher = new Dispatcher(
      { store, channels, clock, deadlineClock: clock, logger: silentLogger },
      { digestWindowMs: 0, maxAgeMs: 6 * 60 * MINUTE, timeoutMs: 30_000, random: () => 0.5 },
    );
    const dripping: Target = { kind: 'webhook', url: `${drip.url}/hook/T0KEN` };
    const fine: Target = { kind: 'webhook', url: `${healthy.url}/hook` };
    const gas: Target = { kind: 'slack', channel: '#gas' };
    const enqueue = (id: number, target: Target) => {
      const alert = noticeAlert({ id, subject: `Notice ${id}` }, `rule|notice:${id}:v1`);
      const key = `${alert.key}|${JSON.stringify(target)}`;
      store.outbox.enqueue(key, 'rule', target, alert.payload, toUtcIso(clock.now()));
      return store.db
        .prepare<[string], { id: number }>('SELECT id FROM outbox WHERE key = ?')
        .get(key)!.id;
    };
    const row = (id: number) =>
      store.db
        .prepare<[number], Record<string, unknown>>(
          'SELECT status, attempts, claimed_at, next_attempt_at, last_error FROM outbox WHERE id = ?',
        )
        .get(id);

    const stuck = enqueue(1, dripping);
    enqueue(2, fine);
    enqueue(3, gas);
    const stop = new AbortController();
    const running = dispatcher.run(stop.signal);
    open.push({
      close: () => {
        stop.abort();
        return running;
      },
    });

    // The healthy targets are delivered while the drip's first answer is still coming.
    await until(
      () => healthy.received.length === 1 && slackFake.posts.length === 1 && drip.bytes === 1,
      'the healthy targets',
    );
    expect(drip.open).toBe(1);
    expect(row(stuck)).toMatchObject({ status: 'pending', claimed_at: at(0) });

    // Ten seconds on, a new alert for the healthy webhook goes out at once; one for the
    // dripping target waits behind the alert in flight there.
    clock.advance(10_000);
    await until(() => drip.bytes === 2, 'the drip to go on');
    enqueue(4, fine);
    const behind = enqueue(5, dripping);
    dispatcher.wake();
    await until(() => healthy.received.length === 2, 'the later alert');
    expect(drip.open).toBe(1);
    expect(drip.bodies).toHaveLength(1);
    expect(row(behind)).toMatchObject({ claimed_at: null, attempts: 0 });

    // The drip satisfies every per-phase timeout, up to the deadline of the attempt.
    for (const t of [15, 20, 25]) {
      const bytes = drip.bytes;
      clock.set(at(t * 1000));
      await until(() => drip.bytes === bytes + 1, `the drip at ${t}s`);
    }
    expect(row(stuck)).toMatchObject({ claimed_at: at(0), attempts: 0 });
    clock.set(at(30_000));
    await until(() => row(stuck)?.last_error !== null, 'the attempt to end');
    expect(row(stuck)).toMatchObject({
      status: 'pending',
      attempts: 1,
      claimed_at: null,
      last_error: 'webhook: no complete answer within 30s',
      next_attempt_at: at(32_500),
    });
    // The connection is dropped, and the alert behind still waits for the retry.
    await until(() => drip.abandoned === 1 && drip.open === 0, 'the connection to close');
    expect(row(behind)).toMatchObject({ claimed_at: null, attempts: 0 });
    expect(drip.bodies).toHaveLength(1);

    // Stopping ends the attempt in flight and leaves nothing claimed.
    stop.abort();
    await running;
    expect(
      store.db.prepare('SELECT count(*) FROM outbox WHERE claimed_at IS NOT NULL').pluck().get(),
    ).toBe(0);
    expect(store.outbox.counts()).toEqual({ pending: 2, sent: 3, dead: 0 });
  });
});
