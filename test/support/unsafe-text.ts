/**
 * Characters no rendered message may carry: C0 and C1 controls (the newline aside),
 * bidirectional overrides and isolates, and the line and paragraph separators that
 * break a line where no one wrote one.
 */
export const UNSAFE_IN_MESSAGES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
