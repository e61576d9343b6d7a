/**
 * Acceptance: `pipewatch run` as a process of its own, on the real clock, with the
 * simulator as the API and the local fakes as the platforms (Slack, Discord, a real SMTP
 * server with STARTTLS, a webhook receiver checking signatures), and one rule file for
 * the three stories pipewatch exists for plus a Discord channel and webhooks. The test
 * feeds the simulator through its control operations, starts the daemon, and asserts what
 * each platform received, what `/healthz` and `/metrics` say, that SIGTERM ends it with
 * status 0 and an outbox with nothing lost, and that a restart on the same data sends
 * only what is new.
 *
 * Every feed runs once when the daemon starts and then not for a minute or more (the
 * shortest interval the configuration allows), but the reminders', which runs every 15 s,
 * so each phase sets the simulator up first and then starts pipewatch to see it: a `run --once` stores the baseline, as an
 * operator's first run does, a daemon sees the stories, and a second daemon on the same
 * data the recovery. Every wait ends when the platforms have what it waits for and the
 * daemon has logged it sent, within a bound; nothing sleeps. The stories run on each
 * store: SQLite, and a PostgreSQL database (`PIPEWATCH_DATABASE_URL`), where the daemon
 * leads alone.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { subjectAfter } from '../../src/channels/text.js';
import {
  addDays,
  type Cycle,
  cyclePostedAt,
  gasDayOf,
  NOMINATION_CYCLES,
} from '../../src/domain/gas-day.js';
import { formatDateTime } from '../../src/simulator/sim-time.js';
import { STORY_LOCATION } from '../../src/simulator/storyline.js';
import { openStore, type StoreKind } from '../../src/store/open.js';
import {
  type DaemonProcess,
  type LogLine,
  metricSample,
  STEP_HANG_MS,
  STORY_HANG_MS,
  startDaemon,
} from '../fakes/daemon-process.js';
import { FAKE_CHANNEL } from '../fakes/discord.js';
import {
  DISCORD_TOKEN,
  type PlatformCounts,
  type Platforms,
  startPlatforms,
  totalOf,
} from '../fakes/platforms.js';
import { type SimulatedApi, startSimulatedApi } from '../fakes/simulated-api.js';
import { createTestDatabase, dropTestDatabase } from '../support/postgres.js';
import { cli } from './run-cli.js';

const MINUTE = 60_000;
/**
 * How long one phase's deliveries may take to arrive, the daemon's start included: a
 * bound for a hang, since a start is seconds of CPU and many times that on a busy machine.
 */
const WITHIN_MS = STEP_HANG_MS;
const OPC = 855_000;
const LOW_OAC = 31_250;
const RECOVERED_OAC = 142_500;

let api: SimulatedApi;
let platforms: Platforms;
let env: Record<string, string>;
/** The PostgreSQL store's URL, when the stories run on one. */
let databaseUrl: string | undefined;
const running: DaemonProcess[] = [];

function rules(hooks: string): string {
  return `
rules:
  - name: transco-constraints
    notices:
      pipelines: [transco]
      types: [constraint]
    notify:
      - slack: "#gas"
      - discord: "${FAKE_CHANNEL}"
      - webhook: ${hooks}/constraints
  - name: response-reminders
    deadlines:
      before: [2h, 30m]
      pipelines: [texas-eastern]
    notify:
      - slack_dm: alice@example.com
  - name: station-85-low-oac
    capacity:
      pipelines: [transco]
      locations: ["${STORY_LOCATION.name}"]
      oac_below: 50000
      clear_above: 60000
    notify:
      - email: [scheduling@example.com]
      - webhook: ${hooks}/capacity
`;
}

/**
 * The simulator, the platforms and the environment of one run of the stories, on `kind`
 * of store: SQLite in the simulated API's data directory, or a PostgreSQL database of
 * its own on the test server.
 */
function useStoryWorld(kind: StoreKind): void {
  let database: string | undefined;
  beforeAll(async () => {
    platforms = await startPlatforms();
    // The daemon runs on the real clock: the simulator starts at the same time.
    const start = new Date(Math.floor(Date.now() / 1000) * 1000);
    api = await startSimulatedApi({ seed: 41, start, rules: rules(platforms.hooks.url) });
    env = { ...api.env, ...platforms.env };
    databaseUrl = undefined;
    lastStoryCycle = undefined;
    if (kind === 'postgres') {
      const made = await createTestDatabase();
      database = made.name;
      databaseUrl = made.url;
      env.PIPEWATCH_DATABASE_URL = made.url;
    }
  }, STEP_HANG_MS);
  afterEach(() => {
    for (const daemon of running.splice(0)) daemon.kill();
  });
  afterAll(async () => {
    await Promise.all([api.sim.close(), platforms.close()]);
    if (database) await dropTestDatabase(database);
  });
}

