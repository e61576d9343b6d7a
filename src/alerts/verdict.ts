/**
 * What a verdict is: what the daemon does with a notice (or a capacity location) under
 * one rule, with the deliveries and reminders behind it, and the helpers every kind of
 * rule judges with. `explain.ts` judges notice rules, `explain-deadlines.ts` deadline
 * rules, `explain-capacity.ts` capacity rules.
 */

import { keyLabel, targetLabel } from '../domain/targets.js';
import { formatDuration } from '../lib/duration.js';
import type { UtcIso } from '../lib/time.js';
import type { AuditEntry } from '../store/audit.js';
import type { StoredNotice } from '../store/notices.js';
import type { ReminderRow } from '../store/reminders.js';
import type { Notice } from '../upstream/schemas.js';
import type { OutboxRow } from './outbox.js';
import type { AlertPayload } from './payload.js';

/**
 * What the daemon does with a notice (or capacity location) under one rule: `fires` it
 * alerts now (or at its next run), `scheduled` reminders are still ahead, `next-cycle` a
 * capacity alert fires with the next cycle judged; everything else sends nothing.
 */
export type Outcome =
  | 'fires'
  | 'scheduled'
  | 'next-cycle'
  | 'alerted'
  | 'baseline'
  | 'too-old'
  | 'not-in-force'
  | 'not-applicable'
  | 'excluded'
  | 'not-matched';

/** How each outcome is named in summaries, in the order they are listed. */
export const OUTCOME_LABELS: Record<Outcome, string> = {
  fires: 'fires',
  scheduled: 'reminders ahead',
  'next-cycle': 'fires at the next cycle',
  alerted: 'already alerted',
  baseline: 'baseline',
  'too-old': 'too old',
  'not-in-force': 'before the rule',
  'not-applicable': 'matches, no alert',
  excluded: 'excluded',
  'not-matched': 'not matched',
};

/** One delivery of the outbox, as a verdict shows it. */
export interface DeliveryView {
  key: string;
  target: string;
  status: OutboxRow['status'];
  created_at: UtcIso;
  sent_at: UtcIso | null;
  next_attempt_at: UtcIso | null;
  attempts: number;
  last_error: string | null;
}

/** One reminder offset of a deadline rule: what was or will be done with it. */
export interface ReminderView {
  before: string;
  offset_ms: number;
  due_at: UtcIso | null;
  status: 'at-once' | 'due' | 'scheduled' | 'sent' | 'skipped' | 'cancelled' | 'dropped';
  note: string;
  deliveries: DeliveryView[];
}

/** An alert a firing verdict would put in the outbox: its key's subject and payload. */
export interface PlannedAlert {
  subject: string;
  payload: AlertPayload;
}

/** One rule's verdict on one notice (or capacity location), as the daemon would act. */
export interface Verdict {
  rule: string;
  kind: 'notices' | 'deadlines' | 'capacity';
  outcome: Outcome;
  /** True when the daemon sends (or will send) something: fires, scheduled, next-cycle. */
  fires: boolean;
  /** Targets it goes to, when it fires. */
  targets: string[];
  /** One line, starting with what happens: `already alerted: …`, `baseline: …`. */
  reason: string;
  /** Deliveries of this rule about the subject already in the outbox. */
  deliveries: DeliveryView[];
  /** For deadline rules: each offset. */
  reminders: ReminderView[];
  /** The next alert it sends, when it fires. */
  alert?: PlannedAlert;
}

/** What the daemon already did with a stored notice. */
export interface NoticeHistory {
  audit: AuditEntry[];
  outbox: OutboxRow[];
  reminders: ReminderRow[];
}

export type { ReminderRow } from '../store/reminders.js';

/** What judging a notice needs besides the rules and the notice. */
export interface ExplainOptions {
  now: Date;
  maxAlertAgeMs: number;
  /** Zone the pipeline's local times are shown in. */
  zone: string;
  /** What the daemon did with the notice; absent: the notice is not stored. */
  history?: NoticeHistory;
}

/**
 * A verdict as one line, starting with what the daemon does:
 * `transco-constraints: fires → slack:#gas (matched)`,
 * `tetco: reminders ahead → slack_dm:U0A (response_at …: 30m before: at …)`,
 * `tetco: no: baseline: …`.
 */
export function verdictLine(v: Verdict): string {
  if (!v.fires) return `${v.rule}: no: ${v.reason}`;
  return `${v.rule}: ${OUTCOME_LABELS[v.outcome]} → ${v.targets.join(', ')} (${v.reason})`;
}

/** An outbox row as a verdict shows it. */
export function deliveryView(r: OutboxRow): DeliveryView {
  return {
    key: keyLabel(r.key, r.target),
    target: targetLabel(r.target),
    status: r.status,
    created_at: r.created_at,
    sent_at: r.sent_at,
    next_attempt_at: r.status === 'pending' ? r.next_attempt_at : null,
    attempts: r.attempts,
    last_error: r.last_error,
  };
}

/** `console sent 2026-11-20T15:01:00Z`, `slack:#ops pending (…)`, `email:a@b.c dead (…)`. */
export function describeDelivery(d: DeliveryView): string {
  if (d.status === 'sent') return `${d.target} sent ${d.sent_at ?? d.created_at}`;
  if (d.status === 'dead') return `${d.target} dead (${d.last_error ?? 'no reason recorded'})`;
  const error = d.last_error ? `, last error: ${d.last_error}` : '';
  return `${d.target} pending since ${d.created_at} (next attempt ${d.next_attempt_at}${error})`;
}

/** A verdict that sends nothing (or, with `extra`, anything). */
export function no(
  r: { name: string; kind: Verdict['kind'] },
  outcome: Outcome,
  reason: string,
  extra: Partial<Verdict> = {},
): Verdict {
  return {
    rule: r.name,
    kind: r.kind,
    outcome,
    fires: false,
    targets: [],
    reason,
    deliveries: [],
    reminders: [],
    ...extra,
  };
}

/** Whether the notice is a stored one. */
export function stored(n: Notice | StoredNotice): n is StoredNotice {
  return 'baseline' in n;
}

function postedOf(n: Notice): UtcIso | null {
  return n.posted_at ?? n.service_created_at;
}

/** Posted longer ago than the alert age: the daemon never alerts on it, new or updated. */
export function tooOld(n: Notice, o: ExplainOptions): string | undefined {
  const posted = postedOf(n);
  if (posted === null || Date.parse(posted) >= o.now.getTime() - o.maxAlertAgeMs) return undefined;
  return `too old: posted ${posted}, more than ${formatDuration(o.maxAlertAgeMs)} ago; it never alerts`;
}

/** Why a notice stored by the baseline never alerts. */
export const BASELINE =
  'baseline: stored quietly when pipewatch started watching; never alerts as new';

/** The last thing the audit trail says this rule decided about the notice. */
export function lastDecision(rule: string, o: ExplainOptions): AuditEntry | undefined {
  return o.history?.audit.filter((a) => a.rule === rule).at(-1);
}

/** Why a rule that never saw a stored notice does not alert on it now. */
export function notInForce(n: StoredNotice, then: string): string {
  return (
    `before the rule: no decision of this rule is recorded; as written now it was not in force ` +
    `when pipewatch saw the notice (first seen ${n.first_seen_at}, last changed ${n.last_changed_at}). ` +
    `A notice is judged when it arrives or changes: ${then}`
  );
}

/** The pipeline part of an alert about `n`. */
export function pipelineOf(n: Notice) {
  return { slug: n.pipeline_slug, name: n.pipeline_name || n.pipeline_slug };
}
