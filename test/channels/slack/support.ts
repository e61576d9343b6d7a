/**
 * What the Slack channel tests share: every text of a message, the markup that must never
 * arrive live, a send context with threads in memory, and channels wired to the fake.
 */
import { createSlackChannels, type SlackOptions } from '../../../src/channels/slack/index.js';
import type { ChannelDeps, SendContext } from '../../../src/channels/types.js';
import { systemClock } from '../../../src/lib/clock.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { memoryThreads } from '../../fakes/alerts.js';
import type { SlackFake } from '../../fakes/slack.js';

/** Every `text` value in a message (top level, blocks, fields, elements), in order. */
export function allTexts(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(allTexts);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) =>
    k === 'text' && typeof v === 'string' ? [v] : allTexts(v),
  );
}

/** Sequences that would mention, link or format if they arrived unescaped. */
export const LIVE_MARKUP = [
  '<!channel',
  '<!here',
  '<!everyone',
  '<@U',
  '<@W',
  '<!subteam',
  '<http',
  '<mailto',
  '<#C',
  '<script',
];

/** A send context with thread references in memory (the first reference is kept). */
export function sendContext(
  threads = memoryThreads(),
): SendContext & { threads: ReturnType<typeof memoryThreads> } {
  return { now: '2026-11-20T15:00:00Z', threads };
}

/** Both Slack channels talking to the fake, paced fast unless told otherwise. */
export function channelsFor(
  fake: SlackFake,
  options: Partial<SlackOptions> = {},
  deps: Partial<ChannelDeps> = {},
) {
  return createSlackChannels(
    { token: fake.token, apiUrl: fake.url, perChannel: { perSecond: 50, burst: 5 }, ...options },
    { clock: systemClock, logger: silentLogger, ...deps },
  );
}
