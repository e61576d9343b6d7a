/**
 * One receiver that never finishes answering holds back only itself: the dispatcher
 * sends to a webhook that drips a byte every 5 seconds, to a healthy webhook and to
 * Slack. The others are delivered while the drip is in flight; the drip's attempt ends
 * at the delivery deadline as a temporary failure; once its alert has waited longer than
 * the stuck threshold, `/healthz` answers 503, `/metrics` shows it by channel kind and
 * `pipewatch status` lists the target. Outbox time, deadlines and the drip all run on one
 * ManualClock: nothing waits for real time.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSlackChannels } from '../../src/channels/slack/index.js';
import type { AnyChannel, ChannelSet } from '../../src/channels/types.js';
import { createWebhookChannel } from '../../src/channels/webhook/send.js';
import { deliveryBacklog, judgeBacklog } from '../../src/delivery/backlog.js';
import { Dispatcher } from '../../src/delivery/dispatcher.js';
import { type Target, targetKey } from '../../src/domain/targets.js';
import { withDelivery } from '../../src/http/health.js';
import { Metrics } from '../../src/http/metrics.js';
import { type RunningHttpServer, startHttpServer } from '../../src/http/server.js';
import { assessHealth } from '../../src/ingest/health.js';
import { systemClock } from '../../src/lib/clock.js';
import { silentLogger } from '../../src/lib/logger.js';
import { toUtcIso } from '../../src/lib/time.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import { cli } from '../cli/run-cli.js';
import { noticeAlert } from '../fakes/alerts.js';
import { type DripReceiver, startDripReceiver } from '../fakes/drip.js';
import { type SlackFake, startSlackFake } from '../fakes/slack.js';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook.js';
import { ManualClock } from '../support/clock.js';
import { useTempStore } from '../support/temp-store.js';

const T0 = Date.parse('2026-11-20T15:00:00Z');
const MINUTE = 60_000;
const at = (ms: number) => toUtcIso(new Date(T0 + ms));

/** Yields to the event loop until `done()` holds; gives up after 10 s of real time. */
async function until(done: () => boolean, what: string): Promise<void> {
  const limit = performance.now() + 10_000;
  while (!done()) {
    if (performance.now() > limit) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('a webhook receiver that drips its answer', () => {
  const temp = useTempStore('pipewatch-stuck-');
  const open: Array<{ close(): Promise<unknown> | unknown }> = [];
  afterEach(async () => {
    for (const o of open.reverse()) await o.close();
    open.length = 0;
  });

  it('holds back only itself, fails at the deadline, and shows as stuck after the threshold', async () => {
    const { store, dir } = temp;
    const clock = new ManualClock(T0);
    const drip: DripReceiver = await startDripReceiver({ clock, everyMs: 5_000 });
    const healthy: WebhookReceiver = await startWebhookReceiver();
    const slackFake: SlackFake = await startSlackFake();
    const webhook = createWebhookChannel(
      { pace: { perUrl: 1000, perHost: 1000 } },
      { clock, logger: silentLogger },
    );
    const slack = createSlackChannels(
      { token: slackFake.token, apiUrl: slackFake.url, perChannel: { perSecond: 50, burst: 5 } },
      { clock: systemClock, logger: silentLogger },
    );
    open.push(drip, healthy, slackFake);
    open.push({ close: () => webhook.close?.() }, { close: () => slack.slack.close?.() });
    const byKind: Partial<Record<Target['kind'], AnyChannel>> = { webhook, slack: slack.slack };
    const channels: ChannelSet = { for: (kind) => byKind[kind] as never };
    const metrics = new Metrics({ processMetrics: false });
    const dispatcher = new Dispatcher(
      {
        store: asyncStoreOf(store),
        channels,
        clock,
        deadlineClock: clock,
        logger: silentLogger,
        metrics,
      },
      { digestWindowMs: 0, maxAgeMs: 6 * 60 * MINUTE, timeoutMs: 30_000, random: () => 0.5 },
    );
    // `/healthz` and `/metrics` read a backlog already read; the outbox's is read here.
    const backlog = async () => judgeBacklog(store.outbox.backlog(), clock.now(), 10 * MINUTE);
    metrics.watchDelivery(backlog);
    const server: RunningHttpServer = await startHttpServer({
      port: 0,
      host: '127.0.0.1',
      metrics,
      logger: silentLogger,
      health: async () => withDelivery(assessHealth([], [], clock.now()), await backlog()),
      status: async () => ({}),
      publicStatus: async () => ({}),
    });
    open.push(server);

    const dripping: Target = { kind: 'webhook', url: `${drip.url}/hook/T0KEN` };
    const fine: Target = { kind: 'webhook', url: `${healthy.url}/hook` };
    const gas: Target = { kind: 'slack', channel: '#gas' };
    const enqueue = (id: number, target: Target) => {
      const alert = noticeAlert({ id, subject: `Notice ${id}` }, `rule|notice:${id}:v1`);
      const subject = `notice:${id}:v1`;
      store.outbox.enqueue(subject, 'rule', target, alert.payload, toUtcIso(clock.now()));
      return store.db
        .prepare<[string, string], { id: number }>(
          'SELECT id FROM outbox WHERE subject = ? AND target = ?',
        )
        .get(subject, targetKey(target))!.id;
    };
    const row = (id: number) =>
      store.db
        .prepare<[number], Record<string, unknown>>(
          'SELECT status, attempts, claimed_at, next_attempt_at, last_error FROM outbox WHERE id = ?',
        )
        .get(id);

    const stuck = enqueue(1, dripping);
    enqueue(2, fine);
    enqueue(3, gas);
    const stop = new AbortController();
    const running = dispatcher.run(stop.signal);
    open.push({
      close: () => {
        stop.abort();
        return running;
      },
    });

    // The healthy targets are delivered while the drip's first answer is still coming.
    await until(
      () => healthy.received.length === 1 && slackFake.posts.length === 1 && drip.bytes === 1,
      'the healthy targets',
    );
    expect(drip.open).toBe(1);
    expect(row(stuck)).toMatchObject({ status: 'pending', claimed_at: at(0) });

    // Ten seconds on, a new alert for the healthy webhook goes out at once; one for the
    // dripping target waits behind the alert in flight there.
    clock.advance(10_000);
    await until(() => drip.bytes === 2, 'the drip to go on');
    enqueue(4, fine);
    const behind = enqueue(5, dripping);
    dispatcher.wake();
    await until(() => healthy.received.length === 2, 'the later alert');
    expect(drip.open).toBe(1);
    expect(drip.bodies).toHaveLength(1);
    expect(row(behind)).toMatchObject({ claimed_at: null, attempts: 0 });

    // The drip satisfies every per-phase timeout, up to the deadline of the attempt.
    for (const t of [15, 20, 25]) {
      const bytes = drip.bytes;
      clock.set(at(t * 1000));
      await until(() => drip.bytes === bytes + 1, `the drip at ${t}s`);
    }
    expect(row(stuck)).toMatchObject({ claimed_at: at(0), attempts: 0 });
    clock.set(at(30_000));
    await until(() => row(stuck)?.last_error !== null, 'the attempt to end');
    expect(row(stuck)).toMatchObject({
      status: 'pending',
      attempts: 1,
      claimed_at: null,
      last_error: `webhook: no complete answer within 30s (${drip.url})`,
      next_attempt_at: at(32_500),
    });
    // The connection is dropped, and the alert behind still waits for the retry.
    await until(() => drip.abandoned === 1 && drip.open === 0, 'the connection to close');
    expect(row(behind)).toMatchObject({ claimed_at: null, attempts: 0 });
    expect(drip.bodies).toHaveLength(1);

    const health = async () => {
      const res = await fetch(`${server.url}/healthz`);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect((await health()).status).toBe(200);
    // Just before the threshold the retry is in flight again and all is still well.
    clock.set(at(10 * MINUTE - 1_000));
    await until(() => drip.open === 1, 'the retry');
    expect(await health()).toMatchObject({ status: 200, body: { status: 'ok', reasons: [] } });
    clock.set(at(10 * MINUTE + 1_000));
    const late = await health();
    expect(late.status).toBe(503);
    expect(late.body).toMatchObject({
      status: 'unhealthy',
      reasons: [
        'delivery stuck: 1 webhook target with an alert undelivered for 10m1s (more than 10m)',
      ],
      delivery: {
        healthy: false,
        stuck_after_seconds: 600,
        stuck: [{ channel: 'webhook', targets: 1, oldest_pending_age_seconds: 601 }],
      },
    });
    // No address or token in what anyone polling the daemon can read.
    expect(JSON.stringify(late.body)).not.toMatch(/127\.0\.0\.1|T0KEN/);
    // Read through the asynchronous store, the backlog is the same.
    const read = await deliveryBacklog(asyncStoreOf(store), clock.now(), 10 * MINUTE);
    expect(read).toEqual(await backlog());
    expect(read.targets.filter((t) => t.stuck)).toHaveLength(1);

    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toMatch(
      /^pipewatch_delivery_oldest_pending_age_seconds\{channel="webhook"\} 601$/m,
    );
    expect(text).toMatch(/^pipewatch_delivery_oldest_pending_age_seconds\{channel="slack"\} 0$/m);
    expect(text).toMatch(/^pipewatch_delivery_stuck_targets\{channel="webhook"\} 1$/m);
    expect(text).toMatch(/^pipewatch_delivery_stuck_targets\{channel="email"\} 0$/m);
    expect(text).not.toMatch(/127\.0\.0\.1|T0KEN/);

    // `status` lists the stuck target, and exits 1 though every feed is healthy.
    for (const feed of ['pipelines', 'catalog', 'notices', 'capacity'])
      store.syncState.succeeded(feed, at(10 * MINUTE));
    const env = {
      PIPEWATCH_DATA_DIR: dir,
      PIPEWATCH_RULES_DIR: mkdtempSync(join(tmpdir(), 'pipewatch-no-rules-')),
    };
    const status = await cli(['status'], env, { clock });
    expect(status.stdout).toContain(
      'delivery stuck: 1 target with an alert undelivered for more than 10m\n' +
        `  webhook:${drip.url}/…: oldest undelivered alert 10m1s old (due ${at(0)}), 2 pending, 2 in flight; last error: webhook: no complete answer within 30s (${drip.url})\n`,
    );
    expect(status.stdout).not.toContain('T0KEN');
    expect(status.code).toBe(1);

    // Stopping ends the attempt in flight and leaves nothing claimed.
    stop.abort();
    await running;
    expect(
      store.db.prepare('SELECT count(*) FROM outbox WHERE claimed_at IS NOT NULL').pluck().get(),
    ).toBe(0);
    expect(store.outbox.counts()).toEqual({ pending: 2, sent: 3, dead: 0 });
  });
});
