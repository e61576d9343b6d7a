/**
 * The store: one SQLite file holding everything pipewatch knows, with a repository per
 * table group. Writes that belong together (a page of notices and the decisions they
 * cause) go through `transaction`, so they land together or not at all.
 */
import { join } from 'node:path';
import type { UtcIso } from '../lib/time.js';
import { AckStore } from './acks.js';
import { AuditStore } from './audit.js';
import { CapacityStore } from './capacity.js';
import { CapacityAlertStore } from './capacity-alerts.js';
import { CatalogStore } from './catalog.js';
import {
  DATABASE_FILE,
  type Db,
  type OpenOptions,
  openDatabase,
  openDatabaseReadonly,
} from './database.js';
import { EscalationStore } from './escalations.js';
import { InteractionStore } from './interactions.js';
import { KeyStore } from './keys.js';
import { NoticeStore } from './notices.js';
import { OutageStore } from './outages.js';
import { OutboxStore } from './outbox.js';
import { PipelineStore } from './pipelines.js';
import { ReminderStore } from './reminders.js';
import { RetentionStore } from './retention.js';
import { holdRunLock, type RunLock } from './run-lock.js';
import { SilenceStore } from './silences.js';
import { SubscriptionStore } from './subscriptions.js';
import { SyncStateStore } from './sync-state.js';
import { ThreadStore } from './threads.js';

export { DATABASE_FILE, DatabaseError, type OpenOptions } from './database.js';

/** Row counts, for status output. */
export interface StoreCounts {
  pipelines: number;
  notices: number;
  capacity_cycles: number;
}

export class Store {
  readonly notices: NoticeStore;
  readonly pipelines: PipelineStore;
  readonly capacity: CapacityStore;
  readonly syncState: SyncStateStore;
  readonly catalog: CatalogStore;
  readonly outbox: OutboxStore;
  readonly audit: AuditStore;
  readonly threads: ThreadStore;
  readonly reminders: ReminderStore;
  readonly capacityAlerts: CapacityAlertStore;
  readonly subscriptions: SubscriptionStore;
  readonly silences: SilenceStore;
  readonly acks: AckStore;
  readonly escalations: EscalationStore;
  readonly keys: KeyStore;
  readonly interactions: InteractionStore;
  readonly retention: RetentionStore;
  readonly outages: OutageStore;

  /**
   * Called before each synchronous transaction: the asynchronous store on this connection
   * (`async-sqlite.ts`) refuses one that would land inside its open transaction unasked.
   */
  beforeTransaction: (() => void) | undefined;

  constructor(readonly db: Db) {
    this.reminders = new ReminderStore(db);
    this.notices = new NoticeStore(db, (notice) => this.reminders.noticeStored(notice));
    this.pipelines = new PipelineStore(db);
    this.capacity = new CapacityStore(db);
    this.syncState = new SyncStateStore(db);
    this.catalog = new CatalogStore(db);
    this.outbox = new OutboxStore(db, this.notices);
    this.audit = new AuditStore(db);
    this.threads = new ThreadStore(db);
    this.capacityAlerts = new CapacityAlertStore(db);
    this.subscriptions = new SubscriptionStore(db);
    this.silences = new SilenceStore(db);
    this.acks = new AckStore(db);
    this.escalations = new EscalationStore(db);
    this.keys = new KeyStore(db);
    this.interactions = new InteractionStore(db);
    this.retention = new RetentionStore(db);
    this.outages = new OutageStore(db);
  }

  /**
   * Opens `<dataDir>/pipewatch.db` (or `:memory:`), creating the directory 0700 and the
   * files 0600; `options.warn` hears of a data directory open to other users.
   */
  static open(dataDirOrMemory: string, options: OpenOptions = {}): Store {
    return new Store(
      openDatabase(
        dataDirOrMemory === ':memory:' ? ':memory:' : join(dataDirOrMemory, DATABASE_FILE),
        undefined,
        options,
      ),
    );
  }

  /** Opens `<dataDir>/pipewatch.db` read-only; it must exist and be current. */
  static openReadonly(dataDir: string): Store {
    return new Store(openDatabaseReadonly(join(dataDir, DATABASE_FILE)));
  }

  private runLock: RunLock | undefined;

  /**
   * Takes the lock that makes this process the one `pipewatch run` of the database in
   * `dataDir` (`run-lock.ts`), held until `close`; a `DatabaseError` naming the process
   * that holds it already.
   */
  holdRunLock(dataDir: string, now: UtcIso, warn?: (message: string) => void): void {
    this.runLock ??= holdRunLock(dataDir, now, warn);
  }

  /**
   * Runs `fn` in one transaction (nested calls join the outer one). When `fn` throws,
   * what it wrote is rolled back, and the stores forget what they remembered writing.
   */
  transaction<T>(fn: () => T): T {
    this.beforeTransaction?.();
    try {
      return this.db.transaction(fn)();
    } catch (error) {
      this.notices.forgetWrittenWords();
      throw error;
    }
  }

  counts(): StoreCounts {
    return {
      pipelines: this.pipelines.count(),
      notices: this.notices.count(),
      capacity_cycles: this.capacity.count(),
    };
  }

  /** Closes the database (which checkpoints the WAL), then lets go of the run lock. */
  close(): void {
    if (this.db.open) this.db.close();
    this.runLock?.release();
    this.runLock = undefined;
  }
}
