/**
 * Email throughput: 1,000 single-alert messages rendered and sent through the channel's
 * pooled SMTP transport (two connections, rate limit set far above what it reaches) to
 * the loopback SMTP server of the tests, which keeps the raw messages without parsing.
 * The figure is what the transport sustains, not the configured production rate.
 */
import { createEmailChannel } from '../src/channels/email/index.js';
import { systemClock } from '../src/lib/clock.js';
import { silentLogger } from '../src/lib/logger.js';
import { memoryThreads, noticeAlert } from '../test/fakes/alerts.js';
import { startSmtpFake } from '../test/fakes/smtp.js';

const MESSAGES = 1_000;

export async function emailBench(): Promise<Record<string, number>> {
  // The pool's own pace, without TLS's: a relay on loopback.
  const server = await startSmtpFake({ parse: false, starttls: false });
  const channel = createEmailChannel(
    {
      smtpUrl: server.url,
      from: 'pipewatch <alerts@example.com>',
      ratePerSecond: 1_000_000,
      allowPlaintext: true,
    },
    { clock: systemClock, logger: silentLogger },
  );
  const target = { kind: 'email' as const, to: ['ops@example.com'] };
  const ctx = { now: '2026-11-20T14:05:00Z', threads: memoryThreads() };
  const alerts = Array.from({ length: MESSAGES }, (_, i) =>
    noticeAlert({ id: 10_000 + i }, `bench|notice:${10_000 + i}:v1|email:ops@example.com`),
  );
  try {
    // One message first, so the figure leaves out the first connection's set-up.
    await channel.send(target, [noticeAlert()], ctx);
    const started = performance.now();
    await Promise.all(alerts.map((a) => channel.send(target, [a], ctx)));
    await server.waitFor(MESSAGES + 1);
    const seconds = (performance.now() - started) / 1000;
    return { messages_per_s: Math.round(MESSAGES / seconds) };
  } finally {
    await channel.close?.();
    await server.close();
  }
}
