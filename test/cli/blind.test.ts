/**
 * pipewatch says when it is blind, as an operator meets it through `pipewatch run` on a
 * ManualClock, against the simulator: a feed the API stops answering (a fault) or that
 * a wrong key shuts out is an operations alert once it has gone more than three
 * intervals without a success, and another at its first success after, each once
 * however long it lasts and however often the daemon restarts; a refused key is tried
 * again every interval. Alerts that die at a target, and that target taking alerts
 * again, are told the same way, but never through the operations target about itself.
 * The heartbeat receiver (a loopback server) hears `<url>` after each good notices poll
 * or `run --once`, `<url>/fail` after a failed one; a bad URL stops start-up.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningHttpServer } from '../../src/http/server.js';
import { Store } from '../../src/store/index.js';
import { type SimulatedApi, startSimulatedApi } from '../fakes/simulated-api.js';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook.js';
import { InstantClock, ManualClock } from '../support/clock.js';
import { serveRoutes } from '../support/http-server.js';
import { type CliRun, cli, type RunningCli, startCli, until } from './run-cli.js';

const START = new Date('2026-11-20T15:00:00Z');
const MINUTE = 60_000;
const WRONG_KEY = 'S3KR1T-wrong-key';

let beat: RunningHttpServer;
/** Paths the heartbeat receiver was asked for, in order. */
const pings: string[] = [];

beforeAll(async () => {
  beat = await serveRoutes([
    {
      method: 'GET',
      path: '/ping/',
      prefix: true,
      handle: async (req: IncomingMessage, res: ServerResponse) => {
        pings.push(req.url ?? '');
        res.writeHead(200).end('OK');
      },
    },
  ]);
});
afterAll(async () => {
  await beat.close();
});

/** A daemon running in-process on a clock of its own. */
interface Daemon {
  clock: ManualClock;
  running: RunningCli;
  stop(): Promise<CliRun>;
}

/** The daemons started, each stopped after its test whatever happened. */
const started: Daemon[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((d) => d.stop()));
});

function startDaemon(env: Record<string, string>, at: Date): Daemon {
  const clock = new ManualClock(at);
  const controller = new AbortController();
  const running = startCli(
    ['run'],
    { ...env, PIPEWATCH_HTTP_PORT: '0' },
    {
      clock,
      signal: controller.signal,
    },
  );
  const d: Daemon = {
    clock,
    running,
    stop: async () => {
      controller.abort();
      return running.done;
    },
  };
  started.push(d);
  return d;
}

/**
 * What waits on the daemon's clock when it has nothing in hand: the six feeds
 * (pipelines, catalog, notices, capacity, retention, alerts) and the dispatcher.
 */
const QUIET = 7;

/**
 * Moves the daemon's time on two seconds at a time, each time everything it does waits
 * on its clock (no request in flight), until `done()` holds: the time an answer takes in
 * real time never passes as the daemon's.
 */
function advanceUntil(d: Daemon, done: () => boolean): Promise<void> {
  return until(() => {
    if (done()) return true;
    if (d.clock.pending >= QUIET) d.clock.advance(2_000);
    return false;
  }, d.running);
}

/** Moves the daemon's time on by `ms`, letting it work as it goes. */
function advanceBy(d: Daemon, ms: number): Promise<void> {
  const end = d.clock.now().getTime() + ms;
  return advanceUntil(d, () => d.clock.now().getTime() >= end);
}

interface OpsBody {
  operations: Record<string, string | null> & { event: string; summary: string };
}

/** The operations alerts a receiver got, as `event feed-or-target`. */
function told(ops: WebhookReceiver): string[] {
  return bodies(ops).map(
    (b) => `${b.operations.event} ${b.operations.feed ?? b.operations.target}`,
  );
}

function bodies(ops: WebhookReceiver): OpsBody[] {
  return ops.received.map((r) => JSON.parse(r.body) as OpsBody);
}

function bodyOf(ops: WebhookReceiver, event: string): OpsBody['operations'] {
  return bodies(ops).find((b) => b.operations.event === event)!.operations;
}

