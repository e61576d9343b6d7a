/**
 * How soon a `/pipewatch` command is acknowledged: 1,000 signed slash commands, one after
 * another, to `POST /slack/events` on the daemon's HTTP server over loopback, each timed
 * from the request leaving to the acknowledgement (the reply's blocks) read in full.
 * Slack gives an app 3 seconds. The chat core is the tests' stand-in, which answers at
 * once, so this is the cost of the way in and out: verification, Bolt, rendering.
 *
 *   node --import tsx bench/slack-ack.ts
 */
import { startSlackApp } from '../src/channels/slack/app.js';
import { Metrics } from '../src/http/metrics.js';
import { startHttpServer } from '../src/http/server.js';
import { assessHealth } from '../src/ingest/health.js';
import { systemClock } from '../src/lib/clock.js';
import { silentLogger } from '../src/lib/logger.js';
import { ChatStandIn } from '../test/channels/slack/chat-stand-in.js';
import { post, SIGNING_SECRET, slashCommand } from '../test/channels/slack/signed-requests.js';
import { startSlackFake } from '../test/fakes/slack.js';

const REQUESTS = 1000;
const WARM_UP = 50;

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round(sorted[i]! * 100) / 100;
}

export async function slackAckBench(): Promise<Record<string, number>> {
  const fake = await startSlackFake();
  const app = await startSlackApp({
    token: fake.token,
    signingSecret: SIGNING_SECRET,
    apiUrl: fake.url,
    chat: new ChatStandIn(systemClock),
    clock: systemClock,
    logger: silentLogger,
  });
  const server = await startHttpServer({
    port: 0,
    metrics: new Metrics({ processMetrics: false }),
    logger: silentLogger,
    health: () => assessHealth([], [], new Date(0), new Date(0)),
    status: () => ({}),
    publicStatus: () => ({}),
    routes: [{ method: 'POST', path: '/slack/events', handle: app.handleHttp! }],
  });
  const url = `${server.url}/slack/events`;
  try {
    const samples: number[] = [];
    for (let i = 0; i < WARM_UP + REQUESTS; i++) {
      // Each request is its own (Slack's trigger_id differs), or it would be a replay.
      const req = slashCommand(`list ${i}`, new Date(), 'http://127.0.0.1:9/respond', {
        trigger_id: `bench.${i}`,
      });
      const started = performance.now();
      const res = await post(url, req);
      const took = performance.now() - started;
      if (res.status !== 200) throw new Error(`request ${i}: HTTP ${res.status} ${res.text}`);
      if (i >= WARM_UP) samples.push(took);
    }
    const sorted = samples.sort((a, b) => a - b);
    return {
      p50_ms: percentile(sorted, 50),
      p99_ms: percentile(sorted, 99),
      max_ms: percentile(sorted, 100),
      requests: REQUESTS,
    };
  } finally {
    await app.close();
    await server.close();
    await fake.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await slackAckBench()));
}
