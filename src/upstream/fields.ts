/**
 * The fields of the API's records: how each kind of field is checked on the wire and
 * normalised (datetimes, quantities, ids, texts), and the limits on stored texts. The
 * schemas of each response (src/upstream/schemas.ts) are tables of these kinds.
 */
import { z } from 'zod';
import { grouped } from '../lib/quantity.js';
import type { UtcIso } from '../lib/time.js';
import { preview } from './preview.js';

const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|\+00:?00)?$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isRealDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const leap = m === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return d <= (DAYS_IN_MONTH[m - 1] ?? 0) + (leap ? 1 : 0);
}

/**
 * Parses the API's datetime text (UTC) into `UtcIso`, or `null` for "" and absent.
 * Far-future placeholders (`9000-12-31 00:00:00`) are valid instants and kept as given.
 */
export function parseApiDateTime(text: string): UtcIso | null | undefined {
  const trimmed = text.trim();
  if (trimmed === '' || /^0000-00-00[ T]00:00:00$/.test(trimmed)) return null;
  const m = DATETIME.exec(trimmed);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (!isRealDate(y, mo, d) || h > 23 || mi > 59 || s > 59) return undefined;
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`;
}

/**
 * A capacity quantity as a number, `null` for "" and absent; `undefined` when unreadable,
 * or too large for a finite number.
 */
export function parseQuantity(value: unknown): number | null | undefined {
  if (value == null) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const compact = value.trim().replace(/[,\s_]/g, '');
  if (compact === '') return null;
  if (!/^-?\d+(?:\.\d+)?$/.test(compact)) return undefined;
  // Digits past a double's range read as Infinity, which no threshold compares sensibly with.
  const n = Number(compact);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * Wire validators: plain zod types only, so zod's compiled fast path checks each record
 * (transforms per field cost six times as much). Normalising happens once per record,
 * in the object-level transform of each schema below. A rejected value is shown through
 * `preview`, which costs no more than it prints whatever the value holds.
 */
const show = (input: unknown) => preview(input);
/** Text as the API may send it (string, number, boolean or null); also for the catalog. */
export const wireText = z
  .union([z.string(), z.number(), z.boolean(), z.null()], {
    error: (issue) => `expected text, got ${show(issue.input)}`,
  })
  .optional();
const notA = (what: string) => ({
  error: (issue: { input?: unknown }) => `not ${what}: ${show(issue.input)}`,
});
/** Checked for its form and calendar once, in `dateTime`, where the value is converted. */
const wireDateTime = z.union([z.string(), z.null()], notA('a datetime')).optional();
const wireId = z.union(
  [
    z.number().int(notA('an integer id')).nonnegative(notA('an integer id')),
    z.string().regex(/^\d{1,15}$/, notA('an integer id')),
  ],
  notA('an integer id'),
);
const wireQuantity = z
  .union(
    [z.number(), z.string().regex(/^\s*-?[\d,\s_]*(?:\.\d+)?\s*$/, notA('a quantity')), z.null()],
    notA('a quantity'),
  )
  .optional();
const wireDate = z.string().regex(DATE_ONLY, 'not a date (YYYY-MM-DD)');

type Ctx = z.core.$RefinementCtx;

/**
 * The longest text a stored field may hold, in characters: the bodies of a notice and
 * the reason of a capacity entry (`longText`), and every other text (`text`, `lower`).
 * A record with a longer one is skipped like any malformed record, so that a broken or
 * hostile API cannot fill the database or the messages sent from it.
 */
export const TEXT_LIMITS = { text: 1_000, lower: 1_000, longText: 1_000_000 } as const;

/** What a field holds, and so how it is checked and normalised. */
type FieldKind = 'id' | 'text' | 'longText' | 'lower' | 'datetime' | 'date' | 'quantity';
interface KindOutput {
  id: number;
  text: string;
  longText: string;
  lower: string;
  datetime: UtcIso | null;
  date: string;
  quantity: number | null;
}
const WIRE = {
  id: wireId,
  text: wireText,
  longText: wireText,
  lower: wireText,
  datetime: wireDateTime,
  date: wireDate,
  quantity: wireQuantity,
} as const satisfies Record<FieldKind, z.ZodType>;

function normalise(kind: FieldKind, value: unknown, field: string, ctx: Ctx): unknown {
  switch (kind) {
    case 'id':
      return Number(value);
    case 'text':
    case 'longText':
    case 'lower': {
      const text = value == null ? '' : String(value);
      const limit = TEXT_LIMITS[kind];
      if (text.length > limit) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `too long: ${grouped(text.length)} characters, at most ${grouped(limit)}`,
          input: value,
        });
        return '';
      }
      return kind === 'lower' ? text.trim().toLowerCase() : text;
    }
    case 'datetime': {
      if (value == null) return null;
      const parsed = parseApiDateTime(value as string);
      if (parsed !== undefined) return parsed;
      ctx.addIssue({
        code: 'custom',
        path: [field],
        message: `not a datetime: ${show(value)}`,
        input: value,
      });
      return null;
    }
    case 'date': {
      const m = DATE_ONLY.exec(value as string);
      if (!m || !isRealDate(Number(m[1]), Number(m[2]), Number(m[3]))) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `not a date: ${show(value)}`,
          input: value,
        });
      }
      return value;
    }
    case 'quantity': {
      const parsed = parseQuantity(value);
      if (parsed !== undefined) return parsed;
      ctx.addIssue({
        code: 'custom',
        path: [field],
        message: `not a quantity: ${show(value)}`,
        input: value,
      });
      return null;
    }
  }
}

/**
 * The schema of one kind of record from a table of its fields: plain validators for the
 * wire, then one pass that normalises every field. Unknown fields are dropped; `id` and
 * `date` fields are required, the others may be absent.
 */
export function recordSchema<F extends Record<string, FieldKind>>(fields: F) {
  const entries = Object.entries(fields) as Array<[string, FieldKind]>;
  const shape = Object.fromEntries(entries.map(([name, kind]) => [name, WIRE[kind]]));
  return z.object(shape).transform((wire, ctx) => {
    const out: Record<string, unknown> = {};
    for (const [name, kind] of entries) out[name] = normalise(kind, wire[name], name, ctx);
    return out as { -readonly [K in keyof F]: KindOutput[F[K]] };
  });
}

/** Each kind as pipewatch stores it: the normalised value, checked for its form. */
const STORED = {
  id: z.number(),
  text: z.string(),
  longText: z.string(),
  lower: z.string(),
  datetime: z.string().nullable(),
  date: z.string(),
  quantity: z.number().nullable(),
} as const satisfies Record<FieldKind, z.ZodType>;

/**
 * The schema of a record as `recordSchema` gave it and pipewatch stored it (inside an
 * alert in the outbox, a notice's history), to read it back: every field of the table in
 * its normalised form, fields it does not name passed through.
 */
export function storedRecordSchema<F extends Record<string, FieldKind>>(fields: F) {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, kind] of Object.entries(fields)) shape[name] = STORED[kind];
  // One entry per field of F, each the schema of its kind: what the mapped type says.
  return z.looseObject(shape as { -readonly [K in keyof F]: (typeof STORED)[F[K]] });
}