const CONSOLE_RULE = `rules:
  - name: transco-constraints
    notices: { pipelines: [transco], types: [constraint] }
    notify:
      - console: true
`;

async function simulated(rules = CONSOLE_RULE): Promise<SimulatedApi> {
  return startSimulatedApi({ seed: 41, start: START, rules });
}

function addConstraint(api: SimulatedApi, subject: string) {
  return api.sim.control.addNotice({
    pipeline_slug: 'transco',
    type: 'Capacity Constraint',
    category: 'Critical',
    status: 'Initiate',
    subject,
  });
}

describe('a feed pipewatch cannot see', () => {
  it('the API down: told once past three intervals, once at its first success; the heartbeat follows', async () => {
    const api = await simulated();
    const ops = await startWebhookReceiver();
    const env = {
      ...api.env,
      PIPEWATCH_NOTICES_INTERVAL: '60s',
      PIPEWATCH_OPS_TARGET: `webhook:${ops.url}/ops`,
      PIPEWATCH_HEARTBEAT_URL: `${beat.url}/ping/down-check`,
      LOG_LEVEL: 'info',
    };
    try {
      const baseline = await cli(['run', '--once'], env, { clock: new InstantClock(START) });
      expect(baseline.code, baseline.stderr).toBe(0);
      api.sim.control.injectFault({ kind: '503', path: '/ip/notices', count: 1_000_000 });
      const d = startDaemon(env, new Date(START.getTime() + MINUTE));
      await advanceUntil(d, () => told(ops).includes('feed-stale notices'));
      const stale = bodyOf(ops, 'feed-stale');
      // Not before three intervals, and at the next look after (the alerts feed's, 15 s).
      expect(Date.parse(stale.seen_at!) - START.getTime()).toBeGreaterThan(3 * MINUTE);
      expect(Date.parse(stale.seen_at!) - START.getTime()).toBeLessThan(3 * MINUTE + 20_000);
      expect(stale).toMatchObject({
        feed: 'notices',
        last_success_at: '2026-11-20T15:00:00Z',
        last_error_code: 'UPSTREAM_UNAVAILABLE',
      });
      expect(stale.summary).toMatch(
        /^The notices feed has had no success for 3 min \d+ s \(over 3 of its 1 min intervals\): new notices are not seen and do not alert\. The API is unavailable\.$/,
      );
      const failing = pings.filter((p) => p.startsWith('/ping/down-check'));
      expect(failing[0]).toBe('/ping/down-check');
      expect(failing.length).toBeGreaterThanOrEqual(2);
      expect(new Set(failing.slice(1))).toEqual(new Set(['/ping/down-check/fail']));

      api.sim.control.clearFaults();
      const cleared = d.clock.now().getTime();
      await advanceUntil(d, () => told(ops).includes('feed-recovered notices'));
      const recovered = bodyOf(ops, 'feed-recovered');
      expect(Date.parse(recovered.seen_at!) - cleared).toBeLessThanOrEqual(MINUTE);
      expect(recovered).toMatchObject({ feed: 'notices', stale_at: stale.seen_at });
      await advanceUntil(d, () => pings.at(-1) === '/ping/down-check');
      await advanceBy(d, 10 * MINUTE);
      expect(told(ops).filter((t) => t.endsWith(' notices'))).toEqual([
        'feed-stale notices',
        'feed-recovered notices',
      ]);
      const run = await d.stop();
      expect(run.code, run.stderr).toBe(0);
    } finally {
      await Promise.all([api.sim.close(), ops.close()]);
    }
  });

  it('a wrong key: tried every interval, told once across restarts, recovery told once', async () => {
    const api = await simulated();
    const ops = await startWebhookReceiver();
    const env = {
      ...api.env,
      PIPEWATCH_NOTICES_INTERVAL: '60s',
      PIPEWATCH_OPS_TARGET: `webhook:${ops.url}/ops`,
      LOG_LEVEL: 'info',
    };
    const wrong = { ...env, PIPEWATCH_API_KEY: WRONG_KEY };
    try {
      // A fresh daemon whose key the API refuses from the start.
      const first = startDaemon(wrong, START);
      await advanceUntil(first, () => told(ops).includes('feed-stale notices'));
      const stale = bodyOf(ops, 'feed-stale');
      expect(stale.summary).toMatch(
        /^The notices feed has had no success since pipewatch started 3 min \d+ s ago \(over 3 of its 1 min intervals\): new notices are not seen and do not alert\. The API refuses the credentials: check PIPEWATCH_API_USER and PIPEWATCH_API_KEY\.$/,
      );
      expect(stale).toMatchObject({ last_success_at: null, last_error_code: 'UPSTREAM_AUTH' });
      await advanceBy(first, 10 * MINUTE);
      // Tried again every interval, not once an hour: some 13 tries in 13 minutes.
      const store = Store.openReadonly(api.dataDir);
      const state = store.syncState.get('notices')!;
      store.close();
      expect(state.consecutive_failures).toBeGreaterThanOrEqual(12);
      expect(first.clock.now().getTime() - Date.parse(state.last_attempt_at!)).toBeLessThanOrEqual(
        MINUTE,
      );
      const firstRun = await first.stop();
      expect(firstRun.stderr).toMatch(/"level":50[^\n]*feed has had no success/);

      // Restarted, still refused: not told again.
      const second = startDaemon(wrong, new Date(START.getTime() + 30 * MINUTE));
      await advanceBy(second, 10 * MINUTE);
      await second.stop();
      expect(told(ops).filter((t) => t === 'feed-stale notices')).toHaveLength(1);

      // The key put right: its first poll is the recovery, told once.
      const third = startDaemon(env, new Date(START.getTime() + 60 * MINUTE));
      await advanceUntil(third, () => told(ops).includes('feed-recovered notices'));
      await advanceBy(third, 5 * MINUTE);
      await third.stop();
      expect(told(ops).filter((t) => t.endsWith(' notices'))).toEqual([
        'feed-stale notices',
        'feed-recovered notices',
      ]);
      const recovered = bodyOf(ops, 'feed-recovered');
      // At the restarted daemon's first poll.
      expect(recovered).toMatchObject({
        last_success_at: null,
        stale_at: stale.seen_at,
        seen_at: '2026-11-20T16:00:00Z',
      });
      expect(recovered.summary).toMatch(
        /^The notices feed works again, 56 min \d+ s after it was found stale\.$/,
      );
      for (const r of ops.received) expect(r.body).not.toContain(WRONG_KEY);
    } finally {
      await Promise.all([api.sim.close(), ops.close()]);
    }
  });
});

