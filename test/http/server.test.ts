import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assessDelivery, assessHealth } from '../../src/http/health.js';
import { Metrics } from '../../src/http/metrics.js';
import { type RunningHttpServer, startHttpServer } from '../../src/http/server.js';
import { silentLogger } from '../../src/lib/logger.js';
import { Store } from '../../src/store/index.js';

const feeds = [
  { name: 'notices', intervalMs: 600_000 },
  { name: 'capacity', intervalMs: 900_000 },
];
const start = new Date('2026-11-20T12:00:00Z');

describe('assessHealth', () => {
  it('is healthy while every feed succeeded within three intervals', () => {
    const states = [
      { feed: 'notices', last_success_at: '2026-11-20T12:20:00Z' },
      { feed: 'capacity', last_success_at: '2026-11-20T12:10:00Z' },
    ].map((s) => ({
      last_attempt_at: null,
      last_error: null,
      last_error_code: null,
      last_error_at: null,
      consecutive_failures: 0,
      ...s,
    }));
    expect(assessHealth(feeds, states, new Date('2026-11-20T12:50:00Z'), start).healthy).toBe(true);
    const late = assessHealth(feeds, states, new Date('2026-11-20T12:50:01Z'), start);
    expect(late.healthy).toBe(false);
    expect(late.feeds[0]?.reason).toBe('no successful notices sync for more than 30 min');
  });

  it('gives a new daemon three intervals, then names the last error', () => {
    const states = [
      {
        feed: 'notices',
        last_attempt_at: '2026-11-20T12:00:00Z',
        last_success_at: null,
        last_error: 'authentication failed',
        last_error_code: 'UPSTREAM_AUTH',
        last_error_at: null,
        consecutive_failures: 3,
      },
    ];
    expect(assessHealth(feeds, states, new Date('2026-11-20T12:29:00Z'), start).healthy).toBe(true);
    const report = assessHealth(feeds, states, new Date('2026-11-20T12:31:00Z'), start);
    expect(report.feeds[0]?.reason).toBe(
      'no successful notices sync since start (30 min); last error: authentication failed',
    );
  });
});

describe('assessDelivery', () => {
  const target = (kind: 'webhook' | 'email' | 'slack', age: number, stuck: boolean) => ({
    target: `${kind}:somewhere`,
    kind,
    pending: 1,
    in_flight: 0,
    oldest_pending_at: '2026-11-20T12:00:00Z' as const,
    oldest_pending_age_seconds: age,
    stuck,
    last_error: null,
  });

  it('is unhealthy while a target is stuck, one reason per channel kind and no address', () => {
    const report = assessDelivery({
      stuck_after_seconds: 600,
      targets: [
        target('webhook', 900, true),
        target('email', 30, false),
        target('webhook', 3_700, true),
        target('slack', 601, true),
      ],
    });
    expect(report).toEqual({
      healthy: false,
      stuck_after_seconds: 600,
      stuck: [
        { channel: 'webhook', targets: 2, oldest_pending_age_seconds: 3_700 },
        { channel: 'slack', targets: 1, oldest_pending_age_seconds: 601 },
      ],
      reasons: [
        'delivery stuck: 2 webhook targets with an alert undelivered for 1h1m40s (more than 10m)',
        'delivery stuck: 1 slack target with an alert undelivered for 10m1s (more than 10m)',
      ],
    });
    expect(JSON.stringify(report)).not.toContain('somewhere');
    const calm = assessDelivery({
      stuck_after_seconds: 600,
      targets: [target('email', 30, false)],
    });
    expect(calm).toMatchObject({ healthy: true, stuck: [], reasons: [] });
  });
});

describe('HTTP endpoints', () => {
  let server: RunningHttpServer | undefined;
  let store: Store | undefined;
  afterEach(async () => {
    await server?.close();
    store?.close();
  });

  it('serves /healthz (200 or 503 with reasons), /status and /metrics', async () => {
    store = Store.open(mkdtempSync(join(tmpdir(), 'pipewatch-http-')));
    const metrics = new Metrics();
    metrics.notices.inc({ change: 'new' }, 3);
    let now = new Date('2026-11-20T12:05:00Z');
    server = await startHttpServer({
      port: 0,
      host: '127.0.0.1',
      metrics,
      logger: silentLogger,
      health: () => assessHealth(feeds, store!.syncState.all(), now, start),
      status: () => ({ counts: store!.counts() }),
    });
    const healthy = await fetch(`${server.url}/healthz`);
    expect(healthy.status).toBe(200);
    expect(await healthy.json()).toMatchObject({ status: 'ok', reasons: [] });
    now = new Date('2026-11-20T13:00:00Z');
    const sick = await fetch(`${server.url}/healthz`);
    expect(sick.status).toBe(503);
    expect(((await sick.json()) as { reasons: string[] }).reasons).toHaveLength(2);
    expect(await (await fetch(`${server.url}/status`)).json()).toEqual({
      counts: { pipelines: 0, notices: 0, capacity_cycles: 0 },
    });
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toMatch(/pipewatch_notices_total\{change="new"\} 3/);
    expect(text).toMatch(/pipewatch_process_cpu_seconds_total/);
    expect((await fetch(`${server.url}/nope`)).status).toBe(404);
    expect((await fetch(`${server.url}/status`, { method: 'POST' })).status).toBe(405);
  });
});
