/**
 * Silences at decision time: an alert to a target that a silence in force matches (by
 * pipeline, target, rule and the notice's type, category and status) is held back instead of queued, under the key it would have
 * had, so it is decided once like any other (`context.ts`); `why` says which silence held
 * it. Operations alerts and silence summaries are never held.
 */
import { parseTarget, type Target, targetLabel } from '../domain/targets.js';
import { formatTimeLeft } from '../lib/duration.js';
import { quantity } from '../lib/quantity.js';
import type { SilenceRow } from '../store/silences.js';
import type { AlertPayload, HeldAlert } from './payload.js';
import { type AlertLabels, matchersLine, matchersMatch } from './silence-matchers.js';

/** Whether `s` holds back an alert with these values (`silence-matchers.ts`). */
export function silenceMatches(s: Pick<SilenceRow, 'matchers'>, labels: AlertLabels): boolean {
  return matchersMatch(s.matchers, labels);
}

/**
 * A target key as it may be shown, as `targetLabel` shows its target: a webhook or a
 * Teams workflow by its scheme and host only (its path or query may hold its token),
 * PagerDuty by the last 4 characters of its integration key. A key that does not read as
 * a target shows its kind alone.
 */
export function shownTarget(key: string): string {
  try {
    return targetLabel(parseTarget(key));
  } catch {
    const colon = key.indexOf(':');
    return colon < 0 ? key : `${key.slice(0, colon)}:…`;
  }
}

/** `pipeline=transco target=slack:C0GAS type!~maintenance`, as amtool writes matchers. */
export function matchersText(s: Pick<SilenceRow, 'matchers'>): string {
  return matchersLine(s.matchers, (m) =>
    m.key === 'target' && (m.op === '=' || m.op === '!=') ? shownTarget(m.value) : m.value,
  );
}

/** `muted by silence 12 (pipeline=transco) until 2026-11-25T14:00:00Z for slack:C0GAS`. */
export function mutedReason(s: SilenceRow, target: Target): string {
  const until = s.ends_at === null ? 'until lifted' : `until ${s.ends_at}`;
  return `muted by silence ${s.id} (${matchersText(s)}) ${until} for ${targetLabel(target)}`;
}

const DEADLINE_LABELS: Record<string, string> = {
  response_at: 'Response due',
  effective_at: 'Effective',
  end_at: 'Ends',
};

/**
 * How a held alert is listed in its silence's summary, in the words its own message
 * would have had: `Notice 26-0412: Capacity Constraint - Station 165`, `Response due in
 * 4 h: Notice 26-0419: …`, `OAC below 50,000 Dth at STATION 85 — timely cycle, gas day
 * 2026-11-21`.
 */
export function heldAlert(p: AlertPayload, at: string): HeldAlert {
  const n = p.notice;
  const noticeTitle = n ? `Notice ${n.identifier || `#${n.id}`}: ${n.subject}` : p.rule;
  let title: string;
  if (p.kind === 'capacity' && p.capacity) {
    const { locations, cycle, gas_day } = p.capacity;
    const first = locations[0];
    const unit = first?.unit === 'percent' ? '% of OPC' : ' Dth';
    const names = locations.map((l) => l.location);
    const where =
      names.slice(0, 3).join(', ') + (names.length > 3 ? ` and ${names.length - 3} more` : '');
    const level =
      p.state === 'resolved'
        ? `back above ${quantity(first?.clear_above ?? null)}${unit}`
        : `below ${quantity(first?.threshold ?? null)}${unit}`;
    title = `OAC ${level} at ${where} — ${cycle} cycle, gas day ${gas_day}`;
  } else if (p.kind === 'deadline' && p.deadline) {
    const label = DEADLINE_LABELS[p.deadline.field] ?? p.deadline.field;
    title = `${label} in ${formatTimeLeft(Date.parse(p.deadline.at) - Date.parse(at))}: ${noticeTitle}`;
  } else {
    title = `${noticeTitle}${p.state === 'updated' ? ' (updated)' : ''}`;
  }
  return {
    rule: p.rule,
    kind: p.kind,
    state: p.state,
    pipeline: p.pipeline.slug,
    title,
    notice_id: n?.id ?? null,
    url: n?.url || null,
    at,
  };
}