describe('a target alerts do not reach', () => {
  it('is told when a delivery to it dies and when one gets through again', async () => {
    const target = await startWebhookReceiver();
    const ops = await startWebhookReceiver();
    const api = await simulated(`rules:
  - name: transco-constraints
    notices: { pipelines: [transco], types: [constraint] }
    notify:
      - webhook: ${target.url}/hook/T0KEN
`);
    const env = { ...api.env, PIPEWATCH_OPS_TARGET: `webhook:${ops.url}/ops`, LOG_LEVEL: 'info' };
    try {
      const baseline = await cli(['run', '--once'], env, { clock: new InstantClock(START) });
      expect(baseline.code, baseline.stderr).toBe(0);
      target.fail(404);
      addConstraint(api, 'Capacity Constraint - Station 165');
      const d = startDaemon(env, new Date(START.getTime() + MINUTE));
      await advanceUntil(d, () => told(ops).length === 1);
      const host = new URL(target.url).host;
      expect(told(ops)).toEqual([`target-dead webhook:http://${host}/…`]);
      expect(bodyOf(ops, 'target-dead')).toMatchObject({
        how: 'dead',
        code: 'NOT_FOUND',
        summary: `Alerts to webhook:http://${host}/… are not getting through: an alert to it failed for good. \`pipewatch status\` lists them.`,
      });
      expect(ops.received[0]!.body).not.toContain('T0KEN');

      addConstraint(api, 'Capacity Constraint - Station 180');
      await advanceUntil(d, () => target.received.length === 1 && told(ops).length === 2);
      await advanceBy(d, 15 * MINUTE);
      expect(told(ops)).toEqual([
        `target-dead webhook:http://${host}/…`,
        `target-recovered webhook:http://${host}/…`,
      ]);
      await d.stop();
    } finally {
      await Promise.all([api.sim.close(), ops.close(), target.close()]);
    }
  });

  it('being the operations target, is logged loudly rather than sent to itself, in no loop', async () => {
    const target = await startWebhookReceiver();
    const ops = await startWebhookReceiver();
    const api = await simulated(`rules:
  - name: transco-constraints
    notices: { pipelines: [transco], types: [constraint] }
    notify:
      - webhook: ${target.url}/hook
`);
    const env = { ...api.env, PIPEWATCH_OPS_TARGET: `webhook:${ops.url}/ops`, LOG_LEVEL: 'info' };
    try {
      await cli(['run', '--once'], env, { clock: new InstantClock(START) });
      target.fail(404);
      ops.fail(404);
      addConstraint(api, 'Capacity Constraint - Station 165');
      const d = startDaemon(env, new Date(START.getTime() + MINUTE));
      await advanceUntil(d, () => /itself is failing/.test(d.running.stderr.text));
      await advanceBy(d, 15 * MINUTE);
      // The one alert that the target died, refused; nothing about the refusal after it.
      expect(ops.requests).toBe(1);
      expect(told(ops)).toEqual([]);
      const line = d.running.stderr.text.split('\n').find((l) => l.includes('itself is failing'))!;
      expect(JSON.parse(line)).toMatchObject({ level: 50 });
      expect(JSON.parse(line).msg).toMatch(
        /^PIPEWATCH_OPS_TARGET webhook:http:\/\/127\.0\.0\.1:\d+\/… itself is failing, so nobody hears of this or of any other outage through it until it works again: Alerts to webhook:http:\/\/127\.0\.0\.1:\d+\/… are not getting through/,
      );

      // Both work again: the target's recovery goes to the operations target, whose own follows.
      addConstraint(api, 'Capacity Constraint - Station 180');
      const host = (url: string) => new URL(url).host;
      await advanceUntil(d, () => told(ops).length === 2);
      await advanceBy(d, 5 * MINUTE);
      expect(told(ops)).toEqual([
        `target-recovered webhook:http://${host(target.url)}/…`,
        `target-recovered webhook:http://${host(ops.url)}/…`,
      ]);
      await d.stop();
    } finally {
      await Promise.all([api.sim.close(), ops.close(), target.close()]);
    }
  });
});

