/**
 * `chat_ack`: how soon a `/pipewatch` command is acknowledged while the daemon is busy
 * syncing, on Slack and on Discord (which wants its answer within 3 s). This process is
 * the daemon's side, wired as `pipewatch run` wires it: the real `ChatCore` on a real
 * Store in a temp dir, an `AlertEngine` with 100 file rules and 1,000 stored
 * subscriptions (made with `subscribe` commands through the same core: 50 channels of
 * 20, 25 of them Slack's and 25 Discord's), and on the daemon's one HTTP server the Slack
 * app in HTTP mode at `POST /slack/events` and the Discord app at
 * `POST /discord/interactions`, both on that core. Each platform's side runs in a process
 * of its own (`chat-ack-slack.ts`, `chat-ack-discord.ts`), as the platform does, so that
 * sending and timing do not compete for this event loop: its fake (Slack's Web API and
 * response URLs; Discord's interaction webhooks) and the sender of its signed commands.
 * Each side makes the credentials it signs with and hands them over (`{ ready }`)
 * before the apps start, as the platform shows them to whoever installs the app.
 *
 * Meanwhile this process ingests notice pages without pause, as `ingest_with_rules` does
 * (`notice-stream.ts`): each turn of the event loop, 20 new notices stored with the
 * engine's hooks deciding alerts into the outbox in the same transaction, two weeks of
 * them stored before the first command, so that "the last 24 h" a new subscription is
 * counted over holds what a real store would. A command waits behind whatever page is
 * being stored, and behind the recompiling of the rules that the next page does after a
 * subscription was added, as in the daemon. This is far heavier than a daemon's usual
 * sync: every notice is new and alertable (`alerts_during` says how many alerts that
 * queues).
 *
 * Each platform sends the same mix (`chat-ack-side.ts`): 100 commands warm up, then
 * 1,000 are timed one after another, then 1,000 more with ingest stopped: 30% `list`, 30%
 * `subscribe` (pipelines and a type, in its 25 channels, each ending below its 100), 15%
 * `remind`, 15% with a typo, 10% `help`. The platforms take turns of 100 commands, so
 * that both meet the same store and engine as they grow, and never send at the same
 * time, so that each figure is one command's wait. Each command is timed on its
 * platform's side from its signed request leaving (signing not included) to the answer
 * read in full over loopback; each answer is checked to be the real one, not an empty or
 * failed one. Not timed: the follow-up a `subscribe` or `remind` posts (worked out after
 * the answer, in this process, so it can delay the next command), the network and TLS
 * between the platform and the daemon, and delivery (no dispatcher runs; alerts stay in
 * the outbox). Building each page's JSON text, the API's work, is done here too, a
 * little more than the daemon does per page.
 *
 * The unprefixed figures are Slack's, the `discord_` ones Discord's. Besides the
 * percentiles: `pages_during`, pages stored while Slack's 1,000 ran (`discord_…` while
 * Discord's did), and `alerts_during`, the alerts their rules and subscriptions queued;
 * `page_ms_*`, how long one page held the event loop while the commands ran; and
 * `vocabulary_ms`, the read of the pipelines and of the notices' types, categories and
 * statuses (`notices_stored` rows) that the chat core makes again after five minutes. No
 * timed command pays that read: the core made it while the subscriptions were made, and
 * the run is refused if it lasted five minutes from then.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AlertEngine } from '../src/alerts/engine.js';
import { ChatCore } from '../src/chat/service.js';
import { startDiscordApp } from '../src/frontends/discord/app.js';
import { startSlackApp } from '../src/frontends/slack/app.js';
import { systemClock } from '../src/lib/clock.js';
import { silentLogger } from '../src/lib/logger.js';
import { asyncStoreOf } from '../src/store/async-sqlite.js';
import { Store } from '../src/store/index.js';
import { serveRoutes } from '../test/support/http-server.js';
import type { DiscordSideReady } from './chat-ack-discord.js';
import type { SideReply, SideRequest } from './chat-ack-side.js';
import type { SlackSideReady } from './chat-ack-slack.js';
import { NoticeStream } from './notice-stream.js';
import { generatedRule } from './rules.js';
import {
  benchCaller,
  makeSubscriptions,
  seededRandom,
  storeCatalogPipelines,
  UNLIMITED_CHAT,
} from './subscriptions.js';

const WARM_UP = 100;
const COMMANDS = 1_000;
/** Commands a platform sends before the other takes its turn. */
const TURN = 100;
/** Pages stored before the first command: two weeks of notices. */
const HISTORY_PAGES = 1_000;
/** Channels of each platform; each ends well below its 100 subscriptions. */
const CHANNELS = 25;
/** After this long the chat core reads its vocabulary again, between two commands. */
const VOCABULARY_TTL_MS = 5 * 60_000;

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The `p`th percentile of sorted values, the nearest rank. */
export function percentile(sorted: readonly number[], p: number): number {
  return round2(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!);
}

