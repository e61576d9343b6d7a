/**
 * The zod schemas of environment values: durations, bounded numbers, slug lists,
 * addresses. Each failure message starts with "is" or "must", so that it reads after the
 * variable's name in a configuration error.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { parseTarget } from '../domain/targets.js';
import { formatByteSize, parseByteSize } from '../lib/byte-size.js';
import { formatDuration, parseDuration } from '../lib/duration.js';
import { errorMessage } from '../lib/error-text.js';
import { isEmailAddress } from '../lib/zod-checks.js';

/** Raw text, trimmed; unset and blank both become `undefined`. */
export const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/** A duration of at least `minMs` milliseconds, returned in milliseconds. */
export function duration(minMs: number) {
  return z.string().transform((v, ctx) => {
    const ms = parseDuration(v);
    if (ms === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'is not a duration (a number and a unit: s, m, h or d)',
      });
      return z.NEVER;
    }
    if (ms < minMs) {
      ctx.addIssue({ code: 'custom', message: `is below the minimum of ${formatDuration(minMs)}` });
      return z.NEVER;
    }
    return ms;
  });
}

/**
 * A duration of at least `minMs`, or `off` (also `0`): keep for ever, returned as 0.
 * `0` reads as "no limit" because a limit of nothing kept is never what is meant.
 */
export function durationOrOff(minMs: number) {
  const limited = duration(minMs);
  return z.string().transform((v, ctx) => {
    const text = v.trim().toLowerCase();
    if (text === 'off' || text === '0') return 0;
    const parsed = limited.safeParse(v);
    if (parsed.success) return parsed.data;
    ctx.addIssue({
      code: 'custom',
      message: `${parsed.error.issues[0]?.message ?? 'is not a duration'}, nor off`,
    });
    return z.NEVER;
  });
}

/** A size from `min` to `max` bytes (`20MB`, `512KB`), returned in bytes. */
export function byteSize(min: number, max: number) {
  return z.string().transform((v, ctx) => {
    const bytes = parseByteSize(v);
    if (bytes === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'is not a size (a number and a unit: B, KB, MB or GB)',
      });
      return z.NEVER;
    }
    if (bytes < min || bytes > max) {
      ctx.addIssue({
        code: 'custom',
        message: `must be between ${formatByteSize(min)} and ${formatByteSize(max)}`,
      });
      return z.NEVER;
    }
    return bytes;
  });
}

/** A whole number from `min` to `max`. */
export function integer(min: number, max: number) {
  return z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be between ${min} and ${max}`);
}

/** A number above zero, decimals allowed. */
export function positiveNumber() {
  return z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'must be a number')
    .transform(Number)
    .refine((n) => n > 0, 'must be greater than 0');
}

/** Text that must start with `prefix` (token kinds tell themselves apart this way). */
export function prefixed(prefix: string, what: string) {
  return z
    .string()
    .refine((v) => v.startsWith(prefix), `must be ${what} starting with "${prefix}"`);
}

/** `true` or `false`, in any case. */
export const boolean = z
  .string()
  .transform((v) => v.toLowerCase())
  .refine((v) => v === 'true' || v === 'false', 'must be true or false')
  .transform((v) => v === 'true');

/**
 * An address to listen on: an IP address (`127.0.0.1`, `::1`; `0.0.0.0` or `::` for
 * every interface) or `localhost`. Other host names are refused: which interfaces one
 * resolves to is up to DNS, so what is exposed would be too.
 */
export const listenHost = z
  .string()
  .refine(
    (v) => isIP(v) !== 0 || v.toLowerCase() === 'localhost',
    'must be an IP address (127.0.0.1, 0.0.0.0, ::1, ::) or localhost',
  );

/**
 * A bearer token (RFC 6750 characters: letters, digits, `-._~+/`, trailing `=`) of at
 * least 16 characters, so that it goes in an `Authorization` header as it is.
 */
export const bearerToken = z
  .string()
  .regex(/^[A-Za-z0-9\-._~+/]+=*$/, 'must be letters, digits and -._~+/ only (no spaces)')
  .min(16, 'must be at least 16 characters');

/**
 * `alerts@example.com` or `pipewatch <alerts@example.com>`, the address checked as rule
 * files' email targets are (`isEmailAddress`).
 */
export const emailAddress = z
  .string()
  .refine(
    (v) => isEmailAddress(v) || isEmailAddress(/^[^<>]*<([^<>]+)>$/.exec(v)?.[1] ?? ''),
    'must be an email address, optionally with a name: "pipewatch <alerts@example.com>"',
  );

/** A comma-separated list of pipeline slugs, lower-cased and without repeats. */
export const slugList = z.string().transform((v, ctx) => {
  const slugs = v
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const bad = slugs.find((s) => !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(s));
  if (bad !== undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `must be pipeline slugs separated by commas; "${bad}" is not a slug`,
    });
    return z.NEVER;
  }
  return [...new Set(slugs)];
});

/** A target written as `kind:value`, as in a rule file. */
export const target = z.string().transform((v, ctx) => {
  try {
    return parseTarget(v);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: `is not a target: ${errorMessage(error)}` });
    return z.NEVER;
  }
});

/** Chat user ids separated by commas: Slack's `U0ALICE`/`W0BOB`, Discord's snowflakes. */
export const chatUserList = z.string().transform((v, ctx) => {
  const ids = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = ids.find((s) => !/^(?:[UW][A-Z0-9]{4,}|\d{17,20})$/.test(s));
  if (bad !== undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `must be Slack user ids (U…, W…) or Discord user ids (digits) separated by commas; "${bad}" is neither`,
    });
    return z.NEVER;
  }
  return [...new Set(ids)];
});
