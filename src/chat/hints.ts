/**
 * pipewatch's own hints in a chat reply (`unmute 3`, `list`), kept apart from what people
 * and notices wrote. A reply's text is plain, and every front end escapes all of it, so
 * a backtick anyone typed shows as typed and formats nothing; a hint is wrapped in two
 * private-use characters instead, which no platform shows and no one types, and each
 * front end turns them into its own code markup as it escapes the rest (`renderHints`). Text a person
 * wrote can at worst add a code span of its own, whose inside is escaped like the rest.
 */

const OPEN = '\uE000';
const CLOSE = '\uE001';
const MARKS = /[\uE000\uE001]/g;
const SPAN = /\uE000([^\uE000\uE001]*)\uE001/g;

/** `text` as one of pipewatch's hints, shown as code on every platform. */
export function hint(text: string): string {
  return `${OPEN}${text.replace(MARKS, '')}${CLOSE}`;
}

/**
 * The text for a platform: what people and notices wrote escaped by `plain`, each hint by
 * `code` (which adds the platform's code markup), and any mark left unpaired dropped.
 */
export function renderHints(
  text: string,
  plain: (text: string) => string,
  code: (hint: string) => string,
): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(SPAN)) {
    out += plain(text.slice(last, m.index).replace(MARKS, '')) + code(m[1] ?? '');
    last = m.index + m[0].length;
  }
  return out + plain(text.slice(last).replace(MARKS, ''));
}

/** The text with its hints in backticks, for logs, the command line and tests. */
export function plainHints(text: string): string {
  return renderHints(
    text,
    (t) => t,
    (h) => `\`${h}\``,
  );
}