/**
 * A platform's side in its own process, once it said `{ ready }`; a call runs commands
 * there, typed in `channels` channels.
 */
export async function platformSide<Ready>(name: string, script: string, channels = CHANNELS) {
  const child: ChildProcess = fork(
    fileURLToPath(new URL(script, import.meta.url)),
    [String(channels)],
    {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    },
  );
  const next = () =>
    new Promise<SideReply<Ready>>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`${name}'s side exited (${code})`));
      child.once('exit', onExit);
      child.once('message', (m: SideReply<Ready>) => {
        child.off('exit', onExit);
        resolve(m);
      });
    });
  const ready = await next();
  if (!('ready' in ready))
    throw new Error(`${name}'s side did not start: ${JSON.stringify(ready)}`);
  let sent = 0;
  return {
    ready: ready.ready,
    /** The next `count` commands of the mix; the milliseconds of each. */
    async commands(url: string, count: number): Promise<number[]> {
      const request: SideRequest = { run: { url, from: sent, count } };
      sent += count;
      const reply = next();
      child.send(request);
      const answer = await reply;
      if ('error' in answer) throw new Error(`${name}'s side: ${answer.error}`);
      if (!('result' in answer)) throw new Error(`${name}'s side: unexpected reply`);
      return answer.result.ms;
    },
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ close: true } satisfies SideRequest);
      await exited;
    },
  };
}

/** What one platform's commands met: each one's milliseconds, and what was stored meanwhile. */
interface Run {
  ms: number[];
  pages: number;
  alerts: number;
}

