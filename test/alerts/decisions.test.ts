import { describe, expect, it } from 'vitest';
import { AlertEngine } from '../../src/alerts/engine.js';
import { noticeHistory } from '../../src/alerts/explain.js';
import { priorIdentifiers } from '../../src/alerts/superseded.js';
import type { NoticeEvent } from '../../src/ingest/events.js';
import { ingestNoticePage } from '../../src/ingest/notice-sync.js';
import { silentLogger } from '../../src/lib/logger.js';
import type { CapacityRule, DeadlineRule, NoticeRule, Rule } from '../../src/rules/types.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import type { Store } from '../../src/store/index.js';
import type { CapacityLocation, Notice } from '../../src/upstream/schemas.js';
import { transcoCycle } from '../fakes/capacity-event.js';
import { noticeEvent as event, makeNotice } from '../fakes/notice.js';
import { dmReminders } from '../fakes/rules.js';
import { ManualClock } from '../support/clock.js';
import { useTempStores } from '../support/temp-store.js';

const at = { file: 'rules/test.yaml', line: 1, col: 1 };
const stores = useTempStores('pipewatch-alerts-');
let store: Store;
let dir: string;

/** A store of its own each time (a test may call it twice), and an engine on it. */
function setup(rules: Rule[], start = '2026-11-20T15:00:00Z') {
  ({ store, dir } = stores.open());
  const clock = new ManualClock(start);
  const engine = new AlertEngine(
    { store: asyncStoreOf(store), clock, logger: silentLogger, maxAlertAgeMs: 86_400_000 },
    rules,
  );
  return { clock, engine };
}

const notice = makeNotice;

/** Stores the notice and runs the hooks in one transaction, as ingest does. */
async function ingest(engine: AlertEngine, e: NoticeEvent) {
  const s = asyncStoreOf(store);
  await s.transaction(async () => {
    await s.notices.upsert(e.notice, e.seenAt, false);
    await engine.hooks().notices?.([e]);
  });
}

const constraints: NoticeRule = {
  kind: 'notices',
  name: 'transco-constraints',
  at,
  filter: { pipelines: ['transco'], types: ['constraint'], categories: ['critical'] },
  not: { types: ['computer system status'] },
  on: ['new'],
  notify: [{ kind: 'slack', channel: '#gas' }, { kind: 'console' }],
};

/** The key of every delivery decided, in order. */
const keys = () => store.outbox.forSubject('').map((r) => r.key);

