/**
 * The dispatcher as one replica of several, where only the leader sends: when an outbox
 * write says another replica took the lease (`not_leader`), sending stops at once (the
 * request in flight cut short, no later message sent), nothing is written or counted as
 * a failure, it is said once, and the claims are left for the new leader to release and
 * send again. A replica that leads again starts sending again.
 *
 * The store is SQLite's; a fenced write refused is played by a store whose outbox
 * refuses the named writes, as PostgreSQL's does once the lease changed hands.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChannelSet } from '../../src/channels/types.js';
import { createWebhookChannel } from '../../src/channels/webhook/send.js';
import { Dispatcher } from '../../src/delivery/dispatcher.js';
import type { DeliveryWatch } from '../../src/delivery/sender.js';
import type { Target } from '../../src/domain/targets.js';
import { silentLogger } from '../../src/lib/logger.js';
import { toUtcIso } from '../../src/lib/time.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import type { AsyncStore } from '../../src/store/async-store.js';
import { DatabaseError, NOT_LEADER } from '../../src/store/database.js';
import { noticeAlert } from '../fakes/alerts.js';
import { type DripReceiver, startDripReceiver } from '../fakes/drip.js';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook.js';
import { capturedLogger } from '../support/captured-logger.js';
import { ManualClock } from '../support/clock.js';
import { useTempStore } from '../support/temp-store.js';

const HOUR = 3_600_000;

type FencedWrite = 'claim' | 'markSent' | 'retryLater' | 'markDead' | 'releaseClaims';

/**
 * `store` with its outbox's fenced writes refused once `lose` named them, as a replica
 * whose lease another took sees them refused; `regain` lets them through again.
 */
function fenced(store: AsyncStore) {
  const refused = new Set<FencedWrite>();
  const outbox = { ...store.outbox };
  for (const name of ['claim', 'markSent', 'retryLater', 'markDead', 'releaseClaims'] as const) {
    const write = store.outbox[name] as (...args: unknown[]) => Promise<unknown>;
    (outbox as Record<string, unknown>)[name] = (...args: unknown[]) =>
      refused.has(name)
        ? Promise.reject(
            new DatabaseError('the lease is held by another replica now', { code: NOT_LEADER }),
          )
        : write(...args);
  }
  return {
    store: { ...store, outbox } as AsyncStore,
    lose(...writes: FencedWrite[]) {
      for (const w of writes) refused.add(w);
    },
    regain() {
      refused.clear();
    },
  };
}

