/**
 * A stuck delivery target as an operator meets it, through the daemon: `pipewatch run`
 * delivers a new notice to a healthy webhook while another webhook drips its answer;
 * once that alert has waited longer than PIPEWATCH_DELIVERY_STUCK_AFTER, `/healthz`
 * answers 503 saying so, `/metrics` counts the stuck target by channel kind, `status`
 * and `status --json` list it with its oldest alert's age; and stopping the daemon ends
 * the attempt in flight and leaves nothing claimed. The daemon runs on a ManualClock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import { Store } from '../../src/store/index.js';
import { type DripReceiver, startDripReceiver } from '../fakes/drip.js';
import { startSimulatedApi } from '../fakes/simulated-api.js';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook.js';
import { InstantClock, ManualClock } from '../support/clock.js';
import { cli, startCli, until } from './run-cli.js';

const START = new Date('2026-11-20T15:00:00Z');
const MINUTE = 60_000;

let sim: Simulator;
let drip: DripReceiver;
let healthy: WebhookReceiver;
let env: Record<string, string>;

beforeAll(async () => {
  // Its clock never moves: it sends its headers and one byte, then nothing more.
  drip = await startDripReceiver({ clock: new ManualClock(START), everyMs: 5_000 });
  healthy = await startWebhookReceiver();
  ({ sim, env } = await startSimulatedApi({
    seed: 11,
    start: START,
    rules: `rules:
  - name: transco-constraints
    notices: { pipelines: [transco], types: [constraint] }
    notify:
      - webhook: ${drip.url}/hook/T0KEN
      - webhook: ${healthy.url}/hook
`,
  }));
  env = { ...env, PIPEWATCH_HTTP_PORT: '0', LOG_LEVEL: 'info' };
});
afterAll(async () => {
  await Promise.all([sim.close(), drip.close(), healthy.close()]);
});

describe('a stuck delivery target', () => {
  it('turns /healthz 503, shows in /metrics and status, and stops cleanly', async () => {
    const baseline = await cli(['run', '--once'], env, { clock: new InstantClock(START) });
    expect(baseline.code, baseline.stderr).toBe(0);
    const notice = sim.control.addNotice({
      pipeline_slug: 'transco',
      type: 'Capacity Constraint',
      subject: 'Capacity Constraint - Station 165',
      category: 'Critical',
      status: 'Initiate',
    });
    const clock = new ManualClock(new Date(START.getTime() + MINUTE));
    const stop = new AbortController();
    const running = startCli(['run'], env, { clock, signal: stop.signal });
    await until(() => /pipewatch running/.test(running.stderr.text), running);
    const url = /"http":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(running.stderr.text)![1]!;
    // The healthy webhook has the notice while the dripping one is still answering.
    await until(() => {
      clock.advance(1_000);
      return healthy.received.length === 1 && drip.open === 1;
    }, running);
    expect(JSON.parse(healthy.received[0]!.body).notice.id).toBe(notice.id);
    const decided = (() => {
      const store = Store.openReadonly(env.PIPEWATCH_DATA_DIR!);
      const at = store.db
        .prepare<[string], string>('SELECT created_at FROM outbox WHERE target = ?')
        .pluck()
        .get(`webhook:${drip.url}/hook/T0KEN`)!;
      store.close();
      return Date.parse(at);
    })();

    const health = async () => {
      const res = await fetch(`${url}/healthz`);
      return { status: res.status, body: (await res.json()) as { reasons: string[] } };
    };
    expect((await health()).status).toBe(200);
    clock.set(new Date(decided + 10 * MINUTE + 30_000));
    const late = await health();
    expect(late.status, JSON.stringify(late.body)).toBe(503);
    expect(late.body.reasons).toEqual([
      expect.stringMatching(
        /^delivery stuck: 1 webhook target with an alert undelivered for 10m3\ds \(more than 10m\)$/,
      ),
    ]);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/^pipewatch_delivery_stuck_targets\{channel="webhook"\} 1$/m);
    expect(metrics).toMatch(
      /^pipewatch_delivery_oldest_pending_age_seconds\{channel="webhook"\} 630$/m,
    );

    const status = await cli(['status'], env, { clock });
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(
      new RegExp(
        `^delivery stuck: 1 target with an alert undelivered for more than 10m\\n  webhook:${drip.url.replaceAll('.', '\\.')}/…: oldest undelivered alert 10m30s old \\(due \\S+Z\\), 1 pending, 1 in flight$`,
        'm',
      ),
    );
    const json = await cli(['status', '--json'], env, { clock });
    const report = JSON.parse(json.stdout) as {
      healthy: boolean;
      delivery: { stuck_after_seconds: number; stuck: Array<Record<string, unknown>> };
    };
    expect(report.healthy).toBe(false);
    expect(report.delivery).toEqual({
      stuck_after_seconds: 600,
      stuck: [
        {
          target: `webhook:${drip.url}/…`,
          kind: 'webhook',
          pending: 1,
          in_flight: 1,
          oldest_pending_at: expect.stringMatching(/Z$/),
          oldest_pending_age_seconds: 630,
          stuck: true,
          last_error: null,
        },
      ],
    });
    expect(status.stdout + json.stdout + JSON.stringify(late.body) + metrics).not.toContain(
      'T0KEN',
    );

    stop.abort();
    const result = await running.done;
    expect(result.code, result.stderr).toBe(0);
    await until(() => drip.open === 0, running);
    const store = Store.openReadonly(env.PIPEWATCH_DATA_DIR!);
    const claimed = store.db
      .prepare("SELECT count(*) FROM outbox WHERE claimed_at IS NOT NULL OR status = 'dead'")
      .pluck()
      .get();
    store.close();
    expect(claimed).toBe(0);
  });
});