describe('notice decisions', () => {
  it('one alert per target, decided once across replay and restart', async () => {
    const { engine } = setup([constraints]);
    await ingest(engine, event(notice()));
    expect(keys()).toEqual([
      'transco-constraints|notice:101:v1|slack:#gas',
      'transco-constraints|notice:101:v1|console',
    ]);
    await ingest(engine, event(notice()));
    store.close();
    store = stores.open(dir).store;
    const again = new AlertEngine(
      {
        store: asyncStoreOf(store),
        clock: new ManualClock(),
        logger: silentLogger,
        maxAlertAgeMs: 86_400_000,
      },
      [constraints],
    );
    await ingest(again, event(notice()));
    expect(keys()).toHaveLength(2);
    // The alert is recorded once, by its outbox rows; why reads it from there.
    expect(store.audit.forNotice(101).map((a) => a.decision)).toEqual(['duplicate', 'duplicate']);
    expect(
      (await noticeHistory(asyncStoreOf(store), 101)).audit.map((a) => [
        a.rule,
        a.event,
        a.decision,
        a.reason,
      ]),
    ).toEqual([
      ['transco-constraints', 'notice-new', 'alert', 'matched; to slack:#gas, console'],
      ['transco-constraints', 'notice-new', 'duplicate', 'already decided for slack:#gas, console'],
      ['transco-constraints', 'notice-new', 'duplicate', 'already decided for slack:#gas, console'],
    ]);
  });

  it('records why a candidate rule did not alert', async () => {
    const { engine } = setup([constraints]);
    await ingest(engine, event(notice({ id: 1, category: 'Non-Critical' })));
    await ingest(engine, event(notice({ id: 2 }), { tooOld: true }));
    await ingest(engine, event(notice({ id: 3 }), { change: 'updated', version: 2 }));
    expect(keys()).toEqual([]);
    // A filter mismatch is left to `why`, which works it out from the rules.
    expect(store.audit.forNotice(1)).toEqual([]);
    expect(store.audit.forNotice(2)[0]?.reason).toMatch(
      /^too old: posted 2026-11-20T14:00:00Z, more than 1d ago/,
    );
    expect(store.audit.forNotice(3)[0]?.reason).toBe('a notice update is not in on: [new]');
  });

  it('an update alerts once per version for rules on updates', async () => {
    const { engine } = setup([{ ...constraints, on: ['new', 'updated'] }]);
    await ingest(engine, event(notice()));
    await ingest(
      engine,
      event(notice({ status: 'Supersede' }), {
        change: 'updated',
        version: 2,
        changedFields: ['status'],
      }),
    );
    await ingest(
      engine,
      event(notice({ status: 'Supersede' }), {
        change: 'updated',
        version: 2,
        changedFields: ['status'],
      }),
    );
    expect(keys().filter((k) => k.includes(':v2|'))).toHaveLength(2);
    const payload = store.outbox.due('2030-01-01T00:00:00Z').at(-1)?.payload;
    expect(payload).toMatchObject({
      kind: 'notice',
      state: 'updated',
      changed: ['status'],
      zone: 'America/Chicago',
    });
  });

  it('exclusions win over matches', async () => {
    const { engine } = setup([{ ...constraints, filter: { pipelines: ['transco'] } }]);
    await ingest(engine, event(notice({ type: 'Computer System Status' })));
    expect(keys()).toEqual([]);
    expect(store.audit.forNotice(101)[0]).toMatchObject({
      decision: 'suppressed',
      reason: 'excluded by its not: filter',
    });
  });
});

const reminders = dmReminders;

const rows = () =>
  store.db
    .prepare('SELECT offset_ms, due_at, status FROM reminders ORDER BY offset_ms DESC')
    .all() as Array<{ offset_ms: number; due_at: string; status: string }>;

