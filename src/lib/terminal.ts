/**
 * What a terminal gets that a pipe does not: colour. One rule decides it for everything
 * pipewatch prints, so logs and printed alerts agree, and it is read from the environment
 * a command was given rather than from `process`, so tests can set it.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
const UNSAFE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
/**
 * Bidirectional controls: they reorder what follows on the line (U+202E "right-to-left
 * override" shows `gnp.exe` as `exe.png`). Every reader of upstream text removes them.
 */
export const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text a terminal shows as it is: line breaks (CR LF, CR, U+2028/9) as `\n`, tabs as two
 * spaces, every other control character (ESC and C1 included, so no escape sequence can
 * run) and bidirectional control removed. Everything pipewatch prints for people passes
 * through it, since much of it was written by the pipelines.
 */
export function terminalSafe(text: string): string {
  return text
    .replace(/\r\n?|[\u2028\u2029]/g, '\n')
    .replace(/\t/g, '  ')
    .replace(UNSAFE, '')
    .replace(BIDI, '');
}

/** Line breaks and tabs, as the escapes that show them within one line. */
const BREAKS: Readonly<Record<string, string>> = {
  '\r': '\\r',
  '\n': '\\n',
  '\t': '\\t',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/**
 * Text for one field of a line people read (a table cell, a rule in one line): line
 * breaks and tabs shown as the escapes `\r`, `\n`, `\t`, `\u2028` and `\u2029`, so that
 * what someone typed (`text:"a\rb\nc"`, a pattern of three lines) stays in its field and
 * cannot print a row of its own. The other control characters are `terminalSafe`'s.
 */
export function inlineText(text: string): string {
  return text.replace(/[\r\n\t\u2028\u2029]/g, (c) => BREAKS[c]);
}

/** Characters that JSON leaves as they are but that a terminal acts on or reorders. */
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/**
 * JSON text with the characters a terminal would act on written as `\uXXXX` escapes: the
 * same JSON value (nothing is lost), safe to print. `JSON.stringify` already escapes the
 * C0 controls.
 */
export function escapeJsonForTerminal(json: string): string {
  return json.replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The environment variables the colour rule reads. */
export type ColourEnv = Readonly<Record<string, string | undefined>>;

/**
 * Whether to colour what goes to `stream`: only on a terminal, never when `NO_COLOR` is
 * set to anything but the empty string (https://no-color.org), and never when
 * `FORCE_COLOR` is `0` or `false`. Colour is never forced onto a pipe or a file, whose
 * reader is a program.
 */
export function colourWanted(
  env: ColourEnv,
  stream: NodeJS.WritableStream | { isTTY?: boolean },
): boolean {
  if ((stream as { isTTY?: unknown }).isTTY !== true) return false;
  if ((env.NO_COLOR ?? '') !== '') return false;
  const force = env.FORCE_COLOR?.trim().toLowerCase();
  return force !== '0' && force !== 'false';
}

/** The ANSI styles pipewatch uses, each with the code that ends it. */
const STYLES = {
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  blue: [34, 39],
  magenta: [35, 39],
  grey: [90, 39],
  bold: [1, 22],
  dim: [2, 22],
} as const;

/** A style name for `paint`. */
export type Style = keyof typeof STYLES;

/** Wraps text in ANSI styles, or returns it as it is when colour is off. */
export type Painter = (text: string, ...styles: Style[]) => string;

/** A painter that styles when `colour` is true and passes text through otherwise. */
export function painter(colour: boolean): Painter {
  if (!colour) return (text) => text;
  return (text, ...styles) =>
    styles.reduce((out, s) => `\u001b[${STYLES[s][0]}m${out}\u001b[${STYLES[s][1]}m`, text);
}
