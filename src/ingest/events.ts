/**
 * What ingest tells the next stage. Events are handed to hooks inside the transaction
 * that stored their cause, so whatever the next stage writes lands with it or not at all.
 */
import type { Counter, Gauge, Histogram } from 'prom-client';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { UtcIso } from '../lib/time.js';
import type { AsyncStore } from '../store/async-store.js';
import type { PipelineApiClient } from '../upstream/client.js';
import type {
  CapacityCycleInfo,
  CapacityLocation,
  Notice,
  TableDescription,
} from '../upstream/schemas.js';

/** A notice that is new to pipewatch, or changed since it was last seen. */
export interface NoticeEvent {
  kind: 'notice';
  change: 'new' | 'updated';
  notice: Notice;
  /** 1 for a new notice; counts up with each change. */
  version: number;
  /** For `updated`: the fields that changed. */
  changedFields: (keyof Notice)[];
  /** For `updated`: the version it replaced. */
  previous: Notice | undefined;
  /** Posted longer ago than `PIPEWATCH_MAX_ALERT_AGE`: stored, but must not alert. */
  tooOld: boolean;
  seenAt: UtcIso;
}

/** A capacity cycle that is new to pipewatch, or changed since it was last fetched. */
export interface CapacityEvent {
  kind: 'capacity';
  change: 'new' | 'updated';
  cycle: CapacityCycleInfo;
  locations: CapacityLocation[];
  version: number;
  seenAt: UtcIso;
}

/** The API's catalog changed: a table's structure may have moved under us. */
export interface SchemaDriftEvent {
  kind: 'schema-drift';
  /** Catalog endpoint name: `tables`, `notices` or `pipelines`. */
  table: string;
  previousHash: string;
  hash: string;
  description: TableDescription | null;
  seenAt: UtcIso;
}

/** The API's list of tracked pipelines was read: rules naming other slugs can be reported. */
export interface PipelinesEvent {
  kind: 'pipelines';
  /** Every slug the API tracks now. */
  slugs: string[];
  /** Slugs not known before this sync. */
  added: string[];
  seenAt: UtcIso;
}

export type IngestEvent = NoticeEvent | CapacityEvent | SchemaDriftEvent | PipelinesEvent;

/**
 * Receivers of ingest events. Each is awaited inside the transaction that stored the
 * events' cause, so it awaits only store calls (on SQLite the transaction holds the one
 * connection until it ends); throwing rolls that transaction back, and the next sync
 * tries again.
 */
export interface IngestHooks {
  notices?(events: NoticeEvent[]): Promise<void>;
  /**
   * Notices new to the store but stored quietly, newest first: the baseline's, and those
   * found later that the service created before it. They never alert as new; their
   * deadlines still count.
   */
  baseline?(notices: Notice[]): Promise<void>;
  capacity?(event: CapacityEvent): Promise<void>;
  schemaDrift?(event: SchemaDriftEvent): Promise<void>;
  pipelines?(event: PipelinesEvent): Promise<void>;
  /**
   * The hooks for the calls of one transaction (a slice of a page of notices). What each
   * call would otherwise read for itself (the rules in force, the silences, the
   * pipelines' zones, the time) they may read once for the transaction, so another
   * process's change to them is seen at the next transaction. Without it, each call is
   * on its own.
   */
  transaction?(): IngestHooks;
}

/** The metrics the syncs keep (the daemon's `Metrics` has them, with the others). */
export interface IngestMetrics {
  syncs: Counter<'feed' | 'result'>;
  syncErrors: Counter<'feed' | 'code'>;
  syncDuration: Histogram<'feed'>;
  lastSuccess: Gauge<'feed'>;
  notices: Counter<'change'>;
  capacityCycles: Counter<'change'>;
  skippedRecords: Counter<'feed'>;
}

/** What every sync works with: the API, the store, the time, where to log and report. */
export interface IngestDeps {
  client: PipelineApiClient;
  store: AsyncStore;
  clock: Clock;
  logger: Logger;
  hooks?: IngestHooks | undefined;
  metrics?: IngestMetrics | undefined;
}