describe('the heartbeat of run --once', () => {
  it('is <url> after a good run and <url>/fail after a failed one', async () => {
    const api = await simulated();
    const env = { ...api.env, PIPEWATCH_HEARTBEAT_URL: `${beat.url}/ping/once-check` };
    try {
      const good = await cli(['run', '--once'], env, { clock: new InstantClock(START) });
      expect(good.code).toBe(0);
      const bad = await cli(['run', '--once'], { ...env, PIPEWATCH_API_KEY: WRONG_KEY });
      expect(bad.code).toBe(1);
      expect(pings.filter((p) => p.startsWith('/ping/once-check'))).toEqual([
        '/ping/once-check',
        '/ping/once-check/fail',
      ]);
    } finally {
      await api.sim.close();
    }
  });

  it('a PIPEWATCH_HEARTBEAT_URL that is not a URL stops start-up with one line', async () => {
    const api = await simulated();
    try {
      for (const argv of [['run'], ['run', '--once']]) {
        const run = await cli(argv, {
          ...api.env,
          PIPEWATCH_HEARTBEAT_URL: 'hc-ping.com/SECRET-uuid',
        });
        expect(run.code).toBe(2);
        expect(run.stderr.trimEnd().split('\n')).toEqual([
          'pipewatch: PIPEWATCH_HEARTBEAT_URL must be an http:// or https:// URL; got (value hidden) (example: PIPEWATCH_HEARTBEAT_URL=https://hc-ping.com/your-check-uuid)',
        ]);
      }
    } finally {
      await api.sim.close();
    }
  });
});