/** Sets OAC at Station 85 on the cycle the API serves as `latest`. */
function stationOac(oac: number): void {
  const { gasDay, cycle } = nextStoryCycle();
  api.sim.control.publishCycle({
    pipeline_slug: STORY_LOCATION.slug,
    cycle,
    gas_day: gasDay,
    locations: [{ identifier: STORY_LOCATION.identifier, opc: OPC, tsq: OPC - oac, oac }],
  });
}

type CycleRef = { gasDay: string; cycle: Cycle };
let lastStoryCycle: CycleRef | undefined;
const postedAt = (r: CycleRef) => cyclePostedAt(r.gasDay, r.cycle).getTime();

/**
 * Where Station 85's next figure is posted, at once: the cycle due to be posted after the
 * newest one out. "After" is by posting time, the order capacity rules follow and the
 * simulator's `latest` serves, not by gas day: between 17:00 and 22:00 Central,
 * tomorrow's timely and evening cycles come out before today's ID2 and ID3, so the cycle
 * after today's ID3 is tomorrow's ID1, not its timely one (which a rule would take as
 * older than ID3 and ignore). The test runs at whatever hour it is started.
 */
function nextStoryCycle(): CycleRef {
  const now = api.sim.now().getTime();
  const today = gasDayOf(new Date(now));
  const byPosting = [-1, 0, 1, 2, 3]
    .flatMap((d) => NOMINATION_CYCLES.map((cycle) => ({ gasDay: addDays(today, d), cycle })))
    .sort((a, b) => postedAt(a) - postedAt(b));
  const scheduled = byPosting.filter((r) => postedAt(r) <= now).at(-1)!;
  const newest =
    lastStoryCycle && postedAt(lastStoryCycle) > postedAt(scheduled) ? lastStoryCycle : scheduled;
  lastStoryCycle = byPosting.find((r) => postedAt(r) > postedAt(newest))!;
  return lastStoryCycle;
}

function daemon(): DaemonProcess {
  const started = startDaemon(env);
  running.push(started);
  return started;
}

/**
 * The daemon's `sent …` lines: one per alert a platform confirmed. An error it logged
 * (a refused delivery, a failed feed) ends the wait at once, with the line.
 */
function sentLines(d: DaemonProcess): LogLine[] {
  const error = d.logs().find((l) => l.level >= 50);
  if (error) throw new Error(`the daemon logged an error: ${error.msg}`);
  return d.logs().filter((l) => l.msg.startsWith('sent '));
}

/**
 * Waits until the platforms hold `expected` and the daemon logged `sent` for each message
 * since `before`. More than that (a platform holding more, or the daemon saying it sent
 * more than arrived, as when Discord drops a repeated nonce) ends the wait at once.
 */
function deliveries(
  d: DaemonProcess,
  what: string,
  before: PlatformCounts,
  expected: PlatformCounts,
) {
  return d.until(
    what,
    () => {
      const sent = sentLines(d).length;
      const now = platforms.received();
      const keys = Object.keys(expected) as Array<keyof PlatformCounts>;
      const arrived = totalOf(now) - totalOf(before);
      if (keys.some((k) => now[k] > expected[k]) || sent > arrived)
        throw new Error(
          `more than ${JSON.stringify(expected)}: ${JSON.stringify(now)}, ${sent} sent since ${JSON.stringify(before)}`,
        );
      return keys.every((k) => now[k] === expected[k]) && sent === arrived;
    },
    WITHIN_MS,
  );
}

/** `/healthz` and `/metrics` of a running daemon, with its delivery counters by channel. */
async function scrape(d: DaemonProcess) {
  const base = await d.http;
  const health = await fetch(`${base}/healthz`);
  const metrics = await (await fetch(`${base}/metrics`)).text();
  const sent = (channel: string) =>
    metricSample(metrics, 'pipewatch_deliveries_total', { channel, result: 'sent' });
  return {
    health: { status: health.status, body: (await health.json()) as unknown },
    metrics,
    sent: {
      channel: sent('slack'),
      dm: sent('slack_dm'),
      discord: sent('discord'),
      email: sent('email'),
      webhook: sent('webhook'),
    },
  };
}

