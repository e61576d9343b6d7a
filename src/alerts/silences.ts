/**
 * Silences at decision time: an alert to a target that a silence in force matches (by
 * pipeline, target and rule) is held back instead of queued, under the key it would have
 * had, so it is decided once like any other (`context.ts`); `why` says which silence held
 * it. Operations alerts and silence summaries are never held.
 */
import { type Target, targetKey, targetLabel } from '../domain/targets.js';
import type { SilenceRow } from '../store/silences.js';
import type { AlertPayload, HeldAlert } from './payload.js';

/** Whether `s` matches an alert of `rule` about `pipeline` to `target`. */
export function silenceMatches(
  s: Pick<SilenceRow, 'matchers'>,
  rule: string,
  pipeline: string,
  target: Target,
): boolean {
  const m = s.matchers;
  return (
    (!m.rules || m.rules.includes(rule)) &&
    (!m.pipelines || m.pipelines.includes(pipeline)) &&
    (!m.targets || m.targets.includes(targetKey(target)))
  );
}

/** `pipeline=transco target=slack:C0GAS rule=gas-constraints`, as amtool writes matchers. */
export function matchersText(s: Pick<SilenceRow, 'matchers'>): string {
  const parts: string[] = [];
  for (const [key, values] of [
    ['pipeline', s.matchers.pipelines],
    ['target', s.matchers.targets],
    ['rule', s.matchers.rules],
  ] as const) {
    if (values && values.length > 0) parts.push(`${key}=${values.join('|')}`);
  }
  return parts.length > 0 ? parts.join(' ') : 'everything';
}

/** `muted by silence 12 until 2026-11-25T14:00:00Z for slack:C0GAS`. */
export function mutedReason(s: SilenceRow, target: Target): string {
  const until = s.ends_at === null ? 'until lifted' : `until ${s.ends_at}`;
  return `muted by silence ${s.id} ${until} for ${targetLabel(target)}`;
}

/** How a held alert is listed in its silence's summary. */
export function heldAlert(p: AlertPayload, at: string): HeldAlert {
  const n = p.notice;
  let title: string;
  if (p.kind === 'capacity' && p.capacity) {
    const names = p.capacity.locations.map((l) => l.location);
    const shown =
      names.slice(0, 3).join(', ') + (names.length > 3 ? ` and ${names.length - 3} more` : '');
    title = `OAC ${p.state === 'resolved' ? 'recovered' : 'low'} at ${shown} (${p.capacity.gas_day} ${p.capacity.cycle})`;
  } else if (p.kind === 'deadline' && n && p.deadline) {
    title = `${p.deadline.before} reminder: ${n.identifier || `#${n.id}`} ${n.subject}`;
  } else if (n) {
    title = `${n.identifier || `#${n.id}`} ${n.subject}${p.state === 'updated' ? ' (updated)' : ''}`;
  } else {
    title = p.rule;
  }
  return {
    rule: p.rule,
    kind: p.kind,
    state: p.state,
    pipeline: p.pipeline.slug,
    title,
    notice_id: n?.id ?? null,
    url: n?.url || null,
    at: at as HeldAlert['at'],
  };
}
