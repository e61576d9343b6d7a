/**
 * Whether a new silence would have matched anything lately: a typo in a matcher
 * (`type=maintenence`, `pipeline=~"transco|tetcoo"` with the regex missing a name) makes
 * a silence that holds nothing back while its author believes it does. It is still made
 * (what it names may come); the command line and chat say so.
 */
import { formatDuration } from '../lib/duration.js';
import type { UtcIso } from '../lib/time.js';
import type { AsyncStore } from '../store/async-store.js';
import type { SilenceMatchers } from '../store/silences.js';
import { matchersLine, matchersMatch } from './silence-matchers.js';

/** How far back a new silence is checked against what was stored. */
export const REACH_WINDOW_MS = 30 * 86_400_000;

/** The keys checked: those a stored notice or capacity cycle has. Rules and targets are checked when written. */
const CHECKED = new Set(['pipeline', 'type', 'category', 'status']);

/**
 * The warning for `matchers` when no notice or capacity cycle seen in the last 30 days
 * matches their pipeline, type, category and status matchers; undefined when one does,
 * or when they have none of those.
 */
export async function silenceReachWarning(
  store: AsyncStore,
  matchers: SilenceMatchers,
  now: UtcIso,
): Promise<string | undefined> {
  const checked = matchers.filter((m) => CHECKED.has(m.key));
  if (checked.length === 0) return undefined;
  return reachWarning(checked, await store.notices.fieldsSeenSince(reachSince(now)));
}

function reachSince(now: UtcIso): UtcIso {
  return new Date(Date.parse(now) - REACH_WINDOW_MS).toISOString();
}

/** The warning for the `checked` matchers when none of the fields `seen` matches them. */
function reachWarning(
  checked: SilenceMatchers,
  seen: readonly { pipeline: string; type: string; category: string; status: string }[],
): string | undefined {
  for (const f of seen)
    if (matchersMatch(checked, { ...f, rule: '', target: '' })) return undefined;
  return `${matchersLine(checked)} matches no notice or capacity stored in the last ${formatDuration(REACH_WINDOW_MS)}; check for a typo: the silence holds back only what matches it`;
}
