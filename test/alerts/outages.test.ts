/**
 * Outages judged by the watch against a real store: when a feed counts as stale (the
 * staleness clock of a fresh daemon), that each outage is told once when it begins and
 * once when it ends, a stuck target, and the operations target's own outage.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { OutageWatch } from '../../src/alerts/outage-watch.js';
import type { AlertPayload } from '../../src/alerts/payload.js';
import type { Target } from '../../src/domain/targets.js';
import { createLogger } from '../../src/lib/logger.js';
import { toUtcIso } from '../../src/lib/time.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import { ManualClock } from '../support/clock.js';
import { useTempStore } from '../support/temp-store.js';

const temp = useTempStore('pipewatch-outages-');
const START = new Date('2026-11-20T15:00:00Z');
const MINUTE = 60_000;
const OPS: Target = { kind: 'slack', channel: '#pipewatch-ops' };
const HOOK: Target = { kind: 'webhook', url: 'https://hooks.example.com/T0KEN/secret-path' };

function watch(options: { ops?: Target | undefined; startedAt?: Date } = {}) {
  const clock = new ManualClock(options.startedAt ?? START);
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = createLogger({
    level: 'info',
    destination: new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  });
  let woken = 0;
  const w = new OutageWatch({
    store: asyncStoreOf(temp.store),
    clock,
    logger,
    opsTarget: 'ops' in options ? options.ops : OPS,
    feeds: [{ name: 'notices', intervalMs: 10 * MINUTE }],
    startedAt: clock.now(),
    stuckAfterMs: 10 * MINUTE,
    secrets: ['S3KR1T-key'],
    wake: () => void woken++,
  });
  return { w, clock, lines, woken: () => woken };
}

/** The operations alerts queued, as `event feed-or-target`. */
function told(): string[] {
  const rows = temp.store.outbox.due('2100-01-01T00:00:00Z');
  return rows
    .filter((r) => r.rule === 'pipewatch-operations')
    .map((r) => {
      const o = r.payload.operations as NonNullable<AlertPayload['operations']> & {
        feed?: string;
        target?: string;
      };
      return `${o.event} ${o.feed ?? o.target}`;
    });
}

function fail(at: Date, message = 'authentication failed') {
  temp.store.syncState.attempted('notices', toUtcIso(at));
  temp.store.syncState.failed('notices', toUtcIso(at), { message, code: 'UPSTREAM_AUTH' });
}

describe('a stale feed', () => {
  it('never having succeeded, counts from the start: told once past three intervals', async () => {
    const { w, clock, woken } = watch();
    fail(clock.now());
    await w.feedRan({ feed: 'notices', ok: false });
    clock.advance(30 * MINUTE);
    await w.look();
    expect(told()).toEqual([]);
    clock.advance(1_000);
    await w.feedRan({ feed: 'notices', ok: false });
    expect(told()).toEqual(['feed-stale notices']);
    expect(woken()).toBe(1);
    const [row] = temp.store.outbox.due('2100-01-01T00:00:00Z');
    expect(row?.payload.operations).toMatchObject({
      event: 'feed-stale',
      summary:
        'The notices feed has had no success since pipewatch started 30 min 1 s ago (over 3 of its 10 min intervals): new notices are not seen and do not alert. The API refuses the credentials: check PIPEWATCH_API_USER and PIPEWATCH_API_KEY.',
      last_success_at: null,
      last_error_code: 'UPSTREAM_AUTH',
      last_error: 'authentication failed',
    });
    for (let i = 0; i < 5; i++) {
      clock.advance(10 * MINUTE);
      await w.feedRan({ feed: 'notices', ok: false });
    }
    expect(told()).toEqual(['feed-stale notices']);
  });

  it('last seen before a long stop, is given its intervals again until it is tried', async () => {
    temp.store.syncState.succeeded('notices', '2026-11-19T15:00:00Z');
    const { w, clock } = watch();
    await w.look();
    clock.advance(20 * MINUTE);
    await w.look();
    expect(told()).toEqual([]);
    // Its first try fails: a day without a success, stale at once.
    fail(clock.now());
    await w.feedRan({ feed: 'notices', ok: false });
    expect(told()).toEqual(['feed-stale notices']);
  });

  it('that stopped finishing its runs, names no error from before its last success', async () => {
    fail(new Date(START.getTime() - 20 * MINUTE));
    temp.store.syncState.succeeded('notices', toUtcIso(START));
    const { w, clock } = watch();
    await w.feedRan({ feed: 'notices', ok: true });
    clock.advance(31 * MINUTE);
    await w.look();
    expect(told()).toEqual(['feed-stale notices']);
    const [row] = temp.store.outbox.due('2100-01-01T00:00:00Z');
    expect(row?.payload.operations).toMatchObject({
      summary:
        'The notices feed has had no success for 31 min (over 3 of its 10 min intervals): new notices are not seen and do not alert.',
      last_success_at: '2026-11-20T15:00:00Z',
      last_error_code: null,
      last_error: null,
    });
  });

  it('is told to have recovered once, at its first success, and never again', async () => {
    temp.store.syncState.succeeded('notices', toUtcIso(START));
    const { w, clock } = watch();
    clock.advance(31 * MINUTE);
    fail(clock.now());
    await w.feedRan({ feed: 'notices', ok: false });
    clock.advance(10 * MINUTE);
    temp.store.syncState.succeeded('notices', toUtcIso(clock.now()));
    await w.feedRan({ feed: 'notices', ok: true });
    clock.advance(10 * MINUTE);
    await w.feedRan({ feed: 'notices', ok: true });
    expect(told()).toEqual(['feed-stale notices', 'feed-recovered notices']);
    expect(temp.store.outages.get('feed:notices')).toBeUndefined();
  });

  it('is told once across restarts, and its recovery by the process that sees it', async () => {
    fail(START);
    const first = watch();
    first.clock.advance(31 * MINUTE);
    await first.w.feedRan({ feed: 'notices', ok: false });
    const second = watch({ startedAt: new Date(START.getTime() + 40 * MINUTE) });
    await second.w.feedRan({ feed: 'notices', ok: false });
    second.clock.advance(40 * MINUTE);
    await second.w.feedRan({ feed: 'notices', ok: false });
    expect(told()).toEqual(['feed-stale notices']);
    const third = watch({ startedAt: new Date(START.getTime() + 90 * MINUTE) });
    await third.w.feedRan({ feed: 'notices', ok: true });
    expect(told()).toEqual(['feed-stale notices', 'feed-recovered notices']);
  });

  it('without an operations target, is recorded and logged as an error', async () => {
    const { w, clock, lines } = watch({ ops: undefined });
    clock.advance(31 * MINUTE);
    await w.look();
    expect(told()).toEqual([]);
    expect(temp.store.outages.all().map((o) => o.subject)).toEqual(['feed:notices']);
    expect(lines.filter((l) => l.level === 50).map((l) => l.msg)).toEqual([
      expect.stringMatching(/Nobody is told: PIPEWATCH_OPS_TARGET is not set\.$/),
    ]);
  });
});

