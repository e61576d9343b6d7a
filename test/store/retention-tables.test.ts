/**
 * PIPEWATCH_RETENTION over every table that grows with time or with chat: notice rows
 * (a tombstone keeps what dedupe needs), reminders, Remind me subscriptions, ended
 * silences, acknowledgements, thread references and capacity state; and a removed
 * subscription takes its reminders and capacity state with it, whoever removes it.
 * Each runs the daily job (`ingest/retention.ts`) on a real database with a manual clock.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { NoticeEvent } from '../../src/ingest/events.js';
import { ingestNoticePage } from '../../src/ingest/notice-sync.js';
import { pruneOld } from '../../src/ingest/retention.js';
import { silentLogger } from '../../src/lib/logger.js';
import { toUtcIso, type UtcIso } from '../../src/lib/time.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import type { Store } from '../../src/store/index.js';
import type { ReminderRow } from '../../src/store/reminders.js';
import { ThreadStore } from '../../src/store/threads.js';
import type { Notice } from '../../src/upstream/schemas.js';
import { location } from '../fakes/alerts.js';
import { transcoCycle } from '../fakes/capacity-event.js';
import { makeNotice } from '../fakes/notice.js';
import { ManualClock } from '../support/clock.js';
import { listMatchers } from '../support/silence-matchers.js';
import { useTempStore } from '../support/temp-store.js';

const DAY = 86_400_000;
const RETENTION = 30 * DAY;

const temp = useTempStore('pipewatch-retention-tables-');
let store: Store;
let clock: ManualClock;
beforeEach(() => {
  store = temp.store;
  clock = new ManualClock('2026-01-01T12:00:00Z');
});

const now = () => toUtcIso(clock.now());
const daysAgo = (days: number) => toUtcIso(new Date(clock.now().getTime() - days * DAY));
const prune = () =>
  pruneOld({ store: asyncStoreOf(store), clock, logger: silentLogger }, RETENTION);

/** Ingests a page as the notice sync does, nothing too old to alert; returns its events. */
async function ingest(notices: Notice[]): Promise<NoticeEvent[]> {
  const events: NoticeEvent[] = [];
  await ingestNoticePage(asyncStoreOf(store), notices, {
    seenAt: now(),
    baseline: false,
    alertableAfter: '2000-01-01T00:00:00Z',
    pipelines: new Set(),
    hooks: {
      notices: async (e) => {
        events.push(...e);
      },
    },
  });
  return events;
}

