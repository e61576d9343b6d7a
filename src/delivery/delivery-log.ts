/**
 * The log lines of deliveries: one per alert sent or given up on, saying which rule, to
 * where, about what, and what the platform answered (or why it never will), so whoever
 * watches the log sees every alert leave without opening the database:
 *
 *   sent transco-constraints → slack:#gas-constraints: notice #216601 "Capacity
 *   Constraint - Station 165" (ok channel=C0GAS ts=1732111200.000100)
 *
 * The same facts are fields for JSON output. Nothing secret is written: webhook targets
 * lose their path, query and credentials, and text passes through the dispatcher's scrub.
 */
import type { OutboxRow } from '../alerts/outbox.js';
import type { AlertPayload } from '../alerts/payload.js';
import { clip, oneLine } from '../channels/text.js';
import { targetLabel } from '../domain/targets.js';
import type { Logger } from '../lib/logger.js';
import type { UnreadableDelivery } from '../store/outbox.js';

/** A notice subject is clipped to this many characters in a log line. */
const SUBJECT_MAX = 60;
/** A capacity line names this many locations, then counts the rest. */
const LOCATIONS_SHOWN = 3;
/** At most this many location names go into the JSON fields. */
const LOCATIONS_MAX = 50;

/** Replaces secrets in text; the dispatcher's scrub. */
export type Scrub = (text: string) => string;

/** What an alert is about, as a phrase and as fields. */
export interface AlertSummary {
  text: string;
  fields: Record<string, unknown>;
}

/**
 * `notice #216601 "Capacity Constraint - Station 165"`, `update of notice #…`,
 * `reminder for notice #…`, `low capacity at STATION 85, LEIDY, WHARTON and 2 more
 * (transco timely cycle, gas day 2026-11-21)`, `capacity recovered at …`,
 * `operations: the API's catalog …`, `end of silence #12: 4 alerts held while muted
 * (pipeline=transco)`.
 */
export function summarise(p: AlertPayload): AlertSummary {
  const fields: Record<string, unknown> = {
    kind: p.kind,
    state: p.state,
    pipeline: p.pipeline.slug,
  };
  if (p.kind === 'capacity' && p.capacity) {
    const names = p.capacity.locations.map((l) => oneLine(l.location) || oneLine(l.identifier));
    const shown = names.slice(0, LOCATIONS_SHOWN).join(', ');
    const more =
      names.length > LOCATIONS_SHOWN ? ` and ${names.length - LOCATIONS_SHOWN} more` : '';
    const what = p.state === 'resolved' ? 'capacity recovered' : 'low capacity';
    return {
      text: `${what} at ${shown}${more} (${p.pipeline.slug} ${p.capacity.cycle} cycle, gas day ${p.capacity.gas_day})`,
      fields: {
        ...fields,
        locations: names.slice(0, LOCATIONS_MAX),
        cycle: p.capacity.cycle,
        gas_day: p.capacity.gas_day,
      },
    };
  }
  if (p.kind === 'operations' && p.operations) {
    return {
      text: `operations: ${clip(oneLine(p.operations.summary), 120)}`,
      fields: { ...fields, event: p.operations.event },
    };
  }
  if (p.kind === 'silence' && p.silence) {
    const s = p.silence;
    const held = `${s.held} alert${s.held === 1 ? '' : 's'}`;
    return {
      text: `end of silence #${s.id}: ${held} held while muted (${clip(oneLine(s.matchers), 120)})`,
      fields: { ...fields, silence: s.id, held: s.held },
    };
  }
  if (p.notice) {
    const subject = clip(oneLine(p.notice.subject), SUBJECT_MAX);
    const lead =
      p.kind === 'deadline'
        ? 'reminder for notice'
        : p.state === 'updated'
          ? 'update of notice'
          : 'notice';
    return {
      text: `${lead} #${p.notice.id} "${subject}"`,
      fields: { ...fields, notice_id: p.notice.id, subject },
    };
  }
  return { text: `${p.kind} ${p.state}`, fields };
}

/** One line for each alert of a message the platform confirmed, each with its answer. */
export function logSent(
  logger: Logger,
  rows: readonly OutboxRow[],
  detail: string,
  scrub: Scrub,
): void {
  for (const row of rows) {
    const { head, fields } = facts(row, rows.length, scrub);
    logger.info({ ...fields, detail }, `sent ${head} (${detail})`);
  }
}

/** One line for each alert of a message that will never be delivered, with the reason. */
export function logDead(
  logger: Logger,
  rows: readonly OutboxRow[],
  reason: string,
  permanent: boolean,
  scrub: Scrub,
): void {
  for (const row of rows) {
    const { head, fields } = facts(row, rows.length, scrub);
    logger.error({ ...fields, reason, permanent }, `could not send ${head} (${reason})`);
  }
}

/** `rule → target: about`, and the fields both lines share. */
function facts(
  row: OutboxRow,
  digestSize: number,
  scrub: Scrub,
): { head: string; fields: Record<string, unknown> } {
  const target = scrub(targetLabel(row.target));
  const about = summarise(row.payload);
  const text = scrub(about.text);
  const fields: Record<string, unknown> = { rule: row.rule, target, ...about.fields };
  if (typeof fields.subject === 'string') fields.subject = scrub(fields.subject);
  if (digestSize > 1) fields.digest_size = digestSize;
  return { head: `${row.rule} → ${target}: ${text}`, fields };
}

/**
 * One line for a delivery whose stored alert cannot be read back: it will never be sent.
 * Its target is shown as `targetLabel` shows it, or by its kind alone when that much is
 * all that can be read.
 */
export function logUnreadable(logger: Logger, row: UnreadableDelivery, scrub: Scrub): void {
  const target = scrub(row.target ? targetLabel(row.target) : unreadableTarget(row.target_key));
  const subject = clip(oneLine(row.subject), SUBJECT_MAX);
  logger.error(
    { rule: row.rule, target, subject, reason: row.reason, permanent: true },
    `could not send ${row.rule} → ${target}: ${subject} (${row.reason})`,
  );
}

/** A target key that could not be read as a target: its kind, the rest left out. */
function unreadableTarget(key: string): string {
  const colon = key.indexOf(':');
  return colon < 0 ? clip(oneLine(key), 20) : `${clip(oneLine(key.slice(0, colon)), 20)}:…`;
}
