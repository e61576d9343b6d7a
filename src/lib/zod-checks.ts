/**
 * zod checks that answer people who write YAML or environment values with precise,
 * friendly messages (quote '#ops', one of these keys, an email address). Rule files,
 * targets and configuration are built from them.
 */
import { z } from 'zod';

/**
 * An email address as a browser's email field takes it (the WHATWG form, zod's
 * `z.regexes.html5Email`), with a dot required in the domain as mail between
 * organisations needs: `gas-ops+alerts@example.com`, `o'brien@example.com`. It catches
 * the typos that would otherwise surface only when an alert is sent (`ops@example..com`,
 * `ops@example.com.`, `ops@example,com`) and refuses forms an ops mailbox does not use
 * (quoted names, non-ASCII, an IP address for a domain). Spaces around it are dropped.
 */
const EMAIL_PATTERN = new RegExp(z.regexes.html5Email.source.replace(/\)\*\$$/, ')+$'));

export const emailAddress = z
  .string()
  .trim()
  .check(z.email({ pattern: EMAIL_PATTERN, error: 'must be an email address' }));

/** Whether text is an email address by the same check, for a value that may be something else. */
export function isEmailAddress(text: string): boolean {
  return EMAIL_PATTERN.test(text);
}

/** Present in the payload as a mapping: checks of which keys are there run even when a value is bad. */
export const whenMapping = {
  when: (p: { value: unknown }) =>
    typeof p.value === 'object' && p.value !== null && !Array.isArray(p.value),
};

/** Exactly one of `keys`: none is a problem (unless an unknown key may be the typo), so is a second. */
export function exactlyOne(keys: readonly string[], none: string, second: (key: string) => string) {
  return (value: object, ctx: z.RefinementCtx) => {
    const given = keys.filter((k) => k in value);
    if (given.length === 0 && !ctx.issues.some((i) => i.code === 'unrecognized_keys')) {
      ctx.addIssue({ code: 'custom', message: none });
    }
    for (const key of given.slice(1)) {
      ctx.addIssue({ code: 'custom', path: [key], params: { at: 'key' }, message: second(key) });
    }
  };
}

/** `"#ops"` unquoted is a YAML comment; a long id unquoted is a number. */
export function textValue(what: string) {
  return z.string({
    error: (issue) =>
      issue.input === null
        ? `expected ${what}, got nothing — '#' starts a YAML comment, so quote it: "#ops"`
        : typeof issue.input === 'number'
          ? `expected ${what} as text — quote it: YAML reads unquoted digits as a number`
          : undefined,
  });
}

/**
 * An `http://` or `https://` URL by zod's own check (`z.url()`), spaces around it
 * dropped; the `//` is required, so `http:example.com` is the typo it looks like.
 */
export const httpUrl = z.url({
  protocol: z.regexes.httpProtocol,
  error: (issue) =>
    issue.code === 'invalid_format' ? 'must be an http:// or https:// URL' : undefined,
});

/**
 * Where a zod issue is, as people read a path into JSON: `data.options[0].value`. Logs
 * and refusals name the field at fault with it.
 */
export function issuePath(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`))
    .join('');
}

/** `2026-11-20T14:00:00Z`: an instant as pipewatch writes it (`lib/time.ts`), in UTC, to the second. */
export const utcInstant = () => z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