describe('deadline reminders', () => {
  it('schedules one per offset, sends each when due, once', async () => {
    const { engine, clock } = setup([reminders]);
    await ingest(engine, event(notice({ response_at: '2026-11-22T16:00:00Z' })));
    expect(rows()).toEqual([
      { offset_ms: 86_400_000, due_at: '2026-11-21T16:00:00Z', status: 'scheduled' },
      { offset_ms: 7_200_000, due_at: '2026-11-22T14:00:00Z', status: 'scheduled' },
    ]);
    expect((await engine.runReminders()).sent).toBe(0);
    clock.set('2026-11-21T16:00:30Z');
    expect(await engine.runReminders()).toEqual({
      sent: 1,
      dropped: 0,
      summaries: 0,
      ended: 0,
      escalations: 0,
    });
    expect((await engine.runReminders()).sent).toBe(0);
    const [row] = store.outbox.due('2030-01-01T00:00:00Z');
    expect(row?.payload).toMatchObject({
      kind: 'deadline',
      state: 'reminder',
      deadline: { field: 'response_at', at: '2026-11-22T16:00:00Z', before: '1d' },
    });
    expect(row?.payload.deadline?.late).toBeUndefined();
  });

  it('moves with the deadline, and a terminated notice cancels it', async () => {
    const { engine } = setup([reminders]);
    await ingest(engine, event(notice({ response_at: '2026-11-22T16:00:00Z' })));
    await ingest(
      engine,
      event(notice({ response_at: '2026-11-23T16:00:00Z' }), { change: 'updated', version: 2 }),
    );
    expect(rows().map((r) => r.due_at)).toEqual(['2026-11-22T16:00:00Z', '2026-11-23T14:00:00Z']);
    await ingest(
      engine,
      event(notice({ response_at: '2026-11-23T16:00:00Z', status: 'TERMINATE' }), {
        change: 'updated',
        version: 3,
      }),
    );
    expect(rows().map((r) => r.status)).toEqual(['cancelled', 'cancelled']);
  });

  it('a notice that supersedes another cancels its reminders', async () => {
    const { engine, clock } = setup([reminders]);
    await ingest(
      engine,
      event(notice({ identifier: '26-0412', response_at: '2026-11-22T16:00:00Z' })),
    );
    await ingest(
      engine,
      event(
        notice({
          id: 102,
          identifier: '26-0419',
          status: 'Supersede',
          notice: 'This notice supersedes Notice ID 26-0412. Capacity remains limited.',
          response_at: null,
        }),
      ),
    );
    expect(rows().map((r) => r.status)).toEqual(['cancelled', 'cancelled']);
    expect(store.audit.forNotice(101).at(-1)).toMatchObject({
      decision: 'cancelled',
      reason: 'superseded by notice #102 (Supersede)',
    });
    clock.set('2026-11-22T15:00:00Z');
    expect((await engine.runReminders()).sent).toBe(0);
  });

  it('a notice cancels the reminders scheduled earlier in its own page', async () => {
    const { engine } = setup([reminders]);
    const first = notice({ identifier: '26-0412', response_at: '2026-11-22T16:00:00Z' });
    const second = notice({
      id: 102,
      identifier: '26-0419',
      status: 'Supersede',
      notice: 'This notice supersedes Notice ID 26-0412. Capacity remains limited.',
      response_at: null,
    });
    const s = asyncStoreOf(store);
    await s.transaction(async () => {
      await s.notices.upsert(first, first.posted_at!, false);
      await s.notices.upsert(second, second.posted_at!, false);
      await engine.hooks().notices?.([event(first), event(second)]);
    });
    expect(rows().map((r) => r.status)).toEqual(['cancelled', 'cancelled']);
  });

  it('reads the notices a notice supersedes or terminates from its text', () => {
    expect(
      priorIdentifiers({ subject: '', notice: 'This notice supersedes Notice ID 26-0412.' }),
    ).toEqual(['26-0412']);
    expect(priorIdentifiers({ subject: 'Terminates notice #5521', notice: '' })).toEqual(['5521']);
    expect(
      priorIdentifiers({ subject: '', notice: 'This notice supersedes Notice ID 0.' }),
    ).toEqual([]);
    expect(
      priorIdentifiers({ subject: 'Capacity Constraint', notice: 'No prior notice.' }),
    ).toEqual([]);
  });

  it('a reminder that came due while down goes out late once; after the deadline it is dropped', async () => {
    const { engine, clock } = setup([reminders]);
    await ingest(engine, event(notice({ response_at: '2026-11-22T16:00:00Z' })));
    clock.set('2026-11-22T10:00:00Z');
    expect(await engine.runReminders()).toEqual({
      sent: 1,
      dropped: 0,
      summaries: 0,
      ended: 0,
      escalations: 0,
    });
    expect(store.outbox.due('2030-01-01T00:00:00Z')[0]?.payload.deadline).toMatchObject({
      before: '1d',
      late: true,
    });
    clock.set('2026-11-22T16:30:00Z');
    expect(await engine.runReminders()).toEqual({
      sent: 0,
      dropped: 1,
      summaries: 0,
      ended: 0,
      escalations: 0,
    });
    expect(store.audit.forNotice(101).at(-1)).toMatchObject({ decision: 'dropped' });
  });

  it('a notice first seen 90 minutes before its deadline reminds at once, then 30 minutes before', async () => {
    const rule: DeadlineRule = {
      ...reminders,
      beforeMs: [86_400_000, 7_200_000, 1_800_000],
      notify: [
        { kind: 'slack_dm', user: 'scheduler@example.com' },
        { kind: 'email', to: ['scheduling@example.com'] },
      ],
    };
    const { engine, clock } = setup([rule], '2026-11-22T14:30:00Z');
    await ingest(engine, event(notice({ response_at: '2026-11-22T16:00:00Z' })));
    expect(rows()).toEqual([
      { offset_ms: 86_400_000, due_at: '2026-11-21T16:00:00Z', status: 'dropped' },
      { offset_ms: 7_200_000, due_at: '2026-11-22T14:30:00Z', status: 'scheduled' },
      { offset_ms: 1_800_000, due_at: '2026-11-22T15:30:00Z', status: 'scheduled' },
    ]);
    expect(store.audit.forNotice(101).at(-1)?.reason).toBe(
      'reminders 1d before: skipped (came due before the notice arrived); 2h before: at once (came due before the notice arrived; 1h30m left); 30m before: at 2026-11-22T15:30:00Z',
    );
    expect(await engine.runReminders()).toEqual({
      sent: 1,
      dropped: 0,
      summaries: 0,
      ended: 0,
      escalations: 0,
    });
    const first = store.outbox.due('2030-01-01T00:00:00Z');
    expect(first.map((r) => r.target.kind)).toEqual(['slack_dm', 'email']);
    expect(first[0]!.payload.deadline).toEqual({
      field: 'response_at',
      at: '2026-11-22T16:00:00Z',
      before: '2h',
    });
    clock.set('2026-11-22T15:29:00Z');
    expect((await engine.runReminders()).sent).toBe(0);
    clock.set('2026-11-22T15:30:00Z');
    expect((await engine.runReminders()).sent).toBe(1);
    expect(store.outbox.due('2030-01-01T00:00:00Z').map((r) => r.payload.deadline?.before)).toEqual(
      ['2h', '2h', '30m', '30m'],
    );
  });

  it('with no offset ahead, the nearest past one goes out at once', async () => {
    const { engine } = setup([reminders], '2026-11-22T15:00:00Z');
    await ingest(engine, event(notice({ response_at: '2026-11-22T16:00:00Z' })));
    expect(rows().map((r) => r.status)).toEqual(['dropped', 'scheduled']);
    expect((await engine.runReminders()).sent).toBe(1);
    expect(store.outbox.due('2030-01-01T00:00:00Z')[0]?.payload.deadline).toEqual({
      field: 'response_at',
      at: '2026-11-22T16:00:00Z',
      before: '2h',
    });
  });

  it('a notice that arrives exactly one offset before its deadline reminds at once', async () => {
    const rule: DeadlineRule = { ...reminders, beforeMs: [7_200_000] };
    const { engine } = setup([rule], '2026-11-22T14:00:00Z');
    await ingest(engine, event(notice({ response_at: '2026-11-22T16:00:00Z' })));
    expect(store.reminders.forRule('reminders', 101)).toMatchObject([
      {
        offset_ms: 7_200_000,
        due_at: '2026-11-22T14:00:00Z',
        status: 'scheduled',
        reason: 'came due before the notice arrived: sent at once, 2h before the deadline',
      },
    ]);
    expect(store.audit.forNotice(101).at(-1)?.reason).toBe(
      'reminders 2h before: at once (came due before the notice arrived; 2h left)',
    );
    expect(await engine.runReminders()).toEqual({
      sent: 1,
      dropped: 0,
      summaries: 0,
      ended: 0,
      escalations: 0,
    });
    expect(store.outbox.due('2030-01-01T00:00:00Z')[0]?.payload.deadline).toEqual({
      field: 'response_at',
      at: '2026-11-22T16:00:00Z',
      before: '2h',
    });
  });

  it('a deadline that moves earlier past an offset reminds at once; one already sent stays sent', async () => {
    const { engine, clock } = setup([reminders], '2026-11-21T12:00:00Z');
    await ingest(engine, event(notice({ response_at: '2026-11-22T16:00:00Z' })));
    clock.set('2026-11-21T16:00:00Z');
    expect((await engine.runReminders()).sent).toBe(1);
    clock.set('2026-11-21T17:00:00Z');
    // Now due at 18:00: the 2h reminder came due an hour ago.
    await ingest(
      engine,
      event(notice({ response_at: '2026-11-21T18:00:00Z' }), { change: 'updated', version: 2 }),
    );
    expect(rows()).toEqual([
      { offset_ms: 86_400_000, due_at: '2026-11-21T16:00:00Z', status: 'sent' },
      { offset_ms: 7_200_000, due_at: '2026-11-21T17:00:00Z', status: 'scheduled' },
    ]);
    expect(store.audit.forNotice(101).at(-1)?.reason).toBe(
      'reminders 2h before: at once (came due before the deadline moved; 1h left)',
    );
    expect((await engine.runReminders()).sent).toBe(1);
    const sent = store.outbox.due('2030-01-01T00:00:00Z').map((r) => r.payload.deadline);
    expect(sent.map((d) => [d?.before, d?.at])).toEqual([
      ['1d', '2026-11-22T16:00:00Z'],
      ['2h', '2026-11-21T18:00:00Z'],
    ]);
  });

  it('an update that leaves the deadline alone changes no reminder', async () => {
    const { engine, clock } = setup([reminders], '2026-11-22T13:00:00Z');
    await ingest(engine, event(notice({ response_at: '2026-11-22T16:00:00Z' })));
    expect((await engine.runReminders()).sent).toBe(1);
    clock.set('2026-11-22T13:30:00Z');
    await ingest(
      engine,
      event(notice({ response_at: '2026-11-22T16:00:00Z', subject: 'Revised' }), {
        change: 'updated',
        version: 2,
      }),
    );
    expect(rows().map((r) => [r.status, r.due_at])).toEqual([
      ['sent', '2026-11-22T13:00:00Z'],
      ['scheduled', '2026-11-22T14:00:00Z'],
    ]);
    expect((await engine.runReminders()).sent).toBe(0);
  });

  it('computes due times in UTC across the end of daylight saving', async () => {
    // 2026-11-01 10:00 CST is 16:00Z; a day before is 2026-10-31 16:00Z (11:00 CDT): 24 real hours.
    const { engine, clock } = setup([reminders], '2026-10-30T12:00:00Z');
    await ingest(engine, event(notice({ response_at: '2026-11-01T16:00:00Z' })));
    expect(rows()[0]?.due_at).toBe('2026-10-31T16:00:00Z');
    clock.set('2026-10-31T15:59:00Z');
    expect((await engine.runReminders()).sent).toBe(0);
    clock.set('2026-10-31T16:00:00Z');
    expect((await engine.runReminders()).sent).toBe(1);
  });
});

