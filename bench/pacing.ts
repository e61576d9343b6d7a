/**
 * Slack pacing: 20 channels × 30 alerts, all due at once, sent through
 * `createSlackChannels` with its default pacing to the loopback Slack fake enforcing
 * Slack's own posting limit (1 message a second per channel, burst 3). A rate-limited
 * alert is sent again after the `retryAfterMs` it failed with, as the dispatcher does,
 * up to 10 attempts.
 *
 * Figures:
 * - `ratio_to_limit`: per channel, (messages − 1) / (seconds between the first and the
 *   last message the fake accepted), averaged over the channels, divided by the limit
 *   (1 a second). The opening burst lets it exceed 1 slightly; under 0.9 means the
 *   pacing wastes the channel's allowance.
 * - `lost`: alerts not delivered after retrying (must be 0).
 * - `http_429`: 429 answers from the fake (the pacing should draw none).
 */
import { createSlackChannels } from '../src/channels/slack/index.js';
import { type Alert, DeliveryError } from '../src/channels/types.js';
import { systemClock } from '../src/lib/clock.js';
import { silentLogger } from '../src/lib/logger.js';
import { memoryThreads, noticeAlert } from '../test/fakes/alerts.js';
import { startSlackFake } from '../test/fakes/slack.js';

const CHANNELS = 20;
const ALERTS = 30;
const LIMIT_PER_SECOND = 1;
const ATTEMPTS = 10;

export async function pacingBench(): Promise<Record<string, number>> {
  const channels = Array.from({ length: CHANNELS }, (_, i) => ({
    id: `C0B${String(i).padStart(2, '0')}`,
    name: `bench-${i}`,
  }));
  const fake = await startSlackFake({ channels, rate: { perSecond: LIMIT_PER_SECOND, burst: 3 } });
  const { slack } = createSlackChannels(
    { token: fake.token, apiUrl: fake.url },
    { clock: systemClock, logger: silentLogger },
  );
  const ctx = { now: new Date().toISOString(), threads: memoryThreads() };

  async function deliver(channel: string, alert: Alert): Promise<boolean> {
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        await slack.send({ kind: 'slack', channel }, [alert], ctx);
        return true;
      } catch (error) {
        if (!(error instanceof DeliveryError) || error.permanent) return false;
        await systemClock.sleep(error.retryAfterMs ?? 1000);
      }
    }
    return false;
  }

  try {
    const sends = channels.flatMap((c, ci) =>
      Array.from({ length: ALERTS }, (_, i) =>
        deliver(`#${c.name}`, noticeAlert({ id: ci * 1000 + i + 1 })),
      ),
    );
    const delivered = (await Promise.all(sends)).filter(Boolean).length;
    const rates = channels.map((c) => {
      const times = fake.posts.filter((p) => p.channel === c.id).map((p) => p.at);
      const seconds = (Math.max(...times) - Math.min(...times)) / 1000;
      return (times.length - 1) / seconds;
    });
    const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
    return {
      ratio_to_limit: Math.round((mean / LIMIT_PER_SECOND) * 1000) / 1000,
      lost: CHANNELS * ALERTS - delivered,
      http_429: fake.http429,
    };
  } finally {
    await slack.close?.();
    await fake.close();
  }
}
