import { describe, expect, it } from 'vitest';
import {
  estimateRefresh,
  nextPollAt,
  refreshPhaseDefaults,
} from '../../src/ingest/refresh-phase.js';
import { toUtcIso } from '../../src/lib/time.js';

const MINUTE = 60_000;
const BASE = Date.parse('2026-11-20T15:00:00Z');

/** Observations of refreshes at `slot × period + offset(slot)`, each seen 20 s later. */
function refreshes(slots: number[], periodMs: number, offset: (slot: number) => number) {
  return slots.map((k) => {
    const created = BASE + k * periodMs + offset(k);
    return {
      createdAt: toUtcIso(new Date(created)),
      firstSeenAt: toUtcIso(new Date(created + 20_000)),
      baseline: false,
    };
  });
}
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const jitter = (k: number) => ((k * 37) % 90) * 1000;

describe('refresh estimate', () => {
  it('locks on refreshes every 10 minutes, 0–90 s late, with the window they land in', () => {
    const lock = estimateRefresh(refreshes(range(0, 20), 10 * MINUTE, jitter), 15 * MINUTE);
    expect(lock).toMatchObject({ periodMs: 10 * MINUTE });
    expect(lock!.startMs).toBeLessThan(90_000);
    expect(lock!.startMs + lock!.spreadMs).toBeLessThanOrEqual(90_000);
  });

  it('locks on the enterprise minute when ten minutes does not fit', () => {
    const lock = estimateRefresh(
      refreshes(
        range(0, 40).map((k) => k * 3),
        MINUTE,
        (k) => (k % 7) * 1000,
      ),
      15 * MINUTE,
    );
    expect(lock).toMatchObject({ periodMs: MINUTE });
  });

  it('follows a shifted phase: the newest refreshes decide', () => {
    const before = refreshes(range(0, 20), 10 * MINUTE, (k) => 20_000 + (k % 5) * 1000);
    const after = refreshes(range(20, 36), 10 * MINUTE, (k) => 5 * MINUTE + (k % 5) * 1000);
    const lock = estimateRefresh([...after.reverse(), ...before.reverse()], 15 * MINUTE);
    expect(lock?.startMs).toBeGreaterThanOrEqual(5 * MINUTE);
    expect(lock?.startMs).toBeLessThan(5 * MINUTE + 10_000);
  });

  it('falls back with too few refreshes, scattered instants, or dates that do not match when notices were seen', () => {
    expect(estimateRefresh(refreshes(range(0, 7), 10 * MINUTE, jitter), 15 * MINUTE)).toBeNull();
    const scattered = refreshes(range(0, 30), 10 * MINUTE, (k) => (k * 2_654_435_761) % 600_000);
    expect(estimateRefresh(scattered, 15 * MINUTE)).toBeNull();
    const stale = refreshes(range(0, 20), 10 * MINUTE, jitter).map((o) => ({
      ...o,
      firstSeenAt: toUtcIso(new Date(Date.parse(o.createdAt) + 3 * 3_600_000)),
    }));
    expect(estimateRefresh(stale, 15 * MINUTE)).toBeNull();
  });
});

describe('refresh estimate from the baseline', () => {
  /** As stored by a baseline sync at `seenAt`: one sighting for every notice. */
  const baseline = (observations: ReturnType<typeof refreshes>, seenAt: number) =>
    observations.map((o) => ({ ...o, firstSeenAt: toUtcIso(new Date(seenAt)), baseline: true }));
  const syncedAt = BASE + 24 * 10 * MINUTE;

  it('locks on the refresh instants of notices the baseline stored, though none was seen appear', () => {
    const lock = estimateRefresh(
      baseline(refreshes(range(0, 16), 10 * MINUTE, jitter), syncedAt),
      15 * MINUTE,
    );
    expect(lock).toMatchObject({ periodMs: 10 * MINUTE, observed: 16 });
    expect(lock!.startMs + lock!.spreadMs).toBeLessThanOrEqual(90_000);
  });

  it('never locks on a baseline dated as notices happen', () => {
    const scattered = refreshes(range(0, 40), 10 * MINUTE, (k) => (k * 2_654_435_761) % 600_000);
    expect(estimateRefresh(baseline(scattered, syncedAt), 15 * MINUTE)).toBeNull();
  });

  it('follows refreshes found new over an older baseline pattern', () => {
    const old = baseline(
      refreshes(range(0, 20), 10 * MINUTE, (k) => 20_000 + (k % 5) * 1000),
      BASE + 20 * 10 * MINUTE,
    );
    const found = refreshes(range(20, 36), 10 * MINUTE, (k) => 5 * MINUTE + (k % 5) * 1000);
    const lock = estimateRefresh([...found.reverse(), ...old.reverse()], 15 * MINUTE);
    expect(lock?.startMs).toBeGreaterThanOrEqual(5 * MINUTE);
    expect(lock?.startMs).toBeLessThan(5 * MINUTE + 10_000);
  });

  it('still drops a notice found new long after its refresh, and one dated after it was seen', () => {
    const found = refreshes(range(0, 16), 10 * MINUTE, jitter);
    const stale = found.map((o) => ({
      ...o,
      firstSeenAt: toUtcIso(new Date(Date.parse(o.createdAt) + 3 * 3_600_000)),
    }));
    expect(estimateRefresh(stale, 15 * MINUTE)).toBeNull();
    expect(estimateRefresh(baseline(found, BASE), 15 * MINUTE)).toBeNull();
  });
});

describe('next poll', () => {
  const lock = {
    periodMs: 10 * MINUTE,
    startMs: 0,
    spreadMs: 90_000,
    typicalMs: 45_000,
    observed: 12,
  };
  const m = refreshPhaseDefaults.marginMs;
  const late = refreshPhaseDefaults.lateMarginMs;
  const slot = BASE + 60 * MINUTE;

  it('polls just after the typical refresh, follows up once when it has not shown, then waits for the next', () => {
    expect(nextPollAt(slot + 10_000, lock, () => false)).toBe(slot + 45_000 + m);
    expect(nextPollAt(slot + 45_000 + m, lock, () => false)).toBe(slot + 90_000 + late);
    expect(nextPollAt(slot + 45_000 + m, lock, () => true)).toBe(slot + 10 * MINUTE + 45_000 + m);
    expect(nextPollAt(slot + 90_000 + late, lock, () => false)).toBe(
      slot + 10 * MINUTE + 45_000 + m,
    );
  });

  it('polls a short period once, at the end of its window', () => {
    const minute = {
      periodMs: MINUTE,
      startMs: 0,
      spreadMs: 9_000,
      typicalMs: 4_000,
      observed: 12,
    };
    expect(nextPollAt(slot + 9_000 + late, minute, () => false)).toBe(slot + MINUTE + 9_000 + late);
  });
});
