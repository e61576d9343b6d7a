/**
 * `chat_ack`: how soon a `/pipewatch` command is acknowledged while the daemon is busy
 * syncing. This process is the daemon's side, wired as `pipewatch run` wires it: the
 * real `ChatCore` on a real Store in a temp dir, an `AlertEngine` with 100 file rules and
 * 1,000 stored subscriptions (made with `subscribe` commands through the same core:
 * 50 channels of 20), the Slack app in HTTP mode mounted at `POST /slack/events` on the
 * daemon's HTTP server. Slack's side runs in another process (`chat-ack-slack.ts`), as
 * Slack does, so that sending and timing do not compete for this event loop: the Slack
 * fake as the Web API and the response URLs, and the sender of signed slash commands.
 *
 * Meanwhile this process ingests notice pages without pause, as `ingest_with_rules` does:
 * each turn of the event loop, 20 new notices as API JSON text parsed, validated and
 * stored by `ingestNoticePage` with the engine's hooks deciding alerts into the outbox in
 * the same transaction. The notices are one a minute back in time (1,440 a day), two
 * weeks of them stored before the first command, so that "the last 24 h" a new
 * subscription is counted over holds what a real store would. A command waits behind
 * whatever page is being stored, and behind the recompiling of the rules that the next
 * page does after a subscription was added, as in the daemon. This is far heavier than
 * a daemon's usual sync: every notice is new and alertable (`alerts_during` says how
 * many alerts that queues).
 *
 * 100 commands warm up, then 1,000 are timed one after another, then 1,000 more with
 * ingest stopped: 30% `list`, 30% `subscribe` (pipelines and a type, over 50 channels,
 * each ending below its 100), 15% `remind`, 15% with a typo, 10% `help`. Each command is
 * timed on Slack's side from its signed request leaving (signing not included) to the
 * acknowledgement read in full over loopback; each acknowledgement is checked to be the
 * real answer, not the receiver's empty one at its deadline. Not timed: the follow-up a
 * `subscribe` or `remind` posts to its response URL (it is worked out after the
 * acknowledgement, in this process, so it can delay the next command), the network and TLS between Slack and the daemon, and
 * delivery (no dispatcher runs; alerts stay in the outbox). Building each page's JSON
 * text, the API's work, is done here too, a little more than the daemon does per page.
 *
 * Besides the percentiles: `pages_during`, pages stored while the 1,000 ran, and
 * `alerts_during`, the alerts their rules and subscriptions queued; `page_ms_*`, how long
 * one page held the event loop; and `vocabulary_ms`, the read of the pipelines and of the
 * notices' types, categories and statuses (`notices_stored` rows) that the chat core
 * makes on the first command after every five minutes. No timed command pays that read:
 * the core made it while the subscriptions were made, and a run lasts under five minutes.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AlertEngine } from '../src/alerts/engine.js';
import { startSlackApp } from '../src/channels/slack/app.js';
import { ChatCore } from '../src/chat/service.js';
import type { IngestHooks } from '../src/ingest/events.js';
import { ingestNoticePage } from '../src/ingest/notice-sync.js';
import { systemClock } from '../src/lib/clock.js';
import { silentLogger } from '../src/lib/logger.js';
import { toUtcIso } from '../src/lib/time.js';
import { PIPELINES } from '../src/simulator/pipelines.js';
import { Store } from '../src/store/index.js';
import { parseRecords } from '../src/upstream/records.js';
import { NoticeSchema } from '../src/upstream/schemas.js';
import { serveRoutes } from '../test/support/http-server.js';
import type { SlackSideReply, SlackSideRequest } from './chat-ack-slack.js';
import { wireNotice } from './fixtures.js';
import { generatedRule, TYPES } from './rules.js';
import { makeSubscriptions, seededRandom, storeCatalogPipelines } from './subscriptions.js';

const WARM_UP = 100;
const COMMANDS = 1_000;
const PER_PAGE = 20;
/** Pages stored before the first command: two weeks of notices. */
const HISTORY_PAGES = 1_000;
const SECRET = 'b3ac0a1e5d9c4f7e8a2b6c1d0e9f8a7b';
/** Channels the commands are typed in; each ends well below its 100 subscriptions. */
const CHANNELS = 50;

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The `p`th percentile of sorted values, the nearest rank. */
function percentile(sorted: readonly number[], p: number): number {
  return round2(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!);
}

/** `2026-11-24 15:07:00`, as the API writes times. */
const apiTime = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** New notices, one page a turn of the event loop while running, newest first. */
class NoticeStream {
  pages = 0;
  readonly pageMs: number[] = [];
  private next = 0;
  private running = false;
  private stopped: Promise<void> = Promise.resolve();
  private readonly start = Date.now();
  private readonly context = { method: 'GET', endpoint: '/ip/notices', host: 'bench' };

  constructor(
    private readonly store: Store,
    private readonly hooks: IngestHooks,
  ) {}

