/**
 * Pacing per Slack conversation: Slack allows about one message a second per channel,
 * with short bursts. The pacer itself is shared by the channels (`../pace.ts`).
 */
import type { PaceOptions } from '../pace.js';

export { MAX_INLINE_HOLD_MS, type PaceOptions, Pacer, paceTurn, type Turn } from '../pace.js';

/** What Slack allows for `chat.postMessage`: 1 a second per channel, short bursts. */
export const DEFAULT_PACE: PaceOptions = { perSecond: 1, burst: 2 };
