/**
 * Each PostgreSQL repository mirrors its SQLite counterpart: every public method of the
 * one is on the other, with the same parameters, answering a promise of the same result.
 * The types are checked by the compiler (`Mirror`); the names, here at run time, so a
 * method added to a SQLite repository and not ported fails this suite.
 */
import { describe, expect, it } from 'vitest';
import { AckStore } from '../../../src/store/acks.js';
import { LEFT_OUT } from '../../../src/store/async-store.js';
import { AuditStore } from '../../../src/store/audit.js';
import { CapacityStore } from '../../../src/store/capacity.js';
import { CapacityAlertStore } from '../../../src/store/capacity-alerts.js';
import { CatalogStore } from '../../../src/store/catalog.js';
import { EscalationStore } from '../../../src/store/escalations.js';
import { InteractionStore } from '../../../src/store/interactions.js';
import { KeyStore } from '../../../src/store/keys.js';
import { NoticeStore } from '../../../src/store/notices.js';
import { OutageStore } from '../../../src/store/outages.js';
import { OutboxStore } from '../../../src/store/outbox.js';
import { PipelineStore } from '../../../src/store/pipelines.js';
import {
  PgAuditStore,
  PgEscalationStore,
  PgOutageStore,
  PgThreadStore,
} from '../../../src/store/postgres/alert-records.js';
import { PgCapacityStore } from '../../../src/store/postgres/capacity.js';
import { PgCapacityAlertStore } from '../../../src/store/postgres/capacity-alerts.js';
import {
  PgAckStore,
  PgInteractionStore,
  PgKeyStore,
} from '../../../src/store/postgres/chat-state.js';
import {
  PgCatalogStore,
  PgPipelineStore,
  PgSyncStateStore,
} from '../../../src/store/postgres/feed-state.js';
import { PgNoticeStore } from '../../../src/store/postgres/notices.js';
import { PgOutboxStore } from '../../../src/store/postgres/outbox.js';
import type { Connection } from '../../../src/store/postgres/queryable.js';
import { PgReminderStore } from '../../../src/store/postgres/reminders.js';
import { PgRetentionStore } from '../../../src/store/postgres/retention.js';
import { PgSilenceStore } from '../../../src/store/postgres/silences.js';
import { PgSubscriptionStore } from '../../../src/store/postgres/subscriptions.js';
import { ReminderStore } from '../../../src/store/reminders.js';
import { RetentionStore } from '../../../src/store/retention.js';
import { SilenceStore } from '../../../src/store/silences.js';
import { SubscriptionStore } from '../../../src/store/subscriptions.js';
import { SyncStateStore } from '../../../src/store/sync-state.js';
import { ThreadStore } from '../../../src/store/threads.js';

/** A repository's public methods, each answering a promise of what it returns. */
type Mirror<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R
    ? (...args: A) => Promise<Awaited<R>>
    : T[K];
};

/**
 * What a SQLite repository has that its PostgreSQL one need not: the methods the
 * asynchronous store leaves out (`LEFT_OUT`), and private ones, which are on the
 * prototype all the same.
 */
const NOT_MIRRORED: ReadonlyMap<object, readonly string[]> = new Map([
  [NoticeStore, [...LEFT_OUT.notices, 'metaOfOne', 'noteWords']],
]);

const methods = (c: { prototype: object }) =>
  Object.getOwnPropertyNames(c.prototype)
    .filter((n) => n !== 'constructor' && !NOT_MIRRORED.get(c)?.includes(n))
    .sort();

describe('the PostgreSQL repositories', () => {
  it('are each assignable to their SQLite counterpart, made asynchronous (checked by tsc)', () => {
    const mirrors = (db: Connection) => {
      return [
        new PgSubscriptionStore(db) satisfies Mirror<SubscriptionStore>,
        new PgSilenceStore(db) satisfies Mirror<SilenceStore>,
        new PgReminderStore(db) satisfies Mirror<ReminderStore>,
        new PgCapacityAlertStore(db) satisfies Mirror<CapacityAlertStore>,
        new PgCapacityStore(db) satisfies Mirror<CapacityStore>,
        new PgRetentionStore(db) satisfies Mirror<RetentionStore>,
        new PgAuditStore(db) satisfies Mirror<AuditStore>,
        new PgThreadStore(db) satisfies Mirror<ThreadStore>,
        new PgOutageStore(db) satisfies Mirror<OutageStore>,
        new PgEscalationStore(db) satisfies Mirror<EscalationStore>,
        new PgSyncStateStore(db) satisfies Mirror<SyncStateStore>,
        new PgCatalogStore(db) satisfies Mirror<CatalogStore>,
        new PgPipelineStore(db) satisfies Mirror<PipelineStore>,
        new PgAckStore(db) satisfies Mirror<AckStore>,
        new PgKeyStore(db) satisfies Mirror<KeyStore>,
        new PgInteractionStore(db) satisfies Mirror<InteractionStore>,
        new PgNoticeStore(db) satisfies Mirror<
          Omit<NoticeStore, (typeof LEFT_OUT.notices)[number]>
        >,
        new PgOutboxStore(db, new PgNoticeStore(db), () => undefined) satisfies Mirror<OutboxStore>,
      ];
    };
    expect(mirrors).toBeTypeOf('function');
  });

  const pairs = [
    [SubscriptionStore, PgSubscriptionStore],
    [SilenceStore, PgSilenceStore],
    [ReminderStore, PgReminderStore],
    [CapacityAlertStore, PgCapacityAlertStore],
    [CapacityStore, PgCapacityStore],
    [RetentionStore, PgRetentionStore],
    [AuditStore, PgAuditStore],
    [ThreadStore, PgThreadStore],
    [OutageStore, PgOutageStore],
    [EscalationStore, PgEscalationStore],
    [SyncStateStore, PgSyncStateStore],
    [CatalogStore, PgCatalogStore],
    [PipelineStore, PgPipelineStore],
    [AckStore, PgAckStore],
    [KeyStore, PgKeyStore],
    [InteractionStore, PgInteractionStore],
    [NoticeStore, PgNoticeStore],
    [OutboxStore, PgOutboxStore],
  ] as const;
  it.each(pairs.map(([sqlite, postgres]) => [postgres.name, sqlite, postgres] as const))(
    '%s has the methods of its SQLite counterpart',
    (_, sqlite, postgres) => {
      expect(methods(postgres)).toEqual(methods(sqlite));
    },
  );
});