  /** One page of 20: its JSON text as the API sends it, parsed, validated and stored. */
  page(): void {
    const started = performance.now();
    const data = Array.from({ length: PER_PAGE }, () => {
      const i = this.next++;
      const pipeline = PIPELINES[(i * 7) % PIPELINES.length]!;
      const at = apiTime(this.start - i * 60_000);
      return {
        ...wireNotice(i),
        pipeline_id: pipeline.id,
        pipeline_name: pipeline.name,
        pipeline_slug: pipeline.slug,
        type: TYPES[(i * 3) % TYPES.length],
        posted_at: at,
        effective_at: at,
        service_created_at: at,
        service_updated_at: at,
      };
    });
    const text = JSON.stringify({ status: 'success', data });
    const parsed = (JSON.parse(text) as { data: unknown }).data;
    const { records } = parseRecords(NoticeSchema, parsed, this.context, 'data');
    ingestNoticePage(this.store, records, {
      seenAt: toUtcIso(new Date()),
      baseline: false,
      alertableAfter: '2000-01-01T00:00:00Z',
      pipelines: new Set(),
      hooks: this.hooks,
    });
    this.pages++;
    if (this.running) this.pageMs.push(performance.now() - started);
  }

  /** Stores a page every turn of the event loop until `stop`. */
  run(): void {
    this.running = true;
    this.stopped = new Promise((resolve) => {
      const turn = () => {
        if (!this.running) return resolve();
        this.page();
        setImmediate(turn);
      };
      setImmediate(turn);
    });
  }

  stop(): Promise<void> {
    this.running = false;
    return this.stopped;
  }
}

/** Slack's side in its own process, and a call that runs commands there. */
async function slackSide() {
  const script = fileURLToPath(new URL('./chat-ack-slack.ts', import.meta.url));
  const child: ChildProcess = fork(script, [String(CHANNELS)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const next = () =>
    new Promise<SlackSideReply>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`Slack's side exited (${code})`));
      child.once('exit', onExit);
      child.once('message', (m: SlackSideReply) => {
        child.off('exit', onExit);
        resolve(m);
      });
    });
  const ready = await next();
  if (!('ready' in ready)) throw new Error(`Slack's side did not start: ${JSON.stringify(ready)}`);
  let sent = 0;
  return {
    ...ready.ready,
    /** The next `count` commands of the mix; the milliseconds of each. */
    async commands(url: string, count: number): Promise<number[]> {
      const request: SlackSideRequest = { run: { url, secret: SECRET, from: sent, count } };
      sent += count;
      const reply = next();
      child.send(request);
      const answer = await reply;
      if ('error' in answer) throw new Error(answer.error);
      if (!('result' in answer)) throw new Error('Slack side: unexpected reply');
      return answer.result.ms;
    },
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ close: true } satisfies SlackSideRequest);
      await exited;
    },
  };
}

/** The `chat_ack` figures. */
export async function chatAckBench(): Promise<Record<string, number>> {
  const slack = await slackSide();
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-bench-'));
  const store = Store.open(dir);
  storeCatalogPipelines(store, new Date());
  const deps = { store, clock: systemClock, logger: silentLogger, maxAlertAgeMs: 1e12 };
  const rules = Array.from({ length: 100 }, (_, i) => generatedRule(i));
  const engine = new AlertEngine(deps, rules);
  const stream = new NoticeStream(store, engine.hooks());
  for (let p = 0; p < HISTORY_PAGES; p++) stream.page();
  const core = new ChatCore({ ...deps, engine, policy: { admins: new Set() } });
  await makeSubscriptions(core, 1_000, CHANNELS, seededRandom(2));
  const app = await startSlackApp({
    token: slack.token,
    signingSecret: SECRET,
    apiUrl: slack.url,
    chat: core,
    clock: systemClock,
    logger: silentLogger,
  });
  const server = await serveRoutes([
    { method: 'POST', path: '/slack/events', handle: app.handleHttp! },
  ]);
  const url = `${server.url}/slack/events`;
  try {
    stream.run();
    await slack.commands(url, WARM_UP);
    const before = { pages: stream.pages, alerts: store.outbox.counts().pending };
    stream.pageMs.length = 0;
    const busy = (await slack.commands(url, COMMANDS)).sort((a, b) => a - b);
    const pagesDuring = stream.pages - before.pages;
    const alertsDuring = store.outbox.counts().pending - before.alerts;
    const pageMs = [...stream.pageMs].sort((a, b) => a - b);
    await stream.stop();
    const idle = (await slack.commands(url, COMMANDS)).sort((a, b) => a - b);
    const started = performance.now();
    store.pipelines.all();
    store.notices.vocabulary();
    const vocabularyMs = performance.now() - started;
    if (engine.rules.length < rules.length + 1_000) throw new Error('subscriptions not in force');
    return {
      commands: COMMANDS,
      p50_ms: percentile(busy, 50),
      p99_ms: percentile(busy, 99),
      max_ms: percentile(busy, 100),
      pages_during: pagesDuring,
      alerts_during: alertsDuring,
      page_ms_p50: percentile(pageMs, 50),
      page_ms_p99: percentile(pageMs, 99),
      p50_ms_idle: percentile(idle, 50),
      p99_ms_idle: percentile(idle, 99),
      max_ms_idle: percentile(idle, 100),
      subscriptions: store.subscriptions.counts().total,
      notices_stored: store.notices.count(),
      vocabulary_ms: round2(vocabularyMs),
    };
  } finally {
    await stream.stop();
    await app.close();
    await server.close();
    await slack.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
