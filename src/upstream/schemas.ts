/**
 * zod schemas for every response of the Pipeline Information API, and the normalised
 * types they produce. The wire format is loose (spec sections 2 and 4): datetimes are
 * `YYYY-MM-DD HH:MM:SS` UTC or "" when absent, quantities are numbers or strings with
 * thousands separators, pagination URLs are absolute or paths, and fields may be added.
 * Normalised values are ISO 8601 UTC strings (`2026-11-20T14:05:00Z`) or `null`, numbers,
 * and strings ("" when absent), with the field names of the spec so users recognise them.
 */
import { z } from 'zod';

/** A UTC instant written `YYYY-MM-DDTHH:MM:SSZ`; lexical order is time order. */
export type UtcIso = string;

const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|\+00:?00)?$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Formats an instant as `YYYY-MM-DDTHH:MM:SSZ` (no milliseconds), the project's JSON form. */
export function toUtcIso(date: Date): UtcIso {
  return `${date.toISOString().slice(0, 19)}Z`;
}

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

/** A capacity quantity as a number, `null` for "" and absent; `undefined` when unreadable. */
export function parseQuantity(value: unknown): number | null | undefined {
  if (value == null) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const compact = value.trim().replace(/[,\s_]/g, '');
  if (compact === '') return null;
  return /^-?\d+(?:\.\d+)?$/.test(compact) ? Number(compact) : undefined;
}

/**
 * Wire validators: plain zod types only, so zod's compiled fast path checks each record
 * (transforms per field cost six times as much). Normalising happens once per record,
 * in the object-level transform of each schema below.
 */
const show = (input: unknown) => JSON.stringify(input)?.slice(0, 40) ?? String(input);
const wireText = z
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

