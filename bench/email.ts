/**
 * Email throughput through the channel's pooled SMTP transport (two connections) to the
 * loopback SMTP server of the tests, which keeps the raw messages without parsing:
 * - `messages_per_s_without_rate_limit`: 1,000 single-alert messages with the rate limit
 *   set far above what the pool reaches: what the transport sustains, not what a user gets;
 * - `messages_per_s_at_default_rate`: 50 messages with `PIPEWATCH_EMAIL_RATE` at its
 *   default (5 a second), as the daemon sends them: what a burst of email alerts gets.
 * Each is the median of three runs (a fresh channel each), with its spread.
 */
import { createEmailChannel } from '../src/channels/email/index.js';
import { VARIABLES } from '../src/config/variables.js';
import { systemClock } from '../src/lib/clock.js';
import { silentLogger } from '../src/lib/logger.js';
import { memoryThreads, noticeAlert } from '../test/fakes/alerts.js';
import { startSmtpFake } from '../test/fakes/smtp.js';

const MESSAGES = 1_000;
const MESSAGES_AT_DEFAULT_RATE = 50;
const RUNS = 3;

/** Messages a second sent by one channel at `ratePerSecond`, after a first to connect. */
async function throughput(messages: number, ratePerSecond: number): Promise<number> {
  // The pool's own pace, without TLS's: a relay on loopback.
  const server = await startSmtpFake({ parse: false, starttls: false });
  const channel = createEmailChannel(
    {
      smtpUrl: server.url,
      from: 'pipewatch <alerts@example.com>',
      ratePerSecond,
      allowPlaintext: true,
    },
    { clock: systemClock, logger: silentLogger },
  );
  const target = { kind: 'email' as const, to: ['ops@example.com'] };
  const ctx = { now: '2026-11-20T14:05:00Z', threads: memoryThreads() };
  const alerts = Array.from({ length: messages }, (_, i) =>
    noticeAlert({ id: 10_000 + i }, `bench|notice:${10_000 + i}:v1|email:ops@example.com`),
  );
  try {
    // One message first, so the figure leaves out the first connection's set-up.
    await channel.send(target, [noticeAlert()], ctx);
    const started = performance.now();
    await Promise.all(alerts.map((a) => channel.send(target, [a], ctx)));
    await server.waitFor(messages + 1);
    return messages / ((performance.now() - started) / 1000);
  } finally {
    await channel.close?.();
    await server.close();
  }
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[]) => round1(Math.max(...xs) - Math.min(...xs));

export async function emailBench(): Promise<Record<string, number>> {
  const defaultRate = Number(VARIABLES.emailRate.default);
  const unlimited: number[] = [];
  const paced: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    unlimited.push(await throughput(MESSAGES, 1_000_000));
    paced.push(await throughput(MESSAGES_AT_DEFAULT_RATE, defaultRate));
  }
  return {
    messages_per_s_without_rate_limit: Math.round(median(unlimited)),
    messages_per_s_without_rate_limit_spread: Math.round(spread(unlimited)),
    default_rate_per_s: defaultRate,
    messages_per_s_at_default_rate: round1(median(paced)),
    messages_per_s_at_default_rate_spread: spread(paced),
    runs: RUNS,
  };
}