const rows = (table: string) =>
  (store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

function reminder(over: Partial<ReminderRow>): ReminderRow {
  return {
    rule: 'deadlines',
    notice_id: 101,
    offset_ms: 7_200_000,
    field: 'response_at',
    deadline_at: daysAgo(40),
    due_at: daysAgo(40),
    status: 'sent',
    reason: null,
    ...over,
  };
}

function subscription(over: { notice_id?: number | null; created_at?: UtcIso } = {}): number {
  return store.subscriptions.add({
    rule: {
      deadlines: { field: 'response_at', before: ['2h'], pipelines: ['transco'] },
      notify: [{ slack_dm: 'U0ALICE' }],
    },
    target: 'slack_dm:U0ALICE',
    source: 'slack',
    channel: null,
    created_by: 'U0ALICE',
    created_at: over.created_at ?? now(),
    notice_id: over.notice_id ?? null,
  });
}

describe('notices', () => {
  it('a notice unseen for the retention leaves only a tombstone; seen again it is not new, and a change is the next version', async () => {
    // No posted_at: the alert age does not hold it back, only what is stored does.
    const old = makeNotice({ id: 101, posted_at: null, service_created_at: null });
    expect((await ingest([old])).map((e) => e.change)).toEqual(['new']);
    await ingest([{ ...old, status: 'Revised' }]);
    clock.advance(RETENTION + DAY);
    await ingest([makeNotice({ id: 102 })]);

    await prune();
    expect(store.notices.get(101)).toBeUndefined();
    expect(store.notices.wasPruned(101)).toBe(true);
    expect(store.notices.history(101)).toEqual([]);
    expect(store.notices.get(102)).toBeDefined();

    // Seen again as it was: stored again at its version, and no event.
    expect(await ingest([{ ...old, status: 'Revised' }])).toEqual([]);
    expect(store.notices.get(101)).toMatchObject({ version: 2, status: 'Revised' });
    expect(store.notices.wasPruned(101)).toBe(false);

    // Gone again, then changed: an update to version 3, never a second "new".
    clock.advance(RETENTION + DAY);
    await prune();
    const events = await ingest([{ ...old, status: 'Terminate' }]);
    expect(events.map((e) => [e.change, e.version])).toEqual([['updated', 3]]);
    expect(store.notices.get(101)?.version).toBe(3);
  });

  it('keeps the row (its text pruned) of a notice a reminder still to be sent or a Remind me names', async () => {
    await ingest([
      makeNotice({ id: 101 }),
      makeNotice({ id: 102 }),
      makeNotice({ id: 103, response_at: '2026-03-01T12:00:00Z' }),
    ]);
    store.reminders.plan(
      reminder({
        status: 'scheduled',
        deadline_at: '2026-03-01T12:00:00Z',
        due_at: '2026-03-01T10:00:00Z',
      }),
      now(),
    );
    subscription({ notice_id: 103 });
    clock.advance(RETENTION + DAY);
    await prune();
    expect(store.notices.get(101)?.text_pruned_at).toBe(now());
    expect(store.notices.get(102)).toBeUndefined();
    expect(store.notices.get(103)?.text_pruned_at).toBe(now());
    expect(rows('notice_tombstones')).toBe(1);
  });

  it("prunes a kept notice's past versions replaced before the cutoff; keeps recent ones", async () => {
    const kept = makeNotice({ id: 101 });
    await ingest([kept]);
    await ingest([{ ...kept, status: 'Revised' }]);
    expect(store.notices.history(101)).toHaveLength(1);
    clock.advance(RETENTION + DAY);
    // Still listed, so still stored; its version 1 was replaced 31 days ago.
    const recent = makeNotice({ id: 102 });
    await ingest([{ ...kept, status: 'Revised' }, recent]);
    await ingest([{ ...recent, status: 'Revised' }]);
    await prune();
    expect(store.notices.get(101)).toMatchObject({ version: 2, status: 'Revised' });
    expect(store.notices.history(101)).toEqual([]);
    expect(store.notices.history(102)).toHaveLength(1);
  });

  it('a tombstone holds some 30 bytes where the row held hundreds', async () => {
    const pages = () => store.db.pragma('page_count', { simple: true }) as number;
    const pageSize = store.db.pragma('page_size', { simple: true }) as number;
    const empty = pages();
    const text = 'Station 165 limited; capacity reduced at the Leidy compressor. '.repeat(8);
    await ingest(
      Array.from({ length: 1000 }, (_, i) =>
        makeNotice({
          id: 1000 + i,
          identifier: `26-${i}`,
          notice: `${i} ${text}`,
          html: text,
          mobile: text,
        }),
      ),
    );
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    const perNotice = () => ((pages() - empty) * pageSize) / 1000;
    expect(perNotice()).toBeGreaterThan(300);
    clock.advance(RETENTION + DAY);
    await prune();
    expect(store.notices.count()).toBe(0);
    expect(rows('notice_tombstones')).toBe(1000);
    expect(perNotice()).toBeLessThan(50);
  });
});

describe('reminders', () => {
  it('a removed subscription takes its reminders and capacity state with it', () => {
    const kept = subscription();
    const removed = subscription();
    for (const id of [kept, removed]) {
      store.reminders.plan(reminder({ rule: `sub-${id}`, status: 'scheduled' }), now());
      store.capacityAlerts.put(
        `sub-${id}`,
        'transco',
        'STATION 85',
        { state: 'firing', episode: 1, last_alert_at: now(), repeats: 0, last_cycle: now() },
        5,
        now(),
      );
    }
    store.subscriptions.remove(removed);
    expect(store.reminders.all().map((r) => r.rule)).toEqual([`sub-${kept}`]);
    expect(store.capacityAlerts.get(`sub-${removed}`, 'transco', 'STATION 85')).toBeUndefined();
    expect(store.capacityAlerts.get(`sub-${kept}`, 'transco', 'STATION 85')).toBeDefined();
  });

  it('prunes those done before the cutoff, and those whose subscription is gone; keeps those to come', async () => {
    const sub = subscription();
    store.reminders.plan(reminder({ offset_ms: 1, status: 'sent' }), now());
    store.reminders.plan(reminder({ offset_ms: 2, status: 'cancelled' }), now());
    store.reminders.plan(
      reminder({ offset_ms: 3, status: 'sent', deadline_at: daysAgo(5) }),
      now(),
    );
    store.reminders.plan(
      reminder({ offset_ms: 4, status: 'scheduled', deadline_at: daysAgo(-5) }),
      now(),
    );
    store.reminders.plan(
      reminder({ rule: `sub-${sub}`, status: 'scheduled', deadline_at: daysAgo(-5) }),
      now(),
    );
    // Planned for a subscription another process removed meanwhile.
    store.reminders.plan(
      reminder({ rule: 'sub-999', status: 'scheduled', deadline_at: daysAgo(-5) }),
      now(),
    );
    await prune();
    expect(store.reminders.all().map((r) => [r.rule, r.offset_ms])).toEqual([
      [`sub-${sub}`, 7_200_000],
      ['deadlines', 4],
      ['deadlines', 3],
    ]);
  });

  it('a Remind me goes once its notice deadline passed before the cutoff', async () => {
    await ingest([
      makeNotice({ id: 101, response_at: '2026-01-05T12:00:00Z' }),
      makeNotice({ id: 102, response_at: '2026-03-01T12:00:00Z' }),
    ]);
    const passed = subscription({ notice_id: 101 });
    const ahead = subscription({ notice_id: 102 });
    const rule = subscription();
    store.reminders.plan(
      reminder({ rule: `sub-${passed}`, deadline_at: '2026-01-05T12:00:00Z' }),
      now(),
    );
    // The cutoff is 2026-01-11: after the first deadline, before the second.
    clock.advance(RETENTION + 10 * DAY);
    await prune();
    expect(store.subscriptions.all().map((s) => s.id)).toEqual([ahead, rule]);
    expect(store.reminders.all()).toEqual([]);
  });
});

describe('chat state', () => {
  it('prunes silences that ended and were summed up before the cutoff; keeps the rest', async () => {
    const silence = (over: { ends_at: UtcIso | null; summarized: boolean; lifted?: UtcIso }) => {
      const id = store.silences.add({
        matchers: listMatchers({ targets: ['slack:C0GAS'] }),
        starts_at: daysAgo(60),
        ends_at: over.ends_at,
        created_by: 'slack:U0ALICE',
        comment: null,
        created_at: daysAgo(60),
      });
      if (over.lifted) store.silences.lift(id, 'slack:U0ALICE', over.lifted);
      if (over.summarized) store.silences.markSummarized(id, now());
      return id;
    };
    silence({ ends_at: daysAgo(40), summarized: true });
    const lifted = silence({ ends_at: daysAgo(-10), summarized: true, lifted: daysAgo(40) });
    const unsummarized = silence({ ends_at: daysAgo(40), summarized: false });
    const recent = silence({ ends_at: daysAgo(5), summarized: true });
    const forever = silence({ ends_at: null, summarized: false });
    const held = silence({ ends_at: daysAgo(40), summarized: true });
    store.silences.hold('r|notice:1:v1|slack:C0GAS', {
      silence_id: held,
      rule: 'r',
      target: { kind: 'slack', channel: 'C0GAS' },
      targetKey: 'slack:C0GAS',
      alert: {},
      at: daysAgo(45),
    });
    // Held after the cutoff (a clock that ran ahead): it stays, and so does its silence.
    const late = silence({ ends_at: daysAgo(40), summarized: true });
    store.silences.hold('r|notice:2:v1|slack:C0GAS', {
      silence_id: late,
      rule: 'r',
      target: { kind: 'slack', channel: 'C0GAS' },
      targetKey: 'slack:C0GAS',
      alert: {},
      at: daysAgo(5),
    });
    await prune();
    expect(lifted).toBeGreaterThan(0);
    // The held alert goes first, then its silence.
    expect(rows('held')).toBe(1);
    expect(store.silences.list().map((s) => s.id)).toEqual([late, forever, recent, unsummarized]);
  });

  it('prunes capacity cycles not seen since the cutoff, with their locations', async () => {
    const cycle = (gasDay: string, seenAt: UtcIso) => {
      const c = transcoCycle({
        cycle: 'Timely',
        gasDay,
        seenAt,
        locations: [location({ id: 85 }), location({ id: 165, location: 'STATION 165' })],
      });
      store.capacity.upsertCycle(c.cycle, c.locations, seenAt);
    };
    cycle('2025-11-20', daysAgo(40));
    cycle('2025-12-30', daysAgo(2));
    expect(rows('capacity_locations')).toBe(4);
    await prune();
    expect(store.capacity.cycles('transco').map((c) => c.gas_day)).toEqual(['2025-12-30']);
    expect(rows('capacity_locations')).toBe(2);
  });

  it('prunes acknowledgements, thread references and capacity state older than the cutoff', async () => {
    store.acks.acknowledge('slack', 'C0GAS', '1700000000.000100', 'U0ALICE', daysAgo(40));
    store.acks.acknowledge('slack', 'C0GAS', '1700000000.000200', 'U0ALICE', daysAgo(5));
    new ThreadStore(store.db, () => daysAgo(40)).set('slack:C0GAS', 'notice:1', { ts: '1' });
    new ThreadStore(store.db, () => daysAgo(5)).set('slack:C0GAS', 'notice:2', { ts: '2' });
    const state = (last_cycle: UtcIso) => ({
      state: 'ok' as const,
      episode: 0,
      last_alert_at: null,
      repeats: 0,
      last_cycle,
    });
    store.capacityAlerts.put('oac', 'transco', 'OLD', state(daysAgo(40)), 5, daysAgo(40));
    store.capacityAlerts.put('oac', 'transco', 'NEW', state(daysAgo(5)), 5, daysAgo(5));
    await prune();
    expect(
      store.acks.acknowledge('slack', 'C0GAS', '1700000000.000100', 'U0BOB', now()),
    ).toMatchObject({
      by: 'U0BOB',
      already: false,
    });
    expect(
      store.acks.acknowledge('slack', 'C0GAS', '1700000000.000200', 'U0BOB', now()),
    ).toMatchObject({
      by: 'U0ALICE',
      already: true,
    });
    expect(store.threads.get('slack:C0GAS', 'notice:1')).toBeUndefined();
    expect(store.threads.get('slack:C0GAS', 'notice:2')).toEqual({ ts: '2' });
    expect(store.capacityAlerts.get('oac', 'transco', 'OLD')).toBeUndefined();
    expect(store.capacityAlerts.get('oac', 'transco', 'NEW')).toBeDefined();
  });

  it('prunes escalations decided before the cutoff; keeps those pending, and their notices', async () => {
    await ingest([makeNotice({ id: 101 }), makeNotice({ id: 102 }), makeNotice({ id: 103 })]);
    clock.advance(RETENTION + DAY);
    store.escalations.plan('fm', 101, daysAgo(50));
    store.escalations.decide('fm', 101, 'escalated', daysAgo(45));
    store.escalations.plan('fm', 102, daysAgo(3));
    store.escalations.decide('fm', 102, 'acknowledged', daysAgo(2));
    store.escalations.plan('fm', 103, daysAgo(40));
    await prune();
    expect(rows('escalations')).toBe(2);
    expect(store.escalations.forNotice(101)).toEqual([]);
    expect(store.escalations.open().map((e) => e.notice_id)).toEqual([103]);
    // A notice a pending escalation waits on keeps its row, its text pruned.
    expect(store.notices.get(103)?.text_pruned_at).toBe(now());
    expect(store.notices.get(101)).toBeUndefined();
  });
});
