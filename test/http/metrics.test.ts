/**
 * `/metrics` as Prometheus reads it: every family passes the naming rules of
 * `promtool check metrics`, checked here without promtool, and by promtool itself when
 * it is installed.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Metrics } from '../../src/http/metrics.js';
import { type RunningHttpServer, startHttpServer } from '../../src/http/server.js';
import { assessHealth } from '../../src/ingest/health.js';
import { silentLogger } from '../../src/lib/logger.js';
import { lintExposition } from './exposition-lint.js';

/** The `promtool` binary on PATH, if any. */
function findPromtool(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'promtool');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

const promtool = findPromtool();

function promtoolCheck(text: string): { status: number | null; output: string } {
  const run = spawnSync(promtool as string, ['check', 'metrics'], {
    input: text,
    encoding: 'utf8',
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** A daemon's metrics with a value in every family, so that every series is written. */
function busyMetrics(): Metrics {
  const metrics = new Metrics();
  metrics.syncs.inc({ feed: 'notices', result: 'ok' });
  metrics.syncErrors.inc({ feed: 'capacity', code: 'UPSTREAM_UNAVAILABLE' });
  metrics.syncDuration.observe({ feed: 'notices' }, 0.3);
  metrics.lastSuccess.set({ feed: 'notices' }, 1_795_000_000);
  metrics.notices.inc({ change: 'new' }, 3);
  metrics.capacityCycles.inc({ change: 'unchanged' });
  metrics.skippedRecords.inc({ feed: 'notices' });
  metrics.deliveries.inc({ channel: 'slack', result: 'sent' });
  metrics.deliveryMessages.inc({ channel: 'slack' });
  metrics.outbox.set({ status: 'pending' }, 2);
  metrics.deliveryOldestPending.set({ channel: 'webhook' }, 601);
  metrics.deliveryStuckTargets.set({ channel: 'webhook' }, 1);
  return metrics;
}

/** Exposition text breaking one rule per family, each as promtool words it. */
const BAD = `# HELP app_active_handles_total Active handles.
# TYPE app_active_handles_total gauge
app_active_handles_total 3
# HELP app_requests Requests served.
# TYPE app_requests counter
app_requests 5
# TYPE app_unhelpful_total counter
app_unhelpful_total 1
# HELP app_latency_milliseconds Latency.
# TYPE app_latency_milliseconds gauge
app_latency_milliseconds 12
# HELP app_queueLength Queue length.
# TYPE app_queueLength gauge
app_queueLength 1
# HELP app_jobs_count Jobs.
# TYPE app_jobs_count gauge
app_jobs_count 4
# HELP app_wait_ms Wait.
# TYPE app_wait_ms gauge
app_wait_ms 4
`;

describe('/metrics exposition', () => {
  let server: RunningHttpServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function served(): Promise<string> {
    server = await startHttpServer({
      port: 0,
      host: '127.0.0.1',
      metrics: busyMetrics(),
      logger: silentLogger,
      health: async () => assessHealth([], [], new Date(0), new Date(0)),
      status: async () => ({}),
      publicStatus: async () => ({}),
    });
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(200);
    return response.text();
  }

  it('breaks none of the naming rules promtool checks', async () => {
    const text = await served();
    expect(lintExposition(text)).toEqual([]);
  });

  it('keeps the process metrics, without the gauges named like counters', async () => {
    const text = await served();
    const families = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => `${m[1]} ${m[2]}`);
    for (const family of [
      'pipewatch_process_cpu_seconds_total counter',
      'pipewatch_process_resident_memory_bytes gauge',
      'pipewatch_process_start_time_seconds gauge',
      'pipewatch_nodejs_eventloop_lag_seconds gauge',
      'pipewatch_nodejs_gc_duration_seconds histogram',
      'pipewatch_nodejs_heap_size_used_bytes gauge',
      'pipewatch_nodejs_active_resources gauge',
      'pipewatch_nodejs_heap_space_size_used_bytes gauge',
      'pipewatch_nodejs_version_info gauge',
      ...(process.platform === 'linux' ? ['pipewatch_process_open_fds gauge'] : []),
    ]) {
      expect(families).toContain(family);
    }
    expect(text).not.toMatch(/^# TYPE \S+_total (gauge|histogram|summary)$/m);
    expect(text).toMatch(/^pipewatch_notices_total\{change="new"\} 3$/m);
  });

  it('names each broken rule the way promtool does', () => {
    const problems = lintExposition(BAD).map((p) => `${p.metric}: ${p.text}`);
    expect(problems).toEqual([
      'app_active_handles_total: non-counter metrics should not have "_total" suffix',
      'app_requests: counter metrics should have "_total" suffix',
      'app_unhelpful_total: no help text',
      'app_latency_milliseconds: use base unit "seconds" instead of "milliseconds"',
      "app_queueLength: metric names should be written in 'snake_case' not 'camelCase'",
      'app_jobs_count: non-histogram and non-summary metrics should not have "_count" suffix',
      'app_wait_ms: metric names should not contain abbreviated units',
    ]);
  });

  it.skipIf(promtool === undefined)('passes promtool check metrics', async () => {
    const text = await served();
    const good = promtoolCheck(text);
    expect(good.output).toBe('');
    expect(good.status).toBe(0);
    const bad = promtoolCheck(BAD);
    expect(bad.status).not.toBe(0);
    expect(bad.output).toMatch(/app_active_handles_total non-counter metrics should not have/);
  });
});