/** What a field holds, and so how it is checked and normalised. */
type FieldKind = 'id' | 'text' | 'lower' | 'datetime' | 'date' | 'quantity';
interface KindOutput {
  id: number;
  text: string;
  lower: string;
  datetime: UtcIso | null;
  date: string;
  quantity: number | null;
}
const WIRE = {
  id: wireId,
  text: wireText,
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
      return value == null ? '' : String(value);
    case 'lower':
      return value == null ? '' : String(value).trim().toLowerCase();
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
function recordSchema<F extends Record<string, FieldKind>>(fields: F) {
  const entries = Object.entries(fields) as Array<[string, FieldKind]>;
  const shape = Object.fromEntries(entries.map(([name, kind]) => [name, WIRE[kind]]));
  return z.object(shape).transform((wire, ctx) => {
    const out: Record<string, unknown> = {};
    for (const [name, kind] of entries) out[name] = normalise(kind, wire[name], name, ctx);
    return out as { -readonly [K in keyof F]: KindOutput[F[K]] };
  });
}

/** An integer where being wrong must not fail the response (pagination hints). */
const LooseInt = z
  .unknown()
  .transform((v) => {
    const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
    return typeof n === 'number' && Number.isInteger(n) ? n : null;
  })
  .optional()
  .transform((v) => v ?? null);

/**
 * A pagination link, absolute (`https://host/api/v1/ip/notices?page=2`) or a path
 * (`/api/v1/ip/notices?page=2`); normalised to the path and query. Unusable → null.
 */
const LooseUrlRef = z
  .unknown()
  .transform((v) => {
    if (typeof v !== 'string' || v.trim() === '') return null;
    try {
      const url = new URL(v.trim(), 'http://relative.invalid');
      return `${url.pathname}${url.search}`;
    } catch {
      return null;
    }
  })
  .optional()
  .transform((v) => v ?? null);

/** The envelope every response comes in (spec section 1). */
export const EnvelopeSchema = z.object({
  status: z.string(),
  messages: z
    .union([z.array(z.unknown()), z.string(), z.null()])
    .optional()
    .transform((m) =>
      (m == null ? [] : Array.isArray(m) ? m : [m]).map((x) =>
        typeof x === 'string' ? x : JSON.stringify(x),
      ),
    ),
  meta: z.unknown().optional(),
  data: z.unknown().optional(),
});

/** A tracked pipeline (spec 2.1). */
export const PipelineSchema = recordSchema({
  id: 'id',
  name: 'text',
  slug: 'text',
  url: 'text',
  tsp_name: 'text',
  tsp_id: 'text',
  service_created_at: 'datetime',
  service_updated_at: 'datetime',
});
export type Pipeline = z.output<typeof PipelineSchema>;

/** A critical notice (spec 2.2). */
export const NoticeSchema = recordSchema({
  id: 'id',
  pipeline_id: 'id',
  pipeline_name: 'text',
  pipeline_slug: 'text',
  pipeline_url: 'text',
  subject: 'text',
  identifier: 'text',
  url: 'text',
  category: 'text',
  type: 'text',
  status: 'text',
  notice: 'text',
  html: 'text',
  mobile: 'text',
  posted_at: 'datetime',
  effective_at: 'datetime',
  end_at: 'datetime',
  response_at: 'datetime',
  service_created_at: 'datetime',
  service_updated_at: 'datetime',
});
export type Notice = z.output<typeof NoticeSchema>;

/** `meta.pagination` of `/ip/notices` (spec 4.3); every field optional and loose. */
export const PaginationSchema = z.object({
  total_results: LooseInt,
  total_pages: LooseInt,
  page_previous: LooseInt,
  page_next: LooseInt,
  page_current: LooseInt,
  current_page: LooseInt,
  current_result: LooseInt,
  current_result_first: LooseInt,
  current_result_last: LooseInt,
  per_page: LooseInt,
  url_next: LooseUrlRef,
  url_current: LooseUrlRef,
  url_previous: LooseUrlRef,
});
export type Pagination = z.output<typeof PaginationSchema>;

/** The nomination cycles the capacity endpoint knows, `latest` included. */
export const CAPACITY_CYCLES = ['latest', 'timely', 'evening', 'id1', 'id2', 'id3'] as const;
export type CapacityCycle = (typeof CAPACITY_CYCLES)[number];

/** The `cycle` object of a capacity result (spec 2.3). */
export const CapacityCycleSchema = recordSchema({
  id: 'id',
  pipeline_id: 'id',
  pipeline_name: 'text',
  pipeline_slug: 'text',
  pipeline_url: 'text',
  identifier: 'text',
  cycle: 'lower',
  gas_day: 'date',
  service_created_at: 'datetime',
  service_updated_at: 'datetime',
});
export type CapacityCycleInfo = z.output<typeof CapacityCycleSchema>;

/** One location's capacity entry (spec 2.3); quantities are numbers or null. */
export const CapacityLocationSchema = recordSchema({
  id: 'id',
  location: 'text',
  identifier: 'text',
  flow: 'text',
  qti: 'text',
  zone: 'text',
  dc: 'quantity',
  opc: 'quantity',
  tsq: 'quantity',
  oac: 'quantity',
  it: 'text',
  all: 'text',
  reason: 'text',
  service_created_at: 'datetime',
  service_updated_at: 'datetime',
});
export type CapacityLocation = z.output<typeof CapacityLocationSchema>;

/** A capacity result: the cycle and the locations that parsed. */
export interface Capacity {
  cycle: CapacityCycleInfo;
  locations: CapacityLocation[];
}

/** A field of a catalog table description (spec 2.4). */
export const TableFieldSchema = z.object({
  name: z.string(),
  description: wireText.transform((v) => String(v ?? '')),
  type: wireText.transform((v) => String(v ?? '')),
});

/** A catalog table description (spec 2.4). */
export const TableDescriptionSchema = z.object({
  name: z.string(),
  description: wireText.transform((v) => String(v ?? '')),
  fields: z.array(TableFieldSchema),
  primary_key: wireText.transform((v) => String(v ?? '')),
});
export type TableDescription = z.output<typeof TableDescriptionSchema>;

/** `/catalog/hashes`: SHA-256 hex per catalog endpoint (`tables`, `notices`, `pipelines`). */
export const CatalogHashesSchema = z.record(
  z.string(),
  z.string().regex(/^[0-9a-fA-F]{64}$/, 'not a SHA-256 hex digest'),
);
export type CatalogHashes = z.output<typeof CatalogHashesSchema>;

/** `/hello`. */
export const HelloSchema = recordSchema({ name: 'text' });
export type Hello = z.output<typeof HelloSchema>;
