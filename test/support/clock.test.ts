import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { InstantClock, ManualClock } from './clock.js';

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

describe('ManualClock', () => {
  it('wakes a sleep when the time passes its deadline, not before', async () => {
    const clock = new ManualClock('2026-11-20T15:00:00Z');
    let woke = false;
    const sleep = clock.sleep(60_000).then(() => {
      woke = true;
    });
    clock.advance(59_999);
    await Promise.resolve();
    expect(woke).toBe(false);
    clock.advance(1);
    await sleep;
    expect(woke).toBe(true);
    expect(clock.now().toISOString()).toBe('2026-11-20T15:01:00.000Z');
    expect(clock.sleeps).toEqual([60_000]);
  });

  it('holds one listener on the signal while a sleep waits, and none once it is woken', async () => {
    const clock = new ManualClock();
    const { signal } = new AbortController();
    for (let i = 0; i < 50; i++) {
      const sleep = clock.sleep(1_000, signal);
      expect(listeners(signal)).toBe(1);
      clock.advance(1_000);
      await sleep;
    }
    expect(listeners(signal)).toBe(0);
    expect(clock.pending).toBe(0);
  });

  it('rejects a sleep with the reason when its signal aborts, and forgets it', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const sleep = clock.sleep(1_000, controller.signal);
    controller.abort(new Error('stopping'));
    await expect(sleep).rejects.toThrow('stopping');
    expect(clock.pending).toBe(0);
    expect(listeners(controller.signal)).toBe(0);
    await expect(clock.sleep(1_000, controller.signal)).rejects.toThrow('stopping');
  });
});

describe('InstantClock', () => {
  it('returns at once, moving its time by the wait and recording it', async () => {
    const clock = new InstantClock('2026-11-20T15:00:00Z');
    await clock.sleep(30_000);
    await clock.sleep(-5);
    expect(clock.now().toISOString()).toBe('2026-11-20T15:00:30.000Z');
    expect(clock.sleeps).toEqual([30_000, -5]);
  });
});
