/**
 * A log event as one line for a person at a terminal: `14:05:09 INFO  message`, an
 * error's message on the same line (never its stack), and the event's fields after it
 * only when asked for (at `LOG_LEVEL=debug` or `trace`). The messages are written to be
 * read alone; the fields are for whoever is digging. Text that came from outside (notice
 * subjects, platform answers) cannot move the cursor, colour the terminal or reorder the
 * line: control characters and bidirectional controls (U+202E) never reach it, as
 * nothing printed for people carries them (`terminalSafe`).
 */
import { escapeJsonForTerminal, type Painter, type Style, terminalSafe } from './terminal.js';

/** How one line is drawn. */
export interface LogLineOptions {
  paint: Painter;
  /** Show the event's fields after the message. */
  fields: boolean;
}

/** pino's level numbers, with the width-5 label and colour each is shown in. */
const LEVELS: Record<number, { label: string; style: Style[] }> = {
  10: { label: 'TRACE', style: ['grey'] },
  20: { label: 'DEBUG', style: ['blue'] },
  30: { label: 'INFO ', style: ['green'] },
  40: { label: 'WARN ', style: ['yellow'] },
  50: { label: 'ERROR', style: ['red'] },
  60: { label: 'FATAL', style: ['red', 'bold'] },
};

/** pino's own keys, shown by position rather than as fields. */
const OWN_KEYS = new Set(['time', 'level', 'msg', 'name', 'pid', 'hostname']);
/** Keys pino and the code use for errors, whose message joins the line's. */
const ERROR_KEYS = ['err', 'error'];
/** A field value longer than this is clipped on the terminal (JSON output keeps it whole). */
const MAX_VALUE = 200;

/** A run of control characters with the spaces around it, which becomes one space. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
const CONTROL_RUN = / ?[\u0000-\u001f\u007f-\u009f\u2028\u2029]+ ?/g;
/** A string shown without quotes: no space, quote, `=` or backslash. */
const BARE = /^[^\s"'=\\]+$/;

/** One line (no newline at the end) for a parsed pino record. */
export function formatLogLine(record: Record<string, unknown>, options: LogLineOptions): string {
  const { paint } = options;
  const level = LEVELS[Number(record.level)] ?? { label: String(record.level), style: [] };
  const parts = [paint(clock(record.time), 'dim'), paint(level.label, ...level.style)];
  const error = errorMessage(record);
  let message = singleLine(typeof record.msg === 'string' ? record.msg : '');
  if (error !== undefined && !message.includes(error))
    message = message === '' ? error : `${message}: ${error}`;
  parts.push(message);
  let line = parts.join(' ');
  if (options.fields) {
    const shown = Object.entries(record)
      .filter(([k, v]) => !OWN_KEYS.has(k) && !(ERROR_KEYS.includes(k) && isErrorLike(v)))
      .map(([k, v]) => `${k}=${fieldValue(v)}`);
    if (shown.length > 0) line += `  ${paint(shown.join(' '), 'dim')}`;
  }
  return line;
}

/**
 * Newlines become `; ` (or a space after a colon, which already introduces what follows),
 * other control characters a space, bidirectional controls nothing: the event stays on
 * one line, in the order it was written.
 */
function singleLine(text: string): string {
  return terminalSafe(
    text
      .replace(/(:?)[ \t]*(?:\r\n?|\n)\s*/g, (_, colon: string) => (colon ? ': ' : '; '))
      .replace(CONTROL_RUN, ' '),
  ).trim();
}

/** `HH:MM:SS` in local time from pino's ISO time or epoch milliseconds. */
function clock(time: unknown): string {
  const at = new Date(typeof time === 'number' || typeof time === 'string' ? time : Date.now());
  if (Number.isNaN(at.getTime())) return '--:--:--';
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
}

function isErrorLike(value: unknown): boolean {
  return (
    typeof value === 'string' ||
    (typeof value === 'object' && value !== null && typeof (value as Error).message === 'string')
  );
}

/** The message of the event's error (`err`, serialised by pino, or a plain string). */
function errorMessage(record: Record<string, unknown>): string | undefined {
  for (const key of ERROR_KEYS) {
    const value = record[key];
    if (typeof value === 'string') return singleLine(value);
    if (isErrorLike(value)) return singleLine((value as Error).message);
  }
  return undefined;
}

/**
 * `word`, `"two words"`, `12`, `["a","b"]`: compact, unambiguous, one line, clipped; a
 * control character as its JSON escape (`\u202e`), so a field shows what it holds.
 */
function fieldValue(value: unknown): string {
  const text =
    typeof value === 'string' &&
    BARE.test(value) &&
    value.replace(CONTROL_RUN, '') === value &&
    terminalSafe(value) === value
      ? value
      : escapeJsonForTerminal(JSON.stringify(value) ?? String(value));
  if (text.length <= MAX_VALUE) return text;
  let end = MAX_VALUE - 1;
  if (/[\ud800-\udbff]/.test(text.charAt(end - 1))) end -= 1;
  return `${text.slice(0, end)}…`;
}