const lowOac: CapacityRule = {
  kind: 'capacity',
  name: 'transco-low-oac',
  at,
  pipelines: ['transco'],
  locations: ['station 85'],
  unit: 'absolute',
  below: 50_000,
  clearAbove: 60_000,
  notify: [{ kind: 'email', to: ['scheduling@example.com'] }],
};

function loc(oac: number, opc = 200_000): CapacityLocation {
  return {
    id: 9,
    location: 'STATION 85',
    identifier: '1001234',
    flow: 'D',
    qti: 'DPQ',
    zone: 'Z4',
    dc: 200_000,
    opc,
    tsq: opc - oac,
    oac,
    it: 'N',
    all: 'Y',
    reason: '',
    service_created_at: null,
    service_updated_at: null,
  };
}

async function capacity(
  engine: AlertEngine,
  oac: number,
  cycle = 'id1',
  gasDay = '2026-11-20',
  opc?: number,
) {
  const e = transcoCycle({
    cycle,
    gasDay,
    locations: [loc(oac, opc)],
    seenAt: '2026-11-20T15:00:00Z',
  });
  await asyncStoreOf(store).transaction(async () => engine.hooks().capacity?.(e));
}

const states = () =>
  (
    store.db.prepare('SELECT payload FROM outbox ORDER BY id').all() as Array<{ payload: string }>
  ).map((r) => JSON.parse(r.payload).state);

