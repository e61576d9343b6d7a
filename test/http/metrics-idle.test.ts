/**
 * The process metrics cost nothing between scrapes: no event-loop monitor, no timer or
 * handle of their own, and what they report is read when `/metrics` is scraped.
 */
import perfHooks from 'node:perf_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Metrics } from '../../src/http/metrics.js';

/** The value of an unlabelled series in exposition text. */
function value(text: string, name: string): number {
  const line = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  if (!line) throw new Error(`no ${name} in:\n${text}`);
  return Number(line[1]);
}

describe('process metrics between scrapes', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('start no event-loop monitor', async () => {
    const monitor = vi.spyOn(perfHooks, 'monitorEventLoopDelay');
    const metrics = new Metrics();
    await metrics.text();
    expect(monitor).not.toHaveBeenCalled();
  });

  it('set no timer, to be answered or between scrapes', async () => {
    const timers = [vi.spyOn(globalThis, 'setInterval'), vi.spyOn(globalThis, 'setTimeout')];
    const metrics = new Metrics();
    await metrics.text();
    for (const timer of timers) expect(timer).not.toHaveBeenCalled();
  });

  it('measure event-loop lag on the scrape that reports it', async () => {
    const text = await new Metrics().text();
    expect(value(text, 'pipewatch_nodejs_eventloop_lag_seconds')).toBeGreaterThan(0);
    expect(text).not.toMatch(/^pipewatch_nodejs_eventloop_lag_p99_seconds/m);
  });

  it('read CPU, memory, heap and file descriptors at each scrape', async () => {
    const metrics = new Metrics();
    const first = await metrics.text();
    // Work between the scrapes that the next one must see.
    const hold = Array.from({ length: 200_000 }, (_, i) => ({ i }));
    const second = await metrics.text();
    expect(hold.length).toBe(200_000);
    for (const name of [
      'pipewatch_process_cpu_seconds_total',
      'pipewatch_process_resident_memory_bytes',
      'pipewatch_nodejs_heap_size_used_bytes',
    ])
      expect(value(second, name), name).not.toBe(value(first, name));
    expect(value(second, 'pipewatch_process_start_time_seconds')).toBeGreaterThan(1.7e9);
    if (process.platform === 'linux')
      expect(value(second, 'pipewatch_process_open_fds')).toBeGreaterThan(0);
  });
});