/** Yields to the event loop until `done()` holds; gives up after 10 s of real time. */
async function until(done: () => boolean, what: string): Promise<void> {
  const limit = performance.now() + 10_000;
  while (!done()) {
    if (performance.now() > limit) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('a dispatcher that stops leading', () => {
  const temp = useTempStore('pipewatch-leadership-');
  const clock = new ManualClock('2026-11-20T15:00:00Z');
  let receiver: WebhookReceiver;
  let drip: DripReceiver;
  const closing: Array<() => Promise<unknown> | undefined> = [];

  beforeEach(async () => {
    receiver = await startWebhookReceiver();
    drip = await startDripReceiver({ clock, everyMs: 1_000 });
    closing.push(
      () => receiver.close(),
      () => drip.close(),
    );
  });
  afterEach(async () => {
    for (const close of closing.reverse()) await close();
    closing.length = 0;
  });

  function replica(store: AsyncStore) {
    const webhook = createWebhookChannel(
      { pace: { perUrl: 1000, perHost: 1000 } },
      { clock, logger: silentLogger },
    );
    closing.push(() => webhook.close?.());
    const channels: ChannelSet = { for: () => webhook as never };
    const { logger, lines } = capturedLogger();
    const lost: DatabaseError[] = [];
    const failedForGood: string[] = [];
    const watch: DeliveryWatch = {
      delivered() {},
      failedForGood: (_target, reason) => failedForGood.push(reason),
    };
    const dispatcher = new Dispatcher(
      {
        store,
        channels,
        clock,
        deadlineClock: clock,
        logger,
        watch,
        onNotLeader: (error) => lost.push(error),
      },
      { digestWindowMs: 0, maxAgeMs: 6 * HOUR, random: () => 0.5 },
    );
    const warnings = () =>
      lines
        .map((l) => JSON.parse(l))
        .filter((l) => l.level === 40 && /another replica/.test(l.msg));
    return { dispatcher, lost, failedForGood, warnings, lines };
  }

  function enqueue(id: number, target: Target): void {
    const alert = noticeAlert({ id, subject: `Notice ${id}` }, `rule|notice:${id}:v1|webhook`);
    temp.store.outbox.enqueue(
      `notice:${id}:v1`,
      'rule',
      target,
      alert.payload,
      toUtcIso(clock.now()),
    );
  }

  const rows = () =>
    temp.store.db
      .prepare(
        'SELECT id, status, attempts, claimed_at IS NOT NULL AS claimed, last_error FROM outbox ORDER BY id',
      )
      .all();
  const ids = (path: string) =>
    receiver.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body).notice.id);

  it('stops at once when marking a delivery sent is refused, and leaves its claims to the new leader', async () => {
    const fence = fenced(asyncStoreOf(temp.store));
    const slow: Target = { kind: 'webhook', url: `${drip.url}/slow` };
    const fast: Target = { kind: 'webhook', url: `${receiver.url}/fast` };
    const old = replica(fence.store);
    const stop = new AbortController();
    enqueue(1, slow);
    const running = old.dispatcher.run(stop.signal);
    closing.push(() => {
      stop.abort();
      return running;
    });
    await until(() => drip.open === 1, 'the request that never ends');

    // The lease changes hands; the next confirmation is refused.
    fence.lose('markSent');
    for (const id of [2, 3, 4]) enqueue(id, fast);
    old.dispatcher.wake();
    // Its run ends of itself: the drip's request, which only the lost lead can end
    // (the clock never moves), is cut short, and the fast target's next alert never goes.
    await running;
    expect(stop.signal.aborted).toBe(false);
    expect(ids('/fast')).toEqual([2]);
    await until(() => drip.abandoned === 1, 'the request in flight to be cut short');
    expect(drip.bodies).toHaveLength(1);
    expect(receiver.requests).toBe(1);

    // Said once, heard once; nothing written, nothing failed.
    expect(old.lost).toHaveLength(1);
    expect(old.lost[0]?.code).toBe(NOT_LEADER);
    expect(old.warnings()).toHaveLength(1);
    expect(old.lines.filter((l) => JSON.parse(l).level >= 50)).toEqual([]);
    expect(old.failedForGood).toEqual([]);
    expect(rows()).toEqual(
      [1, 2, 3, 4].map((id) => ({
        id,
        status: 'pending',
        attempts: 0,
        claimed: 1,
        last_error: null,
      })),
    );

    // The new leader releases what the old one claimed and sends it again: the one
    // alert confirmed but not recorded goes twice, every other once.
    const leader = replica(asyncStoreOf(temp.store));
    expect(await leader.dispatcher.recover()).toBe(4);
    await drip.close();
    const result = await leader.dispatcher.dispatchDue();
    expect(result).toMatchObject({ sent: 3, retrying: 1, dead: 0 });
    expect(ids('/fast')).toEqual([2, 2, 3, 4]);
    expect(drip.bodies).toHaveLength(1);
  });

  it('sends nothing when its claim is refused: a drain or a run ends with what it did', async () => {
    const fence = fenced(asyncStoreOf(temp.store));
    enqueue(1, { kind: 'webhook', url: `${receiver.url}/a` });
    enqueue(2, { kind: 'webhook', url: `${receiver.url}/b` });
    fence.lose('claim');
    const standby = replica(fence.store);

    expect(await standby.dispatcher.drain(60_000)).toEqual({
      sent: 0,
      messages: 0,
      retrying: 0,
      dead: 0,
    });
    expect(receiver.requests).toBe(0);
    expect(standby.lost).toHaveLength(1);
    expect(standby.warnings()).toHaveLength(1);
    expect(rows()).toEqual([
      { id: 1, status: 'pending', attempts: 0, claimed: 0, last_error: null },
      { id: 2, status: 'pending', attempts: 0, claimed: 0, last_error: null },
    ]);

    // A run that cannot even release what a former leader left ends at once, too.
    fence.lose('releaseClaims');
    await standby.dispatcher.run(new AbortController().signal);
    expect(standby.lost).toHaveLength(2);
    expect(receiver.requests).toBe(0);
  });

  it('runs again once it leads again, after a stop and after a lost lead, one run at a time', async () => {
    const fence = fenced(asyncStoreOf(temp.store));
    const hook: Target = { kind: 'webhook', url: `${receiver.url}/hook` };
    const d = replica(fence.store);

    // Leads, sends, is stopped.
    enqueue(1, hook);
    const first = new AbortController();
    const one = d.dispatcher.run(first.signal);
    await expect(d.dispatcher.run(new AbortController().signal)).rejects.toThrow(/already sending/);
    const sent = () => rows().filter((r) => (r as { status: string }).status === 'sent').length;
    await until(() => sent() === 1, 'the first alert confirmed');
    first.abort();
    await one;

    // Started again, loses the lead on its next confirmation: ends of itself.
    enqueue(2, hook);
    fence.lose('markSent');
    const second = new AbortController();
    await d.dispatcher.run(second.signal);
    expect(second.signal.aborted).toBe(false);
    expect(d.lost).toHaveLength(1);

    // Leads again: what it had claimed goes again, with what came since.
    fence.regain();
    enqueue(3, hook);
    const third = new AbortController();
    const three = d.dispatcher.run(third.signal);
    await until(() => sent() === 3, 'the alerts after leading again');
    third.abort();
    await three;
    expect(ids('/hook')).toEqual([1, 2, 2, 3]);
    expect(rows()).toEqual(
      [1, 2, 3].map((id) => ({ id, status: 'sent', attempts: 1, claimed: 0, last_error: null })),
    );

    // A second lost lead is said again.
    enqueue(4, hook);
    fence.lose('markSent');
    await d.dispatcher.run(new AbortController().signal);
    expect(d.lost).toHaveLength(2);
    expect(d.warnings()).toHaveLength(2);
  });
});