/** The outbox by status, read from the database the daemons left. */
async function outbox(): Promise<{ pending: number; sent: number; dead: number }> {
  const opened = await openStore({ dataDir: api.dataDir, databaseUrl });
  try {
    return await opened.store.outbox.counts();
  } finally {
    await opened.close();
  }
}

/** Stops a daemon with SIGTERM; it must exit 0 having logged no error. */
async function stopCleanly(d: DaemonProcess): Promise<void> {
  expect(await d.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  expect(d.logs().filter((l) => l.level >= 50)).toEqual([]);
  expect(d.logs().map((l) => l.msg)).toContain('stopping: feeds finished, closing the database');
}

for (const kind of ['sqlite', 'postgres'] as const)
  describe(`pipewatch run as a process on ${kind}, against the simulator and every platform`, {
    timeout: STORY_HANG_MS,
  }, () => {
    useStoryWorld(kind);
    it('delivers the three stories to their platforms, stops on SIGTERM with nothing lost, and sends nothing twice after a restart', async () => {
      const { slack, discord, smtp, hooks } = platforms;
      // An operator's first run stores what the API already has without alerting on it.
      stationOac(400_000);
      const baseline = await cli(['run', '--once'], env);
      expect(baseline.code, baseline.stderr).toBe(0);
      const nothing = { channel: 0, dm: 0, discord: 0, email: 0, webhook: 0 };
      expect(platforms.received()).toEqual(nothing);

      // What the rules are about arrives: a Transco constraint, a Texas Eastern flow order
      // needing a response in 90 minutes (its 2 h reminder has passed: it goes out at the
      // reminders' next run, within 15 s), and OAC at Station 85 falling below 50,000.
      const constraint = api.sim.control.addNotice({
        pipeline_slug: 'transco',
        type: 'Capacity Constraint',
        category: 'Critical',
        status: 'Initiate',
        subject: 'Capacity Constraint - Station 165 - Zone 5 deliveries',
        response_at: '',
      });
      const order = api.sim.control.addNotice({
        pipeline_slug: 'texas-eastern',
        type: 'OPERATIONAL FLOW ORDER',
        category: 'CRITICAL',
        status: 'INITIATE',
        subject: 'OPERATIONAL FLOW ORDER - IMBALANCE',
        response_at: formatDateTime(Date.now() + 90 * MINUTE),
      });
      stationOac(LOW_OAC);

      const first = daemon();
      const stories = { channel: 1, dm: 1, discord: 1, email: 1, webhook: 2 };
      await deliveries(first, 'the constraint, the reminder and the low OAC', nothing, stories);
      expect(platforms.received()).toEqual(stories);

      // The channel's post and the DM go to two targets, each in its own order.
      const inChannel = slack.posts.filter((p) => p.channel === 'C0GAS');
      expect(inChannel).toHaveLength(1);
      // Headlines say the type once: the subject after it.
      const shown = subjectAfter(constraint.type, constraint.subject);
      expect(inChannel[0]!.text).toContain(shown);
      const dms = slack.posts.filter((p) => p.channel === 'DU0ALICE');
      expect(dms).toHaveLength(1);
      expect(dms[0]!.text).toMatch(/Response due in 1 h (29|30) min/);
      expect(dms[0]!.text).toContain(order.subject);
      expect(discord.messages[0]).toMatchObject({ channel_id: FAKE_CHANNEL });
      expect(discord.messages[0]!.embeds[0]!.title).toContain(shown);
      expect(discord.calls.every((c) => c.authorization === `Bot ${DISCORD_TOKEN}`)).toBe(true);

      const low = smtp.messages[0]!;
      expect(low.envelope).toEqual({ from: 'alerts@example.com', to: ['scheduling@example.com'] });
      expect(low.parsed!.from?.value).toEqual([
        { name: 'pipewatch', address: 'alerts@example.com' },
      ]);
      expect(low.parsed!.subject).toMatch(
        /^\[Transco\] Low OAC at STATION 85 — \w+ cycle, gas day \d{4}-\d\d-\d\d$/,
      );
      expect(low.parsed!.headers.get('x-pipewatch-kind')).toBe('capacity/firing');
      expect(low.parsed!.messageId).toMatch(/^<\w+@pipewatch\.example\.com>$/);
      expect(low.parsed!.inReplyTo).toMatch(/@pipewatch\.example\.com>$/);
      expect(low.parsed!.text).toContain('31,250');
      // Every login went over TLS, after STARTTLS.
      expect(smtp.logins.length).toBeGreaterThan(0);
      expect(smtp.logins.every((l) => l.user === smtp.user && l.secure)).toBe(true);

      for (const hook of hooks.received) {
        expect(hook.signatureValid).toBe(true);
        expect(hook.headers['content-type']).toMatch(/^application\/json/);
      }
      const hookBodies = Object.fromEntries(
        hooks.received.map((h) => [h.path, JSON.parse(h.body)]),
      );
      expect(hookBodies['/constraints']).toMatchObject({
        kind: 'notice',
        state: 'new',
        rule: 'transco-constraints',
        notice: { id: constraint.id },
      });
      expect(hookBodies['/capacity']).toMatchObject({
        kind: 'capacity',
        state: 'firing',
        capacity: { locations: [{ location: 'STATION 85', oac: LOW_OAC, threshold: 50_000 }] },
      });

      // The port says the same: healthy, nothing stuck, and a delivery counted for each
      // message a platform received.
      const firstScrape = await scrape(first);
      expect(firstScrape.health).toEqual({
        status: 200,
        body: expect.objectContaining({
          status: 'ok',
          // One process leads: alone on SQLite, by the lease on PostgreSQL.
          role: 'leader',
          reasons: [],
          delivery: expect.objectContaining({ healthy: true, stuck: [] }),
        }),
      });
      expect(firstScrape.sent).toEqual(stories);
      const pending = { status: 'pending' };
      expect(metricSample(firstScrape.metrics, 'pipewatch_outbox_alerts', pending)).toBe(0);
      expect(metricSample(firstScrape.metrics, 'pipewatch_notices_total', { change: 'new' })).toBe(
        2,
      );
      expect(metricSample(firstScrape.metrics, 'pipewatch_leader', {})).toBe(1);
      // On PostgreSQL it took the lease once; on SQLite it leads without one.
      expect(metricSample(firstScrape.metrics, 'pipewatch_leader_changes_total', {})).toBe(
        kind === 'postgres' ? 1 : 0,
      );

      // SIGTERM: the daemon exits 0; every alert it decided is in the outbox as sent.
      await stopCleanly(first);
      expect(await outbox()).toEqual({ pending: 0, sent: totalOf(stories), dead: 0 });

      // A restart on the same data, Station 85 having recovered meanwhile: the recovery goes
      // out by email and webhook; nothing the first daemon sent goes out again, the
      // reminder neither, though the reminders run again at start.
      stationOac(RECOVERED_OAC);
      const second = daemon();
      const later = { ...stories, email: 2, webhook: 3 };
      await deliveries(second, 'the recovery', stories, later);
      expect(platforms.received()).toEqual(later);

      const recovered = smtp.messages[1]!;
      expect(recovered.parsed!.subject).toMatch(/^\[Transco\] OAC recovered at STATION 85 — /);
      expect(recovered.parsed!.headers.get('x-pipewatch-kind')).toBe('capacity/resolved');
      // A message of its own, in the thread of the low-capacity one.
      expect(recovered.parsed!.messageId).not.toBe(low.parsed!.messageId);
      expect(recovered.parsed!.inReplyTo).toBe(low.parsed!.inReplyTo);
      expect(hooks.received[2]).toMatchObject({ path: '/capacity', signatureValid: true });
      expect(JSON.parse(hooks.received[2]!.body)).toMatchObject({ state: 'resolved' });
      const deliveryIds = hooks.received.map((h) => h.headers['x-pipewatch-delivery']);
      expect(new Set(deliveryIds).size).toBe(3);

      const secondScrape = await scrape(second);
      expect(secondScrape.health).toMatchObject({ status: 200, body: { status: 'ok' } });
      expect(secondScrape.sent).toEqual({ channel: 0, dm: 0, discord: 0, email: 1, webhook: 1 });

      await stopCleanly(second);
      expect(platforms.received()).toEqual(later);
      expect(await outbox()).toEqual({ pending: 0, sent: totalOf(later), dead: 0 });
    });
  });
