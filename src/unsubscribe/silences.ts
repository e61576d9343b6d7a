/**
 * Unsubscribing from email: the link in an alert email stops, for the addresses that
 * email went to, the rules of the alerts it carried. It does so with a silence without
 * end (`ends_at` null) on that target and those rules, so `silence list` shows it,
 * `silence expire` undoes it, and what it holds back is recorded like any silence's.
 * Asking again adds nothing: rules an endless silence of that target already holds back
 * are left out, and with none left no silence is made.
 */
import { randomBytes } from 'node:crypto';
import { equalMatchers, equalValues } from '../alerts/silence-matchers.js';
import { targetKey } from '../domain/targets.js';
import type { Clock } from '../lib/clock.js';
import { toUtcIso, type UtcIso } from '../lib/time.js';
import type { AsyncStore } from '../store/async-store.js';
import type { SilenceRow } from '../store/silences.js';

/**
 * What one unsubscribe link stops: alerts to the email target of exactly these
 * addresses (in the order the rule names them: one message goes to all of them), of
 * these rules, or of every rule (`'all'`).
 */
export interface UnsubscribeScope {
  addresses: readonly string[];
  rules: readonly string[] | 'all';
}

/** `created_by` of the silences unsubscribe links make, as `silence list` shows it. */
export const UNSUBSCRIBE_AUTHOR = 'unsubscribe link';

/** The name of the kept key that signs the links when PIPEWATCH_SECRET_KEY is unset. */
export const UNSUBSCRIBE_KEY_NAME = 'unsubscribe';

/** Where a scope stands: the endless silences that already hold it, and what they leave. */
export interface UnsubscribeState {
  /** The target key the silences match (`email:ops@example.com`). */
  target: string;
  /** Endless silences in force that hold back some of the scope, by id. */
  holding: SilenceRow[];
  /** The rules none of them holds back (`'all'`: not every rule is held); empty: done. */
  remaining: string[] | 'all';
}

/** The key that signs unsubscribe links: PIPEWATCH_SECRET_KEY, or one made once and kept. */
export async function unsubscribeKey(
  store: AsyncStore,
  configured: string | undefined,
  clock: Clock,
): Promise<string> {
  if (configured !== undefined) return configured;
  return store.keys.getOrCreate(
    UNSUBSCRIBE_KEY_NAME,
    () => randomBytes(32).toString('base64url'),
    toUtcIso(clock.now()),
  );
}

/** An endless silence in force that holds every alert of `rule` (undefined: any) to `target`. */
function holds(s: SilenceRow, target: string, rule: string | undefined): boolean {
  const m = s.matchers;
  if (s.ends_at !== null || m.some((x) => x.op !== '=' || (x.key !== 'target' && x.key !== 'rule')))
    return false;
  if (!equalValues(m, 'target')?.includes(target)) return false;
  const rules = equalValues(m, 'rule');
  if (!rules) return true;
  return rule !== undefined && rules.includes(rule);
}

/** What of `scope` is held back already at `now`, and what is not; changes nothing. */
export async function unsubscribeState(
  store: AsyncStore,
  scope: UnsubscribeScope,
  now: UtcIso,
): Promise<UnsubscribeState> {
  const target = targetKey({ kind: 'email', to: [...scope.addresses] });
  const active = await store.silences.active(now);
  if (scope.rules === 'all') {
    const holding = active.filter((s) => holds(s, target, undefined));
    return { target, holding, remaining: holding.length > 0 ? [] : 'all' };
  }
  const rules = scope.rules;
  const holding = active.filter((s) => rules.some((r) => holds(s, target, r)));
  const remaining = rules.filter((r) => !holding.some((s) => holds(s, target, r)));
  return { target, holding, remaining };
}

/** What unsubscribing did: the silences that now hold the scope back, new or not. */
export interface UnsubscribeResult {
  target: string;
  /** Ids of the silences holding it back, ascending. */
  silences: number[];
  /** The silence made now; undefined when the scope was held back already. */
  created: number | undefined;
}

/**
 * Stops `scope` from `now` on with one endless silence of the rules not held back yet;
 * when every one is, adds nothing and says which silences hold them.
 */
export function unsubscribe(
  store: AsyncStore,
  scope: UnsubscribeScope,
  now: UtcIso,
): Promise<UnsubscribeResult> {
  return store.transaction(async () => {
    const state = await unsubscribeState(store, scope, now);
    const ids = state.holding.map((s) => s.id);
    let created: number | undefined;
    if (state.remaining === 'all' || state.remaining.length > 0) {
      created = await store.silences.add({
        matchers:
          state.remaining === 'all'
            ? equalMatchers('target', [state.target])
            : [
                ...equalMatchers('target', [state.target]),
                ...equalMatchers('rule', state.remaining),
              ],
        starts_at: now,
        ends_at: null,
        created_by: UNSUBSCRIBE_AUTHOR,
        comment: `unsubscribed with the link in an email to ${scope.addresses.join(', ')}`,
        created_at: now,
      });
      ids.push(created);
    }
    return { target: state.target, silences: [...new Set(ids)].sort((a, b) => a - b), created };
  });
}
