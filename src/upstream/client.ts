/**
 * A typed client of every endpoint of the Pipeline Information API (spec section 4).
 * Results carry the normalised `data`, the envelope's `meta` and `messages`, and the
 * records that had to be skipped. Notices can be walked page by page or one by one,
 * latest first, with a guarantee that the walk ends whatever the pagination says.
 */
import { z } from 'zod';
import { type Clock, systemClock } from '../lib/clock.js';
import { type Logger, silentLogger } from '../lib/logger.js';
import { VERSION } from '../lib/version.js';
import type { RequestContext } from './errors.js';
import {
  type RateLimit,
  type RawEnvelope,
  type Timeouts,
  Transport,
  type TransportStats,
} from './http.js';
import {
  type PageWalk,
  paginationOf,
  type WalkEnd,
  type WalkedPage,
  walkPages,
} from './pagination.js';
import { parseRecords, parseStrict, type RecordIssue } from './records.js';
import { defaultRetryPolicy, type RetryPolicy } from './retry.js';
import {
  type Capacity,
  type CapacityCycle,
  CapacityCycleSchema,
  CapacityLocationSchema,
  type CatalogHashes,
  CatalogHashesSchema,
  type Hello,
  HelloSchema,
  type Notice,
  NoticeSchema,
  type Pipeline,
  PipelineSchema,
  type TableDescription,
  TableDescriptionSchema,
} from './schemas.js';

export interface ClientOptions {
  /** `{base_url}` of the API; `/api/v1` is appended. */
  baseUrl: string;
  user?: string | undefined;
  key?: string | undefined;
  timeouts?: Partial<Timeouts>;
  rateLimit?: Partial<RateLimit>;
  retry?: Partial<RetryPolicy>;
  /** A response body larger than this fails with `BodyTooLargeError` (default 20 MB). */
  maxBodyBytes?: number;
  clock?: Clock;
  /** Source of jitter; inject for deterministic backoff. */
  random?: () => number;
  logger?: Logger;
  /** Called once for each distinct message text the API sends in a successful envelope. */
  onMessage?: (message: string) => void;
}

/** Defaults of the client, declared once. */
export const clientDefaults = {
  timeouts: { connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000, totalMs: 60_000 },
  rateLimit: { maxConcurrent: 1, minTimeMs: 500 },
  retry: defaultRetryPolicy,
  /** `PIPEWATCH_API_MAX_BODY`'s default: a page of notices is some 50 KB. */
  maxBodyBytes: 20_000_000,
} as const satisfies {
  timeouts: Timeouts;
  rateLimit: RateLimit;
  retry: RetryPolicy;
  maxBodyBytes: number;
};

/** A parsed response. */
export interface ApiResult<T> {
  data: T;
  meta: Record<string, unknown>;
  /** The envelope's informational messages (the demo account's restrictions, for one). */
  messages: string[];
  /** Records that were malformed and left out of `data`. */
  skipped: RecordIssue[];
}

/** One page of `/ip/notices`. */
export interface NoticePage extends ApiResult<Notice[]>, WalkedPage {
  data: Notice[];
  /** The page that was asked for. */
  page: number;
}

export interface NoticeQuery {
  /** Pipeline slug. */
  pipeline?: string | undefined;
}

/** A walk over `/ip/notices`, of one pipeline or all. */
export interface NoticeWalk extends NoticeQuery, PageWalk {}

export interface CapacityQuery {
  cycle?: CapacityCycle | undefined;
  /** `YYYY-MM-DD`. */
  gasDay?: string | undefined;
  signal?: AbortSignal | undefined;
}

const MetaSchema = z.record(z.string(), z.unknown()).catch({});

export class PipelineApiClient {
  private readonly transport: Transport;
  private readonly seenMessages = new Set<string>();
  private readonly logger: Logger;
  private skippedTotal = 0;
  /** Why the most recent notice walk ended. */
  lastWalkEnd: WalkEnd | undefined;

  constructor(private readonly options: ClientOptions) {
    this.logger = options.logger ?? silentLogger;
    this.transport = new Transport({
      baseUrl: options.baseUrl,
      user: options.user,
      key: options.key,
      userAgent: `pipewatch/${VERSION} node/${process.versions.node}`,
      timeouts: { ...clientDefaults.timeouts, ...options.timeouts },
      rateLimit: { ...clientDefaults.rateLimit, ...options.rateLimit },
      retry: { ...clientDefaults.retry, ...options.retry },
      maxBodyBytes: options.maxBodyBytes ?? clientDefaults.maxBodyBytes,
      clock: options.clock ?? systemClock,
      random: options.random ?? Math.random,
      logger: this.logger,
    });
  }

  /** Every distinct message the API has sent so far, in order of first appearance. */
  get messages(): readonly string[] {
    return [...this.seenMessages];
  }

  /** Request counters, plus the number of malformed records skipped. */
  get stats(): TransportStats & { skippedRecords: number } {
    return { ...this.transport.stats, skippedRecords: this.skippedTotal };
  }

  /** `GET /hello`, or `POST /hello` with a form-encoded `name` when one is given. */
  async hello(name?: string): Promise<ApiResult<Hello>> {
    const env = await this.send(
      name === undefined
        ? { method: 'GET', path: '/hello' }
        : { method: 'POST', path: '/hello', form: { name } },
    );
    return this.single(env, HelloSchema, '/hello');
  }

