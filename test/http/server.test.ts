import { afterEach, describe, expect, it } from 'vitest';
import { assessDelivery } from '../../src/delivery/health.js';
import { Metrics } from '../../src/http/metrics.js';
import { withErrorCodes } from '../../src/http/public-view.js';
import { type RunningHttpServer, startHttpServer } from '../../src/http/server.js';
import { assessHealth } from '../../src/ingest/health.js';
import { silentLogger } from '../../src/lib/logger.js';
import { useTempStore } from '../support/temp-store.js';

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
  const temp = useTempStore('pipewatch-http-');
  let server: RunningHttpServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('serves /healthz (200 or 503 with reasons), /status and /metrics', async () => {
    const { store } = temp;
    const metrics = new Metrics();
    metrics.notices.inc({ change: 'new' }, 3);
    let now = new Date('2026-11-20T12:05:00Z');
    server = await startHttpServer({
      port: 0,
      host: '127.0.0.1',
      metrics,
      logger: silentLogger,
      health: async () => assessHealth(feeds, store!.syncState.all(), now, start),
      status: async () => ({ full: true }),
      publicStatus: async () => ({ counts: store!.counts() }),
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

  it('says healthy or not per feed, with error codes and nothing the error said', async () => {
    const states = [
      {
        feed: 'notices',
        last_attempt_at: '2026-11-20T12:00:00Z',
        last_success_at: null,
        last_error: 'the API refused user scheduler1 (GET /ip/notices on api.example.com)',
        last_error_code: 'UPSTREAM_AUTH',
        last_error_at: '2026-11-20T12:00:00Z',
        consecutive_failures: 3,
      },
    ];
    server = await startHttpServer({
      ...endpoints(),
      health: async () =>
        assessHealth(feeds, withErrorCodes(states), new Date('2026-11-20T13:00:00Z'), start),
    });
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(503);
    const body = await response.text();
    expect(JSON.parse(body)).toEqual({
      status: 'unhealthy',
      reasons: [
        'no successful notices sync since start (30 min); last error: UPSTREAM_AUTH',
        'no successful capacity sync since start (45 min)',
      ],
      feeds: [
        {
          feed: 'notices',
          healthy: false,
          last_success_at: null,
          reason: 'no successful notices sync since start (30 min); last error: UPSTREAM_AUTH',
        },
        {
          feed: 'capacity',
          healthy: false,
          last_success_at: null,
          reason: 'no successful capacity sync since start (45 min)',
        },
      ],
    });
    expect(body).not.toMatch(/scheduler1|api\.example\.com/);
  });

  it('listens on loopback unless told otherwise', async () => {
    const { host: _host, ...withoutHost } = endpoints();
    server = await startHttpServer(withoutHost);
    expect(server.listening).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(server.loopback).toBe(true);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('on any other address serves /status only for the status token, compared whole', async () => {
    server = await startHttpServer({ ...endpoints(), host: '0.0.0.0', statusToken: TOKEN });
    expect(server.loopback).toBe(false);
    const status = (authorization?: string) =>
      fetch(`${server!.url}/status`, authorization ? { headers: { authorization } } : {});

    const missing = await status();
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="pipewatch"');
    expect(await missing.json()).toEqual({
      error: '/status needs Authorization: Bearer <PIPEWATCH_STATUS_TOKEN>',
    });
    for (const wrong of [
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}X`,
      `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`,
      `Bearer`,
    ]) {
      const refused = await status(wrong);
      expect([wrong, refused.status]).toEqual([wrong, 401]);
      expect(refused.headers.get('www-authenticate')).toBe(
        'Bearer realm="pipewatch", error="invalid_token"',
      );
    }
    expect(await (await status(`Bearer ${TOKEN}`)).json()).toEqual({ full: true });
    expect(await (await status(`bearer ${TOKEN}`)).json()).toEqual({ full: true });
    // The other endpoints stay open.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(200);
  });

  it('on any other address without a status token refuses /status to everyone', async () => {
    server = await startHttpServer({ ...endpoints(), host: '0.0.0.0' });
    const response = await fetch(`${server.url}/status`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="pipewatch"');
    expect(((await response.json()) as { error: string }).error).toMatch(
      /^\/status is not served on 0\.0\.0\.0:\d+ without PIPEWATCH_STATUS_TOKEN; run `pipewatch status` on the host$/,
    );
    const guessed = await fetch(`${server.url}/status`, {
      headers: { authorization: 'Bearer undefined' },
    });
    expect(guessed.status).toBe(401);
  });

  it('on loopback serves the public status without a token, the full one with it', async () => {
    server = await startHttpServer({ ...endpoints(), statusToken: TOKEN });
    expect(await (await fetch(`${server.url}/status`)).json()).toEqual({ public: true });
    const full = await fetch(`${server.url}/status`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(await full.json()).toEqual({ full: true });
    const wrong = await fetch(`${server.url}/status`, {
      headers: { authorization: 'Bearer not-the-status-token' },
    });
    expect(wrong.status).toBe(401);
  });
});

const TOKEN = 'status-token-0123456789abcdef';

/** Endpoints whose answers say which view was served. */
function endpoints() {
  return {
    port: 0,
    host: '127.0.0.1',
    metrics: new Metrics({ processMetrics: false }),
    logger: silentLogger,
    health: async () => assessHealth([], [], new Date(0), new Date(0)),
    status: async () => ({ full: true }),
    publicStatus: async () => ({ public: true }),
  };
}