describe('a dead target', () => {
  it('is told once when a delivery dies and once when one gets through, without its URL', async () => {
    const { w, clock, lines } = watch();
    await w.failedForGood(HOOK, 'webhook: 404 Not Found (S3KR1T-key)', 'NOT_FOUND');
    await w.failedForGood(HOOK, 'webhook: 404 Not Found', 'NOT_FOUND');
    clock.advance(5 * MINUTE);
    await w.delivered(HOOK);
    await w.delivered(HOOK);
    expect(told()).toEqual([
      'target-dead webhook:https://hooks.example.com/…',
      'target-recovered webhook:https://hooks.example.com/…',
    ]);
    const rows = temp.store.outbox.due('2100-01-01T00:00:00Z');
    expect(rows[0]?.payload.operations).toMatchObject({
      how: 'dead',
      reason: 'webhook: 404 Not Found ([redacted])',
      code: 'NOT_FOUND',
    });
    for (const r of rows)
      expect(JSON.stringify(r.payload) + r.key).not.toMatch(/T0KEN|secret-path/);
    expect(lines).toHaveLength(2);
    expect(JSON.stringify(lines)).not.toMatch(/T0KEN|secret-path/);
  });

  it('is told when an alert to it is stuck past PIPEWATCH_DELIVERY_STUCK_AFTER', async () => {
    const { w, clock } = watch();
    temp.store.outbox.enqueue('notice:1:v1', 'r', HOOK, { any: 1 } as never, toUtcIso(START));
    clock.advance(10 * MINUTE);
    await w.look();
    expect(told()).toEqual([]);
    clock.advance(1_000);
    await w.look();
    await w.look();
    expect(told()).toEqual(['target-dead webhook:https://hooks.example.com/…']);
    expect(
      temp.store.outbox.due('2100-01-01T00:00:00Z').find((r) => r.rule === 'pipewatch-operations')
        ?.payload.operations,
    ).toMatchObject({ how: 'stuck', reason: 'no answer yet' });
  });

  it('being the operations target, is logged loudly, not sent through itself; its recovery is', async () => {
    const { w, clock, lines } = watch();
    await w.failedForGood(OPS, 'slack: channel_not_found', 'NOT_FOUND');
    expect(told()).toEqual([]);
    expect(lines.filter((l) => l.level === 50).map((l) => l.msg)).toEqual([
      expect.stringMatching(
        /^PIPEWATCH_OPS_TARGET slack:#pipewatch-ops itself is failing, so nobody hears of this or of any other outage through it until it works again: /,
      ),
    ]);
    clock.advance(MINUTE);
    await w.delivered(OPS);
    expect(told()).toEqual(['target-recovered slack:#pipewatch-ops']);
  });
});