  /** `GET /catalog/hashes`: SHA-256 of each catalog endpoint's JSON, to detect structure changes. */
  async catalogHashes(signal?: AbortSignal): Promise<ApiResult<CatalogHashes>> {
    return this.single(
      await this.send({ method: 'GET', path: '/catalog/hashes', ...(signal ? { signal } : {}) }),
      CatalogHashesSchema,
      '/catalog/hashes',
    );
  }

  /** `GET /catalog/tables`: descriptions of the `notices` and `pipelines` tables. */
  async catalogTables(): Promise<ApiResult<TableDescription[]>> {
    return this.single(
      await this.send({ method: 'GET', path: '/catalog/tables' }),
      z.array(TableDescriptionSchema),
      '/catalog/tables',
    );
  }

  /** `GET /catalog/table/{name}`. */
  async catalogTable(
    name: 'notices' | 'pipelines',
    signal?: AbortSignal,
  ): Promise<ApiResult<TableDescription>> {
    const path = `/catalog/table/${name}`;
    return this.single(
      await this.send({ method: 'GET', path, ...(signal ? { signal } : {}) }),
      TableDescriptionSchema,
      path,
    );
  }

  /** `GET /ip/pipelines`. */
  async pipelines(signal?: AbortSignal): Promise<ApiResult<Pipeline[]>> {
    const env = await this.send({
      method: 'GET',
      path: '/ip/pipelines',
      ...(signal ? { signal } : {}),
    });
    const { records, skipped } = parseRecords(
      PipelineSchema,
      env.data,
      this.context('/ip/pipelines'),
      'data',
    );
    return this.result(env, records, skipped);
  }

  /** `GET /ip/notices`: one page, latest first. */
  async notices(
    query: NoticeQuery & { page?: number | undefined; signal?: AbortSignal } = {},
  ): Promise<NoticePage> {
    const page = query.page ?? 1;
    const env = await this.send({
      method: 'GET',
      path: '/ip/notices',
      query: { pipeline: query.pipeline, page },
      ...(query.signal ? { signal: query.signal } : {}),
    });
    const context = this.context(`/ip/notices?page=${page}`);
    const { records, skipped } = parseRecords(NoticeSchema, env.data, context, 'data');
    const pagination = paginationOf(env.meta);
    const result = this.result(env, records, skipped);
    return { ...result, page, pagination, rawCount: (env.data as unknown[]).length };
  }

  /** Walks `/ip/notices` latest first until `walkPages` ends it; `lastWalkEnd` says why. */
  async *noticePages(walk: NoticeWalk = {}): AsyncGenerator<NoticePage, WalkEnd> {
    this.lastWalkEnd = undefined;
    const fetchPage = (page: number) =>
      this.notices({ pipeline: walk.pipeline, page, signal: walk.signal });
    return yield* walkPages(fetchPage, walk, (end) => {
      this.lastWalkEnd = end;
    });
  }

  /** Every notice of a walk, latest first. */
  async *allNotices(walk: NoticeWalk = {}): AsyncGenerator<Notice> {
    for await (const page of this.noticePages(walk)) yield* page.data;
  }

  /** `GET /ip/capacity/{slug}`: one cycle's operationally available capacity. */
  async capacity(slug: string, query: CapacityQuery = {}): Promise<ApiResult<Capacity>> {
    const path = `/ip/capacity/${encodeURIComponent(slug)}`;
    const env = await this.send({
      method: 'GET',
      path,
      query: { cycle: query.cycle, gas_day: query.gasDay },
      ...(query.signal ? { signal: query.signal } : {}),
    });
    const context = this.context(path);
    const data = parseStrict(
      z.object({ cycle: z.unknown(), locations: z.unknown() }),
      env.data,
      context,
      'data',
    );
    const cycle = parseStrict(CapacityCycleSchema, data.cycle, context, 'data.cycle');
    const { records, skipped } = parseRecords(
      CapacityLocationSchema,
      data.locations,
      context,
      'data.locations',
    );
    return this.result(env, { cycle, locations: records }, skipped);
  }

  /** Closes pooled connections; the client is unusable afterwards. */
  async close(): Promise<void> {
    await this.transport.close();
  }

  private async send(req: Parameters<Transport['send']>[0]): Promise<RawEnvelope> {
    const env = await this.transport.send(req);
    for (const message of env.messages) {
      if (this.seenMessages.has(message)) continue;
      this.seenMessages.add(message);
      this.logger.info({ apiMessage: message }, `API message: ${message}`);
      this.options.onMessage?.(message);
    }
    return env;
  }

  private context(endpoint: string): RequestContext {
    return { method: 'GET', endpoint, host: this.transport.host };
  }

  private single<S extends z.ZodType>(
    env: RawEnvelope,
    schema: S,
    endpoint: string,
  ): ApiResult<z.output<S>> {
    return this.result(env, parseStrict(schema, env.data, this.context(endpoint), 'data'), []);
  }

  private result<T>(env: RawEnvelope, data: T, skipped: RecordIssue[]): ApiResult<T> {
    for (const issue of skipped) {
      this.logger.warn(
        { endpoint: issue.endpoint, recordId: issue.id, field: issue.field },
        `skipped malformed record ${issue.id ?? issue.location}: ${issue.field}: ${issue.message}`,
      );
    }
    this.skippedTotal += skipped.length;
    return { data, meta: MetaSchema.parse(env.meta), messages: env.messages, skipped };
  }
}
