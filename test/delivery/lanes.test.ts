/**
 * The dispatcher's guarantees around its lanes: after a pass fails on the database, what
 * it claimed goes back to the queue after a pause (a lane still in flight keeps its
 * claim); a retry is never sooner than a second; a new alert never overtakes an earlier
 * one to the same target that waits for a retry.
 */
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChannelSet } from '../../src/channels/types.js';
import { createWebhookChannel } from '../../src/channels/webhook/send.js';
import { Dispatcher } from '../../src/delivery/dispatcher.js';
import { type Target, targetKey } from '../../src/domain/targets.js';
import type { Clock } from '../../src/lib/clock.js';
import { createLogger, type Logger, silentLogger } from '../../src/lib/logger.js';
import { toUtcIso } from '../../src/lib/time.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import { noticeAlert } from '../fakes/alerts.js';
import { startDripReceiver } from '../fakes/drip.js';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook.js';
import { InstantClock, ManualClock } from '../support/clock.js';
import { useTempStore } from '../support/temp-store.js';

const HOUR = 3_600_000;

/** Yields to the event loop until `done()` holds; gives up after 10 s of real time. */
async function until(done: () => boolean, what: string): Promise<void> {
  const limit = performance.now() + 10_000;
  while (!done()) {
    if (performance.now() > limit) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('the dispatcher', () => {
  const temp = useTempStore('pipewatch-lanes-');
  let receiver: WebhookReceiver;
  const closing: Array<() => Promise<unknown> | undefined> = [];

  beforeEach(async () => {
    receiver = await startWebhookReceiver();
    closing.push(() => receiver.close());
  });
  afterEach(async () => {
    for (const close of closing.reverse()) await close();
    closing.length = 0;
  });

  function setup(clock: Clock, options: { random?: () => number; logger?: Logger } = {}) {
    const webhook = createWebhookChannel(
      { pace: { perUrl: 1000, perHost: 1000 } },
      { clock, logger: silentLogger },
    );
    closing.push(() => webhook.close?.());
    const channels: ChannelSet = { for: () => webhook as never };
    // An InstantClock would end every attempt at once: deadlines then run in real time.
    const deadlineClock = clock instanceof ManualClock ? clock : undefined;
    return new Dispatcher(
      {
        store: asyncStoreOf(temp.store),
        channels,
        clock,
        ...(deadlineClock ? { deadlineClock } : {}),
        logger: options.logger ?? silentLogger,
      },
      { digestWindowMs: 0, maxAgeMs: 6 * HOUR, random: options.random ?? (() => 0.5) },
    );
  }

  function enqueue(id: number, target: Target, clock: Clock): number {
    const alert = noticeAlert({ id, subject: `Notice ${id}` }, `rule|notice:${id}:v1|webhook`);
    const subject = `notice:${id}:v1`;
    temp.store.outbox.enqueue(subject, 'rule', target, alert.payload, toUtcIso(clock.now()));
    return temp.store.db
      .prepare<[string], { id: number }>('SELECT id FROM outbox WHERE subject = ?')
      .get(subject)!.id;
  }

  const row = (id: number) =>
    temp.store.db
      .prepare<[number], { status: string; claimed_at: string | null; next_attempt_at: string }>(
        'SELECT status, claimed_at, next_attempt_at FROM outbox WHERE id = ?',
      )
      .get(id)!;

  it('after a pass fails on the database, pauses, then sends again what it had claimed', async () => {
    const clock = new ManualClock('2026-11-20T15:00:00Z');
    // Its ticks (7 s) are told apart from the pause after a failure (5 s).
    const drip = await startDripReceiver({ clock, everyMs: 7_000 });
    closing.push(() => drip.close());
    const errors: string[] = [];
    const logger = createLogger({
      level: 'error',
      destination: new Writable({
        write(chunk, _enc, done) {
          errors.push(String(chunk));
          done();
        },
      }),
    });
    const d = setup(clock, { logger });
    const healthy: Target = { kind: 'webhook', url: `${receiver.url}/hook` };
    const slow = enqueue(1, { kind: 'webhook', url: `${drip.url}/hook` }, clock);
    const fine = enqueue(2, healthy, clock);
    // The healthy webhook refuses once, and the disk fails as the retry is recorded.
    receiver.fail(503);
    temp.store.db.exec(`CREATE TEMP TRIGGER failing_disk BEFORE UPDATE OF last_error ON outbox
      WHEN NEW.last_error IS NOT NULL AND NEW.target = '${targetKey(healthy)}'
      BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`);
    const stop = new AbortController();
    const running = d.run(stop.signal);
    closing.push(() => {
      stop.abort();
      return running;
    });

    await until(() => errors.some((e) => e.includes('delivery pass failed')), 'the failure');
    await until(() => clock.sleeps.includes(5_000), 'the pause');
    expect(receiver.requests).toBe(1);
    expect(row(fine)).toMatchObject({ status: 'pending', claimed_at: '2026-11-20T15:00:00Z' });
    temp.store.db.exec('DROP TRIGGER failing_disk');

    clock.advance(5_000);
    await until(() => row(fine).status === 'sent', 'the alert to be sent again');
    expect(receiver.requests).toBe(2);
    expect(receiver.received).toHaveLength(1);
    // The drip's lane was in flight all along: its claim stayed, and it was sent once.
    expect(row(slow)).toMatchObject({ status: 'pending', claimed_at: '2026-11-20T15:00:00Z' });
    expect(drip.bodies).toHaveLength(1);
    expect(drip.open).toBe(1);
  });

  it('never retries sooner than a second, even when the jitter draws 0', async () => {
    const clock = new InstantClock('2026-11-20T15:00:00Z');
    const d = setup(clock, { random: () => 0 });
    const id = enqueue(1, { kind: 'webhook', url: `${receiver.url}/hook` }, clock);
    receiver.fail(503);
    expect(await d.dispatchDue()).toMatchObject({ sent: 0, retrying: 1 });
    expect(receiver.requests).toBe(1);
    expect(row(id)).toMatchObject({
      status: 'pending',
      claimed_at: null,
      next_attempt_at: '2026-11-20T15:00:01Z',
    });
  });

  it('keeps a new alert behind an earlier one to the same target that waits for a retry', async () => {
    const clock = new InstantClock('2026-11-20T15:00:00Z');
    const d = setup(clock);
    const hook: Target = { kind: 'webhook', url: `${receiver.url}/hook` };
    const other: Target = { kind: 'webhook', url: `${receiver.url}/other` };
    enqueue(1, hook, clock);
    receiver.fail(503);
    expect(await d.dispatchDue()).toMatchObject({ retrying: 1 });
    enqueue(2, hook, clock);
    enqueue(3, other, clock);
    // Another target goes on; this one's new alert waits for the retry of the first.
    expect(await d.dispatchDue()).toMatchObject({ sent: 1 });
    expect(receiver.received.map((r) => r.path)).toEqual(['/other']);
    expect(await d.drain(60_000)).toMatchObject({ sent: 2, retrying: 0 });
    expect(receiver.received.map((r) => JSON.parse(r.body).notice.id)).toEqual([3, 1, 2]);
  });
});
