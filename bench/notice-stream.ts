/**
 * The notices `chat_ack` keeps storing while commands are answered: new notices, 20 a
 * page, each page its JSON text as the API sends it, parsed, validated and stored by
 * `ingestNoticePage` with the engine's hooks deciding alerts in the same transaction (on
 * the asynchronous store of `store`'s connection, as the daemon stores them), one page a
 * turn of the event loop. The notices are one a minute back in time.
 */
import type { IngestHooks } from '../src/ingest/events.js';
import { ingestNoticePage } from '../src/ingest/notice-sync.js';
import { toUtcIso } from '../src/lib/time.js';
import { PIPELINES } from '../src/simulator/pipelines.js';
import { asyncStoreOf } from '../src/store/async-sqlite.js';
import type { AsyncStore } from '../src/store/async-store.js';
import type { Store } from '../src/store/index.js';
import { parseRecords } from '../src/upstream/records.js';
import { NoticeSchema } from '../src/upstream/schemas.js';
import { wireNotice } from './fixtures.js';
import { TYPES } from './rules.js';

const PER_PAGE = 20;

/** `2026-11-24 15:07:00`, as the API writes times. */
const apiTime = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** New notices, one page a turn of the event loop while running, newest first. */
export class NoticeStream {
  pages = 0;
  readonly pageMs: number[] = [];
  private next = 0;
  private running = false;
  private stopped: Promise<void> = Promise.resolve();
  private readonly start = Date.now();
  private readonly context = { method: 'GET', endpoint: '/ip/notices', host: 'bench' };
  private readonly store: AsyncStore;

  constructor(
    store: Store,
    private readonly hooks: IngestHooks,
  ) {
    this.store = asyncStoreOf(store);
  }

  /** One page of 20: its JSON text as the API sends it, parsed, validated and stored. */
  async page(): Promise<void> {
    const started = performance.now();
    const data = Array.from({ length: PER_PAGE }, () => {
      const i = this.next++;
      const pipeline = PIPELINES[(i * 7) % PIPELINES.length]!;
      const at = apiTime(this.start - i * 60_000);
      return {
        ...wireNotice(i),
        pipeline_id: pipeline.id,
        pipeline_name: pipeline.name,
        pipeline_slug: pipeline.slug,
        type: TYPES[(i * 3) % TYPES.length],
        posted_at: at,
        effective_at: at,
        service_created_at: at,
        service_updated_at: at,
      };
    });
    const text = JSON.stringify({ status: 'success', data });
    const parsed = (JSON.parse(text) as { data: unknown }).data;
    const { records } = parseRecords(NoticeSchema, parsed, this.context, 'data');
    await ingestNoticePage(this.store, records, {
      seenAt: toUtcIso(new Date()),
      baseline: false,
      alertableAfter: '2000-01-01T00:00:00Z',
      pipelines: new Set(),
      hooks: this.hooks,
    });
    this.pages++;
    if (this.running) this.pageMs.push(performance.now() - started);
  }

  /** Stores a page every turn of the event loop until `stop`. */
  run(): void {
    this.running = true;
    this.stopped = new Promise((resolve, reject) => {
      const turn = () => {
        if (!this.running) return resolve();
        this.page().then(() => setImmediate(turn), reject);
      };
      setImmediate(turn);
    });
  }

  stop(): Promise<void> {
    this.running = false;
    return this.stopped;
  }
}
