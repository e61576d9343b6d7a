/**
 * `chat_ack_during_sync`: how soon a signed Slack `/pipewatch` command is answered while
 * syncs of 20 new notices follow each other without pause on the chat state of
 * `sync_at_scale` (10,000 subscriptions, 5,000 mutes, 2,000 reminders). This process is
 * the daemon's side (`largeChatState` there), with the Slack app at `POST /slack/events`
 * on the daemon's HTTP server, on the same chat core; Slack's side (`chat-ack-slack.ts`,
 * a process of its own as Slack is) sends the `chat_ack` mix (list, subscribe, remind,
 * typos, help) one command after another in 25 of the subscribed channels, each timed
 * from the request leaving to the answer read in full. A `subscribe` puts its
 * subscription in force at once, among the 10,000, as the daemon does.
 *
 * `ROUNDS` rounds of `ACKS` commands; figures, each the median of the rounds with
 * `_min` and `_max`: `ack_p99_ms` (goal: 100 ms or less), `ack_p50_ms`, `ack_max_ms`,
 * and `block_ms_max`, the longest the event loop was held in the round; and over all
 * rounds, `syncs_during_acks`, how many syncs ran while the commands did.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startSlackApp } from '../src/frontends/slack/app.js';
import { systemClock } from '../src/lib/clock.js';
import { silentLogger } from '../src/lib/logger.js';
import { asyncStoreOf } from '../src/store/async-sqlite.js';
import { serveRoutes } from '../test/support/http-server.js';
import { percentile, platformSide } from './chat-ack.js';
import type { SlackSideReady } from './chat-ack-slack.js';
import { largeChatState, spread } from './sync-at-scale.js';

const ROUNDS = 3;
const ACKS = 200;
/** Commands sent, not timed, before the first round. */
const WARM_UP = 20;
/** Channels Slack's side types its commands in: the first of the subscribed ones. */
const ACK_CHANNELS = 25;

/** The `chat_ack_during_sync` figures. */
export async function chatAckDuringSyncBench(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-bench-'));
  const slack = await platformSide<SlackSideReady>('Slack', './chat-ack-slack.ts', ACK_CHANNELS);
  try {
    const large = await largeChatState(dir);
    const { side, core } = large;
    const app = await startSlackApp({
      token: slack.ready.token,
      signingSecret: slack.ready.signingSecret,
      apiUrl: slack.ready.url,
      chat: core,
      clock: systemClock,
      logger: silentLogger,
      replays: asyncStoreOf(side.store).interactions,
    });
    const server = await serveRoutes([
      { method: 'POST', path: '/slack/events', handle: app.handleHttp! },
    ]);
    const url = `${server.url}/slack/events`;
    const delay = monitorEventLoopDelay({ resolution: 1 });
    const rounds: { p50: number; p99: number; max: number; blockMs: number }[] = [];
    let syncs = 0;
    try {
      await slack.commands(url, WARM_UP);
      for (let r = 0; r < ROUNDS; r++) {
        let done = false;
        const commands = slack.commands(url, ACKS).finally(() => {
          done = true;
        });
        let blockMs = 0;
        delay.enable();
        while (!done) {
          await side.publish();
          const run = await side.sync(delay);
          blockMs = Math.max(blockMs, run.blockMs);
          syncs++;
        }
        delay.disable();
        const acks = (await commands).sort((a, b) => a - b);
        rounds.push({
          p50: percentile(acks, 50),
          p99: percentile(acks, 99),
          max: percentile(acks, 100),
          blockMs,
        });
      }
    } finally {
      delay.disable();
      await app.close();
      await server.close();
    }
    const state = large.state();
    await large.close();
    return {
      ...state,
      rounds: ROUNDS,
      acks_per_round: ACKS,
      ...spread(
        'ack_p99_ms',
        rounds.map((r) => r.p99),
      ),
      ...spread(
        'ack_p50_ms',
        rounds.map((r) => r.p50),
      ),
      ...spread(
        'ack_max_ms',
        rounds.map((r) => r.max),
      ),
      ...spread(
        'block_ms_max',
        rounds.map((r) => r.blockMs),
      ),
      syncs_during_acks: syncs,
    };
  } finally {
    await slack.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
