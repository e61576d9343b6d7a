/**
 * The console channel's message: a first line that says everything (`ALERT <rule> →
 * <target>: <pipeline> …`), then indented detail lines: the notice's times in the
 * pipeline's zone, the next nomination cycle at the send time (`../next-cycle.ts`), its
 * link, its first lines of text, a capacity alert's locations, the
 * alerts a silence held back (each with its link or id, then how many more). A
 * reminder says how long is left at the send time. Control characters are removed, so
 * upstream text cannot move the cursor or fake another alert line.
 */
import type { AlertPayload, SilenceSummary } from '../../alerts/payload.js';
import { inTimeLeft } from '../../lib/duration.js';
import { quantity } from '../../lib/quantity.js';
import { nextCycleLine } from '../next-cycle.js';
import {
  endedHow,
  heldId,
  heldLabel,
  listed,
  moreHeld,
  namesPipeline,
  unlisted,
} from '../silence.js';
import {
  changeLines,
  clip,
  localTime,
  noticeText,
  noticeTimes,
  oneLine,
  PLAIN_MARKS,
  silenceHeadline,
  timeLeftMs,
} from '../text.js';

const TEXT_LINES = 3;

/** The first line: rule, target, pipeline and what happened; `now` is the send time. */
export function alertLine(p: AlertPayload, target: string, now?: string): string {
  const head = `ALERT ${p.rule} → ${target}: ${p.pipeline.slug}`;
  if (p.kind === 'notice' && p.notice) {
    const changed = changedNames(p);
    return oneLine(
      `${head} ${p.state} notice #${p.notice.id} [${p.notice.type}] ${p.notice.subject}${changed}`,
    );
  }
  if (p.kind === 'deadline' && p.notice && p.deadline) {
    const d = p.deadline;
    const left = timeLeftMs(p, now);
    const when =
      left === undefined ? `in ${d.before}` : `due ${inTimeLeft(left)} (the ${d.before} reminder)`;
    return oneLine(
      `${head} reminder${d.late ? ' (late)' : ''}: ${d.field} ${d.at} ${when} for #${p.notice.id} ${p.notice.subject}`,
    );
  }
  if (p.kind === 'capacity' && p.capacity) {
    const l = p.capacity.locations[0];
    const more =
      p.capacity.locations.length > 1 ? ` (+${p.capacity.locations.length - 1} more)` : '';
    return oneLine(
      `${head} capacity ${p.state} at ${l?.location} (${l?.identifier})${more}: OAC ${quantity(l?.oac ?? null)}, threshold ${quantity(l?.threshold ?? null)} (${p.capacity.cycle} cycle, gas day ${p.capacity.gas_day})`,
    );
  }
  if (p.kind === 'operations' && p.operations)
    return oneLine(`ALERT ${p.rule} → ${target}: ${p.operations.summary}`);
  if (p.kind === 'silence' && p.silence)
    return oneLine(`${head} ${silenceHeadline(p.silence)} (${clip(p.silence.matchers, 200)})`);
  return oneLine(`${head} ${p.kind} ${p.state}`);
}

/** The whole block: the alert line and its detail lines; `now` is the send time. */
export function renderConsole(p: AlertPayload, target: string, now?: string): string {
  const lines = [alertLine(p, target, now)];
  const detail = (text: string) => lines.push(`    ${oneLine(text)}`);
  const next = nextCycleLine(p, now);
  if (p.notice) {
    const times = noticeTimes(p.notice).map(
      (t) => `${t.label} ${'at' in t ? localTime(t.at, p.zone) : t.text}`,
    );
    detail(`${p.notice.category} · ${p.notice.status} · ${times.join(' · ')}`);
    if (next) detail(next);
    for (const line of changeDetails(p)) detail(line);
    if (/^https?:\/\//i.test(p.notice.url)) detail(p.notice.url);
    const text = noticeText(p.notice)
      .split('\n')
      .filter((l) => l.trim() !== '');
    for (const line of text.slice(0, TEXT_LINES)) detail(clip(line, 160));
    if (text.length > TEXT_LINES) detail(`… ${text.length - TEXT_LINES} more lines`);
  }
  if (p.kind === 'capacity' && p.capacity) {
    if (next) detail(next);
    for (const l of p.capacity.locations) {
      const unit = l.unit === 'percent' ? '% of OPC' : '';
      const repeat = l.repeat ? ' (repeat: still low)' : '';
      detail(
        `${l.location} (${l.identifier}) ${l.flow}: OAC ${quantity(l.oac)} of OPC ${quantity(l.opc)}, threshold ${quantity(l.threshold)}${unit}, clears above ${quantity(l.clear_above)}${unit}${repeat}`,
      );
    }
  }
  if (p.kind === 'silence' && p.silence) lines.push(...silenceDetails(p, p.silence));
  return lines.join('\n');
}

/** ` (changed: Status, Ends, Text)`: what changed by name, or the API's names on an alert without `changes`. */
function changedNames(p: AlertPayload): string {
  const names = p.changes ? p.changes.map((c) => c.label) : p.changed;
  return names && names.length > 0 ? ` (changed: ${clip(names.join(', '), 200)})` : '';
}

/**
 * What changed, a line each (`Status: Initiate → Revised`, words as `[-removed-]
 * {+added+}`), after the notice it supersedes and its link.
 */
function changeDetails(p: AlertPayload): string[] {
  const lines = changeLines(p, PLAIN_MARKS).map(([label, value]) => `${label}: ${value}`);
  const s = p.supersedes;
  if (s) {
    const link = /^https?:\/\//i.test(s.url) ? ` ${clip(s.url, 300)}` : '';
    lines.unshift(
      `Supersedes notice ${s.identifier || `#${s.id}`}: ${clip(oneLine(s.subject), 120)}${link}`,
    );
  }
  return lines;
}

/** When the silence lasted, then one line per held alert it lists, then how many more. */
function silenceDetails(p: AlertPayload, s: SilenceSummary): string[] {
  const lines = [
    `From ${localTime(s.started_at, p.zone)} until ${localTime(s.ended_at, p.zone)} (${endedHow(s)})`,
    ...listed(s).map((h) => {
      const where = namesPipeline(p, h) ? ` · ${clip(h.pipeline, 60)}` : '';
      const link = h.url !== null && /^https?:\/\//i.test(h.url) ? h.url : heldId(h);
      return `${localTime(h.at, p.zone)}${where} · ${heldLabel(h)} · ${clip(oneLine(h.title), 120)} · ${clip(link, 300)}`;
    }),
  ];
  if (unlisted(s) > 0) lines.push(moreHeld(unlisted(s)));
  return lines.map((l) => `    ${oneLine(l)}`);
}
