/**
 * End dates that mean "until further notice". Pipelines without an end for a notice often
 * post a placeholder far in the future instead (`9000-12-31`, `2049-12-31`); shown as a
 * date it reads as a real end ("Tue, Dec 30, 9000"). Real ends are hours to a few years
 * after a notice is posted, so an end this far after the notice's own dates is read as a
 * placeholder.
 */

/** An end at least this many years after the notice's posting is a placeholder. */
export const PLACEHOLDER_YEARS = 20;

/** An end in or after this year is a placeholder whatever else the notice says. */
const PLACEHOLDER_YEAR = 9000;

const YEAR_MS = 365.25 * 24 * 3_600_000;

/** The notice dates the rule reads. */
export interface NoticeEnd {
  end_at: string | null;
  posted_at: string | null;
  effective_at: string | null;
}

/**
 * Whether `end_at` is a placeholder for "until further notice": `PLACEHOLDER_YEARS` or
 * more after the notice was posted (or took effect, when it has no posting time), or in
 * the year 9000 or later.
 */
export function isOpenEnded(n: NoticeEnd): boolean {
  if (!n.end_at) return false;
  const end = Date.parse(n.end_at);
  if (Number.isNaN(end)) return false;
  if (new Date(end).getUTCFullYear() >= PLACEHOLDER_YEAR) return true;
  const from = Date.parse(n.posted_at ?? n.effective_at ?? '');
  return !Number.isNaN(from) && end - from >= PLACEHOLDER_YEARS * YEAR_MS;
}

/** The words every channel shows for a placeholder end. */
export const UNTIL_FURTHER_NOTICE = 'until further notice';

/**
 * The notice as the JSON pipewatch gives others (the webhook body, `--json`): a
 * placeholder end is `null`, and `open_ended` says it was one.
 */
export function withOpenEnd<T extends NoticeEnd>(n: T): T & { open_ended: boolean } {
  const open = isOpenEnded(n);
  return { ...n, end_at: open ? null : n.end_at, open_ended: open };
}