/** Stores a page of notices as ingest does, the baseline's (`baseline`) or a later sync's. */
function ingestPage(
  engine: AlertEngine,
  notices: Notice[],
  baseline: boolean,
  alertableAfter = '2026-11-19T15:00:00Z',
) {
  return ingestNoticePage(asyncStoreOf(store), notices, {
    seenAt: '2026-11-20T15:00:00Z',
    baseline,
    alertableAfter,
    pipelines: new Set(),
    hooks: engine.hooks(),
  });
}

describe('deadlines already open when pipewatch starts watching', () => {
  const open = () =>
    notice({
      id: 273_606,
      posted_at: '2026-11-18T14:00:00Z',
      response_at: '2026-11-21T05:00:00Z', // 14 h after the baseline
    });

  it('the baseline alerts no notice rule, and reminds of a deadline still ahead', async () => {
    const { engine, clock } = setup([constraints, reminders]);
    await ingestPage(engine, [open()], true);
    expect(keys()).toEqual([]);
    // The 1-day reminder's time had passed: it goes out at once, saying how long is left.
    expect(rows()).toEqual([
      { offset_ms: 86_400_000, due_at: '2026-11-20T15:00:00Z', status: 'scheduled' },
      { offset_ms: 7_200_000, due_at: '2026-11-21T03:00:00Z', status: 'scheduled' },
    ]);
    expect(store.audit.forNotice(273_606).map((a) => [a.rule, a.event, a.reason])).toEqual([
      [
        'reminders',
        'notice-baseline',
        'reminders 1d before: at once (came due before pipewatch started watching; 14h left); 2h before: at 2026-11-21T03:00:00Z',
      ],
    ]);
    expect((await engine.runReminders()).sent).toBe(1);
    expect(keys()).toEqual([
      'reminders|notice:273606:response_at:86400000|slack_dm:scheduler@example.com',
    ]);
    clock.set('2026-11-21T03:00:00Z');
    expect((await engine.runReminders()).sent).toBe(1);
    // Found again by the next sync, unchanged: nothing more is decided.
    await ingestPage(engine, [open()], false);
    expect(keys()).toHaveLength(2);
  });

  it('a notice found later that predates the baseline is reminded too', async () => {
    const { engine } = setup([reminders]);
    const result = await ingestNoticePage(asyncStoreOf(store), [open()], {
      seenAt: '2026-11-20T15:00:00Z',
      baseline: false,
      baselineHorizon: '2026-11-19T00:00:00Z',
      alertableAfter: '2026-11-19T15:00:00Z',
      pipelines: new Set(),
      hooks: engine.hooks(),
    });
    expect(result.events).toEqual([]);
    expect(rows().map((r) => r.status)).toEqual(['scheduled', 'scheduled']);
  });

  it('the alert age stops a new-notice alert, not the reminders of a deadline ahead', async () => {
    const { engine } = setup([constraints, reminders]);
    await ingestPage(engine, [open()], false, '2026-11-19T15:00:00Z');
    expect(keys()).toEqual([]);
    expect(store.audit.forNotice(273_606).map((a) => [a.rule, a.decision])).toEqual([
      ['transco-constraints', 'suppressed'],
      ['reminders', 'scheduled'],
    ]);
    expect(rows().map((r) => r.status)).toEqual(['scheduled', 'scheduled']);
  });

  it('only the pipelines of PIPEWATCH_PIPELINES are reminded', async () => {
    const { engine } = setup([{ ...reminders, filter: {} }]);
    await ingestNoticePage(asyncStoreOf(store), [open()], {
      seenAt: '2026-11-20T15:00:00Z',
      baseline: true,
      alertableAfter: '2026-11-19T15:00:00Z',
      pipelines: new Set(['texas-eastern']),
      hooks: engine.hooks(),
    });
    expect(rows()).toEqual([]);
  });

  it('a notice superseded by one newer in the same walk plans no reminders', async () => {
    const { engine, clock } = setup([reminders]);
    const superseding = notice({
      id: 102,
      identifier: '26-0419',
      status: 'Supersede',
      posted_at: '2026-11-19T14:00:00Z',
      notice: 'This notice supersedes Notice ID 26-0412. Capacity remains limited.',
      response_at: '2026-11-21T09:00:00Z',
    });
    // Newest first, as the API lists them, across two pages of the baseline.
    await ingestPage(engine, [superseding], true);
    await ingestPage(engine, [open()], true);
    expect(store.audit.forNotice(273_606).map((a) => a.reason)).toEqual([
      'no reminders: superseded by notice #102 (Supersede)',
    ]);
    clock.set('2026-11-21T04:00:00Z');
    await engine.runReminders();
    expect(keys().every((k) => k.includes('notice:102:'))).toBe(true);
    // In a later sync's page too.
    const { engine: later } = setup([reminders]);
    await ingestPage(later, [superseding, { ...open(), id: 273_607 }], false);
    expect(store.audit.forNotice(273_607).map((a) => a.reason)).toEqual([
      'no reminders: superseded by notice #102 (Supersede)',
    ]);
  });
});

