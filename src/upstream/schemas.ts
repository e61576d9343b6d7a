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

function isRealDate(y: number, m: number, d: number): boolean {
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
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

/** `YYYY-MM-DD HH:MM:SS` (UTC) or "" → `UtcIso | null`. */
export const ApiDateTime = z
  .union([z.string(), z.null()])
  .optional()
  .transform((value, ctx): UtcIso | null => {
    if (value == null) return null;
    const parsed = parseApiDateTime(value);
    if (parsed === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `not a datetime: ${JSON.stringify(value.slice(0, 40))}`,
      });
      return z.NEVER;
    }
    return parsed;
  });

/** A calendar date `YYYY-MM-DD`. */
export const ApiDate = z.string().refine((v) => {
  const m = DATE_ONLY.exec(v);
  return m !== null && isRealDate(Number(m[1]), Number(m[2]), Number(m[3]));
}, 'not a date (YYYY-MM-DD)');

/** Text that may be absent, null or a number on the wire; always a string inside. */
export const ApiText = z
  .union([z.string(), z.number(), z.boolean(), z.null()])
  .optional()
  .transform((v) => (v == null ? '' : String(v)));

/** An integer id, sent as a number or as digits. */
export const ApiId = z.union([
  z.number().int().nonnegative(),
  z
    .string()
    .regex(/^\d+$/, 'not an integer id')
    .transform((v) => Number(v)),
]);

/**
 * A capacity quantity (dc, opc, tsq, oac): a JSON number, or a string of digits that may
 * carry thousands separators (`491,551`) or a decimal part. "" and null mean not given.
 */
export const ApiQuantity = z
  .union([z.number(), z.string(), z.null()])
  .optional()
  .transform((value, ctx): number | null => {
    if (value == null) return null;
    if (typeof value === 'number') {
      if (Number.isFinite(value)) return value;
    } else {
      const compact = value.trim().replace(/[,\s_]/g, '');
      if (compact === '') return null;
      if (/^-?\d+(?:\.\d+)?$/.test(compact)) return Number(compact);
    }
    ctx.addIssue({ code: 'custom', message: `not a quantity: ${JSON.stringify(value)}` });
    return z.NEVER;
  });

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
export const PipelineSchema = z.object({
  id: ApiId,
  name: ApiText,
  slug: ApiText,
  url: ApiText,
  tsp_name: ApiText,
  tsp_id: ApiText,
  service_created_at: ApiDateTime,
  service_updated_at: ApiDateTime,
});
export type Pipeline = z.output<typeof PipelineSchema>;

/** A critical notice (spec 2.2). */
export const NoticeSchema = z.object({
  id: ApiId,
  pipeline_id: ApiId,
  pipeline_name: ApiText,
  pipeline_slug: ApiText,
  pipeline_url: ApiText,
  subject: ApiText,
  identifier: ApiText,
  url: ApiText,
  category: ApiText,
  type: ApiText,
  status: ApiText,
  notice: ApiText,
  html: ApiText,
  mobile: ApiText,
  posted_at: ApiDateTime,
  effective_at: ApiDateTime,
  end_at: ApiDateTime,
  response_at: ApiDateTime,
  service_created_at: ApiDateTime,
  service_updated_at: ApiDateTime,
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
export const CapacityCycleSchema = z.object({
  id: ApiId,
  pipeline_id: ApiId,
  pipeline_name: ApiText,
  pipeline_slug: ApiText,
  pipeline_url: ApiText,
  identifier: ApiText,
  cycle: ApiText.transform((c) => c.trim().toLowerCase()),
  gas_day: ApiDate,
  service_created_at: ApiDateTime,
  service_updated_at: ApiDateTime,
});
export type CapacityCycleInfo = z.output<typeof CapacityCycleSchema>;

/** One location's capacity entry (spec 2.3); quantities are numbers or null. */
export const CapacityLocationSchema = z.object({
  id: ApiId,
  location: ApiText,
  identifier: ApiText,
  flow: ApiText,
  qti: ApiText,
  zone: ApiText,
  dc: ApiQuantity,
  opc: ApiQuantity,
  tsq: ApiQuantity,
  oac: ApiQuantity,
  it: ApiText,
  all: ApiText,
  reason: ApiText,
  service_created_at: ApiDateTime,
  service_updated_at: ApiDateTime,
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
  description: ApiText,
  type: ApiText,
});

/** A catalog table description (spec 2.4). */
export const TableDescriptionSchema = z.object({
  name: z.string(),
  description: ApiText,
  fields: z.array(TableFieldSchema),
  primary_key: ApiText,
});
export type TableDescription = z.output<typeof TableDescriptionSchema>;

/** `/catalog/hashes`: SHA-256 hex per catalog endpoint (`tables`, `notices`, `pipelines`). */
export const CatalogHashesSchema = z.record(
  z.string(),
  z.string().regex(/^[0-9a-fA-F]{64}$/, 'not a SHA-256 hex digest'),
);
export type CatalogHashes = z.output<typeof CatalogHashesSchema>;

/** `/hello`. */
export const HelloSchema = z.object({ name: ApiText });
export type Hello = z.output<typeof HelloSchema>;
