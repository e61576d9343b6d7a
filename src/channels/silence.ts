/**
 * The end-of-silence summary as every channel words it: how the silence ended, and each
 * held alert as plain parts (what kind it was, its link or id), which each channel
 * escapes and lays out in its own markup. A channel lists as many of the summary's
 * alerts as fit its limits, newest first, then says how many more it held. The
 * headline is `text.ts`'s, where every alert's is.
 */
import type { AlertPayload, HeldAlert, SilenceSummary } from '../alerts/payload.js';
import { oneLine } from './text.js';

export { silenceEnded, silenceHeadline } from './text.js';

/** The most held alerts one summary lists: the newest, newest first. */
export const MAX_LISTED = 20;

/** The held alerts a message may list: the summary's, at most `MAX_LISTED`. */
export function listed(s: SilenceSummary): HeldAlert[] {
  return s.alerts.slice(0, MAX_LISTED);
}

/** `4 alerts`, `1 alert`. */
export function alertCount(count: number): string {
  return `${count} alert${count === 1 ? '' : 's'}`;
}

/** `While muted: 4 alerts`: the count, as the summary's first line says it. */
export function whileMuted(s: Pick<SilenceSummary, 'held'>): string {
  return `While muted: ${alertCount(s.held)}`;
}

/** `expired` / `lifted early`: how the silence ended. */
export function endedHow(s: Pick<SilenceSummary, 'ended_by'>): string {
  return s.ended_by === 'lifted' ? 'lifted early' : 'expired';
}

const LABELS: Record<string, string> = {
  'notice/new': 'new notice',
  'notice/updated': 'updated notice',
  'deadline/reminder': 'reminder',
  'capacity/firing': 'low OAC',
  'capacity/resolved': 'OAC recovered',
};

/** What kind of alert a held alert was: `new notice`, `reminder`, `low OAC`, … */
export function heldLabel(h: Pick<HeldAlert, 'kind' | 'state'>): string {
  return LABELS[`${h.kind}/${h.state}`] ?? oneLine(`${h.kind} ${h.state}`.replace(/-/g, ' '));
}

/**
 * How a held alert is found when it has no link: `notice #216650`, else the rule that
 * decided it, `rule transco-low-oac`.
 */
export function heldId(h: Pick<HeldAlert, 'notice_id' | 'rule'>): string {
  return h.notice_id === null ? `rule ${oneLine(h.rule)}` : `notice #${h.notice_id}`;
}

/**
 * Whether a held alert's pipeline is worth naming: a silence over every pipeline holds
 * alerts of several; a silence of one pipeline, only of that one.
 */
export function namesPipeline(p: AlertPayload, h: Pick<HeldAlert, 'pipeline'>): boolean {
  return h.pipeline !== p.pipeline.slug;
}

/** How many held alerts `listed` leaves out. */
export function unlisted(s: SilenceSummary): number {
  return Math.max(0, s.held - listed(s).length);
}

/** `…and 5 more`: the held alerts a message does not list. */
export function moreHeld(count: number): string {
  return `…and ${count} more`;
}

/**
 * How many of `lines` (in order, each joined to the previous by `sep` characters) fit in
 * `max`, keeping room for a `moreHeld` line whenever some are left out; `hidden` more
 * are left out whatever fits.
 */
export function fitHeld(lines: readonly string[], max: number, hidden: number, sep = 1): number {
  const reserve = moreHeld(lines.length + hidden).length + sep;
  let used = 0;
  let shown = 0;
  for (const [i, line] of lines.entries()) {
    const next = used + (shown > 0 ? sep : 0) + line.length;
    const rest = lines.length - i - 1 + hidden;
    if (next + (rest > 0 ? reserve : 0) > max) break;
    used = next;
    shown += 1;
  }
  return shown;
}