/** The `chat_ack` figures. */
export async function chatAckBench(): Promise<Record<string, number>> {
  const [slack, discord] = await Promise.all([
    platformSide<SlackSideReady>('Slack', './chat-ack-slack.ts'),
    platformSide<DiscordSideReady>('Discord', './chat-ack-discord.ts'),
  ]);
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-bench-'));
  const store = Store.open(dir);
  storeCatalogPipelines(store, new Date());
  const deps = { store, clock: systemClock, logger: silentLogger, maxAlertAgeMs: 1e12 };
  const rules = Array.from({ length: 100 }, (_, i) => generatedRule(i));
  const engine = new AlertEngine({ ...deps, store: asyncStoreOf(store) }, rules);
  const stream = new NoticeStream(store, engine.hooks());
  for (let p = 0; p < HISTORY_PAGES; p++) await stream.page();
  const core = new ChatCore({
    ...deps,
    store: asyncStoreOf(store),
    engine,
    policy: { admins: new Set() },
    limits: UNLIMITED_CHAT,
  });
  const vocabularyRead = performance.now();
  await makeSubscriptions(core, 1_000, 2 * CHANNELS, seededRandom(2), (n, u) =>
    n < CHANNELS ? benchCaller('slack', n, u) : benchCaller('discord', n - CHANNELS, u),
  );
  const slackApp = await startSlackApp({
    token: slack.ready.token,
    signingSecret: slack.ready.signingSecret,
    apiUrl: slack.ready.url,
    chat: core,
    clock: systemClock,
    logger: silentLogger,
    replays: asyncStoreOf(store).interactions,
  });
  const discordApp = startDiscordApp({
    publicKey: discord.ready.publicKey,
    apiUrl: discord.ready.url,
    chat: core,
    clock: systemClock,
    logger: silentLogger,
    replays: asyncStoreOf(store).interactions,
  });
  const server = await serveRoutes([
    { method: 'POST', path: '/slack/events', handle: slackApp.handleHttp! },
    { method: 'POST', path: '/discord/interactions', handle: discordApp.handleHttp },
  ]);
  const platforms = [
    { side: slack, url: `${server.url}/slack/events` },
    { side: discord, url: `${server.url}/discord/interactions` },
  ];
  /** `count` commands of each platform, in turns; what each platform's commands met. */
  async function turns(count: number): Promise<Run[]> {
    const runs = platforms.map((): Run => ({ ms: [], pages: 0, alerts: 0 }));
    for (let done = 0; done < count; done += TURN) {
      for (const [i, { side, url }] of platforms.entries()) {
        const before = { pages: stream.pages, alerts: store.outbox.counts().pending };
        runs[i]!.ms.push(...(await side.commands(url, Math.min(TURN, count - done))));
        runs[i]!.pages += stream.pages - before.pages;
        runs[i]!.alerts += store.outbox.counts().pending - before.alerts;
      }
    }
    for (const run of runs) run.ms.sort((a, b) => a - b);
    return runs;
  }
  try {
    stream.run();
    await turns(WARM_UP);
    stream.pageMs.length = 0;
    const [busy, discordBusy] = await turns(COMMANDS);
    const pageMs = [...stream.pageMs].sort((a, b) => a - b);
    await stream.stop();
    const [idle, discordIdle] = await turns(COMMANDS);
    if (performance.now() - vocabularyRead >= VOCABULARY_TTL_MS)
      throw new Error('the run outlasted the vocabulary: a timed command may have paid its read');
    const started = performance.now();
    store.pipelines.all();
    store.notices.vocabulary();
    const vocabularyMs = performance.now() - started;
    if ((await engine.rules()).length < rules.length + 1_000)
      throw new Error('subscriptions not in force');
    return {
      commands: COMMANDS,
      p50_ms: percentile(busy!.ms, 50),
      p99_ms: percentile(busy!.ms, 99),
      max_ms: percentile(busy!.ms, 100),
      pages_during: busy!.pages,
      alerts_during: busy!.alerts,
      page_ms_p50: percentile(pageMs, 50),
      page_ms_p99: percentile(pageMs, 99),
      p50_ms_idle: percentile(idle!.ms, 50),
      p99_ms_idle: percentile(idle!.ms, 99),
      max_ms_idle: percentile(idle!.ms, 100),
      subscriptions: store.subscriptions.counts().total,
      notices_stored: store.notices.count(),
      vocabulary_ms: round2(vocabularyMs),
      discord_p50_ms: percentile(discordBusy!.ms, 50),
      discord_p99_ms: percentile(discordBusy!.ms, 99),
      discord_max_ms: percentile(discordBusy!.ms, 100),
      discord_pages_during: discordBusy!.pages,
      discord_alerts_during: discordBusy!.alerts,
      discord_p50_ms_idle: percentile(discordIdle!.ms, 50),
      discord_p99_ms_idle: percentile(discordIdle!.ms, 99),
      discord_max_ms_idle: percentile(discordIdle!.ms, 100),
    };
  } finally {
    await stream.stop();
    await slackApp.close();
    await discordApp.close();
    await server.close();
    await Promise.all([slack.close(), discord.close()]);
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