describe('capacity decisions', () => {
  it('fires once, stays quiet between the levels, resolves, and fires again', async () => {
    const { engine } = setup([lowOac]);
    // In the order the cycles are posted: tomorrow's timely (5 p.m.) before today's ID2
    // (5:30 p.m.), tomorrow's evening (9 p.m.) before today's ID3 (10 p.m.).
    await capacity(engine, 70_000, 'timely');
    await capacity(engine, 45_000, 'evening');
    await capacity(engine, 40_000, 'id1');
    await capacity(engine, 55_000, 'timely', '2026-11-21');
    await capacity(engine, 49_000, 'id2');
    expect(states()).toEqual(['firing']);
    await capacity(engine, 61_000, 'evening', '2026-11-21');
    await capacity(engine, 58_000, 'id3');
    await capacity(engine, 30_000, 'id1', '2026-11-21');
    expect(states()).toEqual(['firing', 'resolved', 'firing']);
  });

  it("judges today's ID2 and ID3 after tomorrow's timely and evening, as they are posted", async () => {
    const { engine } = setup([lowOac]);
    await capacity(engine, 70_000, 'id1');
    await capacity(engine, 70_000, 'timely', '2026-11-21');
    await capacity(engine, 30_000, 'id2');
    expect(states()).toEqual(['firing']);
    await capacity(engine, 30_000, 'evening', '2026-11-21');
    await capacity(engine, 90_000, 'id3');
    expect(states()).toEqual(['firing', 'resolved']);
  });

  it('fires strictly below the threshold and resolves strictly above the recovery level', async () => {
    const { engine } = setup([lowOac]);
    await capacity(engine, 50_000, 'timely');
    expect(states()).toEqual([]);
    await capacity(engine, 49_999, 'evening');
    expect(states()).toEqual(['firing']);
    await capacity(engine, 60_000, 'id1');
    expect(states()).toEqual(['firing']);
    await capacity(engine, 60_001, 'id2');
    expect(states()).toEqual(['firing', 'resolved']);
  });

  it('ignores a cycle older than the last one judged', async () => {
    const { engine } = setup([lowOac]);
    await capacity(engine, 40_000, 'id2');
    await capacity(engine, 70_000, 'timely');
    expect(states()).toEqual(['firing']);
  });

  it('repeats while low when asked to', async () => {
    const { engine, clock } = setup([{ ...lowOac, repeatEveryMs: 3_600_000 }]);
    await capacity(engine, 40_000, 'timely');
    clock.advance(1_800_000);
    await capacity(engine, 40_000, 'evening');
    clock.advance(1_800_000);
    await capacity(engine, 40_000, 'id1');
    expect(states()).toEqual(['firing', 'firing']);
  });

  it('a percentage threshold; an OPC of 0 is skipped, not divided by', async () => {
    const { engine } = setup([{ ...lowOac, unit: 'percent', below: 10, clearAbove: 11 }]);
    await capacity(engine, 0, 'timely', '2026-11-20', 0);
    expect(states()).toEqual([]);
    await capacity(engine, 15_000, 'evening');
    expect(states()).toEqual(['firing']);
  });
});
