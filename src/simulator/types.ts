/**
 * The wire format of the Pipeline Information API as the simulator serves it. These types
 * describe JSON on the wire, not pipewatch's own model: the client parses them on its own.
 */
import type { Cycle } from '../domain/gas-day.js';

export type { Cycle } from '../domain/gas-day.js';

/** A capacity `cycle` query value: a nomination cycle or `latest`. */
export type CycleQuery = 'latest' | Cycle;

/** Every response, errors included, is wrapped in this envelope. */
export interface Envelope<T = unknown> {
  status: 'success' | 'error';
  messages: string[];
  meta: Record<string, unknown>;
  data: T;
}

/** A pipeline as /ip/pipelines returns it (spec 2.1). */
export interface WirePipeline {
  id: number;
  name: string;
  slug: string;
  url: string;
  tsp_name: string;
  tsp_id: string;
  service_created_at: string;
  service_updated_at: string;
}

/** A notice as /ip/notices returns it (spec 2.2). Datetimes are `YYYY-MM-DD HH:MM:SS` or "". */
export interface WireNotice {
  id: number;
  pipeline_id: number;
  pipeline_name: string;
  pipeline_slug: string;
  pipeline_url: string;
  subject: string;
  identifier: string;
  url: string;
  category: string;
  type: string;
  status: string;
  notice: string;
  html: string;
  mobile: string;
  posted_at: string;
  effective_at: string;
  end_at: string;
  response_at: string;
  service_created_at: string;
  service_updated_at: string;
}

/** The notice fields a control operation may set; the pipeline and id are fixed. */
export type NoticeFields = Omit<
  WireNotice,
  'id' | 'pipeline_id' | 'pipeline_name' | 'pipeline_slug' | 'pipeline_url'
>;

/** A capacity quantity: a JSON number for some pipelines, a string for others. */
export type Quantity = number | string;

/** One location entry of a capacity result (spec 2.3). */
export interface WireLocation {
  id: number;
  location: string;
  identifier: string;
  flow: string;
  qti: string;
  zone: string;
  dc: Quantity;
  opc: Quantity;
  tsq: Quantity;
  oac: Quantity;
  it: string;
  all: string;
  reason: string;
  service_created_at: string;
  service_updated_at: string;
}

/** The `cycle` object of a capacity result (spec 2.3). */
export interface WireCycle {
  id: number;
  pipeline_id: number;
  pipeline_name: string;
  pipeline_slug: string;
  pipeline_url: string;
  identifier: string;
  cycle: Cycle;
  gas_day: string;
  service_created_at: string;
  service_updated_at: string;
}

/** The `data` of /ip/capacity/{slug}. */
export interface WireCapacity {
  cycle: WireCycle;
  locations: WireLocation[];
}

/** One field of a catalog table description. */
export interface WireTableField {
  name: string;
  description: string;
  type: string;
}

/** A catalog table description (spec 2.4). */
export interface WireTable {
  name: string;
  description: string;
  fields: WireTableField[];
  primary_key: string;
}

/** The catalog tables the service describes. */
export type CatalogTable = 'notices' | 'pipelines';

/** The location fields a control operation may set; quantities as numbers or numeric strings. */
export interface LocationOverride {
  identifier: string;
  location?: string;
  flow?: string;
  qti?: string;
  zone?: string;
  dc?: number | string;
  opc?: number | string;
  tsq?: number | string;
  oac?: number | string;
  it?: string;
  all?: string;
  reason?: string;
}

/** Input of publishCycle. */
export interface PublishCycleInput {
  pipeline_slug: string;
  cycle: Cycle;
  gas_day?: string;
  locations?: LocationOverride[];
  /** Keep a cycle not posted yet at its posting time; its values apply when it posts. */
  on_schedule?: boolean;
}

/** The kinds of failure the simulator can inject, to exercise a client's error handling. */
export type FaultKind =
  | '500'
  | '503'
  | '429'
  | 'delay'
  | 'malformed-json'
  | 'broken-record'
  | 'reset'
  | 'large-body'
  | 'deep-record';

/** A queued fault. `path` is a prefix of the path after /api/v1; default: every path. */
export interface FaultSpec {
  kind: FaultKind;
  count?: number;
  path?: string;
  retryAfter?: number;
  delayMs?: number;
  /** `large-body`: about how many bytes the body has, streamed. */
  bytes?: number;
  /** `deep-record`: how many levels of arrays one field of one record holds. */
  depth?: number;
  /** `large-body`, `deep-record`: the record's field that takes the value. */
  field?: string;
}
