/**
 * zod schemas for every response of the Pipeline Information API, and the normalised
 * types they produce. The wire format is loose (spec sections 2 and 4): datetimes are
 * `YYYY-MM-DD HH:MM:SS` UTC or "" when absent, quantities are numbers or strings with
 * thousands separators, pagination URLs are absolute or paths, and fields may be added.
 * Normalised values are ISO 8601 UTC strings (`2026-11-20T14:05:00Z`) or `null`, numbers,
 * and strings ("" when absent), with the field names of the spec so users recognise them.
 */
import { z } from 'zod';
import { grouped } from '../lib/quantity.js';
import { recordSchema, storedRecordSchema, TEXT_LIMITS, wireText } from './fields.js';
import { preview } from './preview.js';

export { parseApiDateTime, parseQuantity, TEXT_LIMITS } from './fields.js';

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

/**
 * The envelope's messages kept. They are logged: the transport redacts each and then
 * cuts it at `TEXT_LIMITS.text` characters (`clipMessage`), in that order.
 */
const MAX_MESSAGES = 20;

/** An API message as it is logged and stored: at most `TEXT_LIMITS.text` characters. */
export function clipMessage(text: string): string {
  return text.length > TEXT_LIMITS.text ? `${text.slice(0, TEXT_LIMITS.text)}…` : text;
}

/** The envelope every response comes in (spec section 1). */
export const EnvelopeSchema = z.object({
  status: z.string(),
  messages: z
    .union([z.array(z.unknown()), z.string(), z.null()])
    .optional()
    .transform((m) =>
      (m == null ? [] : Array.isArray(m) ? m : [m])
        .slice(0, MAX_MESSAGES)
        .map((x) => (typeof x === 'string' ? x : preview(x, TEXT_LIMITS.text))),
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

/** The fields of a critical notice (spec 2.2), and what each holds. */
const NOTICE_FIELDS = {
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
  notice: 'longText',
  html: 'longText',
  mobile: 'longText',
  posted_at: 'datetime',
  effective_at: 'datetime',
  end_at: 'datetime',
  response_at: 'datetime',
  service_created_at: 'datetime',
  service_updated_at: 'datetime',
} as const;

/** A critical notice (spec 2.2). */
export const NoticeSchema = recordSchema(NOTICE_FIELDS);
export type Notice = z.output<typeof NoticeSchema>;

/** A notice as pipewatch stored it (in an alert, in its history), read back. */
export const StoredNoticeSchema = storedRecordSchema(NOTICE_FIELDS) satisfies z.ZodType<Notice>;

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

/** The fields of one location's capacity entry (spec 2.3). */
const CAPACITY_LOCATION_FIELDS = {
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
  reason: 'longText',
  service_created_at: 'datetime',
  service_updated_at: 'datetime',
} as const;

/** One location's capacity entry (spec 2.3); quantities are numbers or null. */
export const CapacityLocationSchema = recordSchema(CAPACITY_LOCATION_FIELDS);
export type CapacityLocation = z.output<typeof CapacityLocationSchema>;

/** A capacity entry as pipewatch stored it in an alert, read back. */
export const StoredCapacityLocationSchema = storedRecordSchema(
  CAPACITY_LOCATION_FIELDS,
) satisfies z.ZodType<CapacityLocation>;

/** A capacity result: the cycle and the locations that parsed. */
export interface Capacity {
  cycle: CapacityCycleInfo;
  locations: CapacityLocation[];
}

/** A field of a catalog table description (spec 2.4). */
/** Catalog text, kept as sent (its hash is checked) and refused when over the limit. */
const catalogText = (limit: number) =>
  wireText
    .transform((v) => String(v ?? ''))
    .refine((t) => t.length <= limit, `too long: more than ${grouped(limit)} characters`);
const catalogName = z.string().max(TEXT_LIMITS.text, 'too long');

export const TableFieldSchema = z.object({
  name: catalogName,
  description: catalogText(TEXT_LIMITS.longText),
  type: catalogText(TEXT_LIMITS.text),
});

/** A catalog table description (spec 2.4). */
export const TableDescriptionSchema = z.object({
  name: catalogName,
  description: catalogText(TEXT_LIMITS.longText),
  fields: z.array(TableFieldSchema),
  primary_key: catalogText(TEXT_LIMITS.text),
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
