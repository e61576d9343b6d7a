/**
 * PagerDuty through the real path: rules decide in the store's transaction, the
 * dispatcher takes the outbox rows and the PagerDuty channel posts them to a local
 * Events API v2 (`test/fakes/pagerduty.ts`), which keeps the incidents open and closed.
 * A low-OAC episode and a notice cancelled each open an incident and resolve it; a 429
 * is retried later without loss, a 400 goes dead with PagerDuty's reason. Everything
 * runs on injected clocks: nothing sleeps.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AlertEngine } from '../../src/alerts/engine.js';
import { createPagerDutyChannel } from '../../src/channels/pagerduty/send.js';
import type { ChannelSet } from '../../src/channels/types.js';
import { Dispatcher } from '../../src/delivery/dispatcher.js';
import { MemoryThreads } from '../../src/delivery/threads.js';
import type { Target } from '../../src/domain/targets.js';
import type { NoticeEvent } from '../../src/ingest/events.js';
import { silentLogger } from '../../src/lib/logger.js';
import { toUtcIso } from '../../src/lib/time.js';
import type { CapacityRule, NoticeRule } from '../../src/rules/types.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import type { CapacityLocation } from '../../src/upstream/schemas.js';
import { capacityAlert, noticeAlert } from '../fakes/alerts.js';
import { transcoCycle } from '../fakes/capacity-event.js';
import { makeNotice, noticeEvent } from '../fakes/notice.js';
import { type PagerDutyFake, startPagerDutyFake } from '../fakes/pagerduty.js';
import { InstantClock } from '../support/clock.js';
import { useTempStore } from '../support/temp-store.js';

const KEY = 'R0UT1NGKEYR0UT1NGKEYR0UT1NGK9a1b';
const pd: Target = { kind: 'pagerduty', routingKey: KEY };
const at = { file: 'rules/test.yaml', line: 1, col: 1 };
const HOUR = 3_600_000;

const constraints: NoticeRule = {
  kind: 'notices',
  name: 'transco-constraints',
  at,
  filter: { pipelines: ['transco'] },
  on: ['new'],
  notify: [pd],
};

const lowOac: CapacityRule = {
  kind: 'capacity',
  name: 'transco-low-oac',
  at,
  pipelines: ['transco'],
  locations: ['station 85'],
  unit: 'absolute',
  below: 50_000,
  clearAbove: 60_000,
  notify: [pd],
};

function loc(oac: number): CapacityLocation {
  return {
    id: 9,
    location: 'STATION 85',
    identifier: '1001234',
    flow: 'D',
    qti: 'DPQ',
    zone: 'Z4',
    dc: 200_000,
    opc: 200_000,
    tsq: 200_000 - oac,
    oac,
    it: 'N',
    all: 'Y',
    reason: '',
    service_created_at: null,
    service_updated_at: '2026-11-20T18:00:00Z',
  };
}

describe('PagerDuty delivery', () => {
  const temp = useTempStore('pipewatch-pagerduty-');
  let fake: PagerDutyFake;
  let clock: InstantClock;
  beforeEach(async () => {
    fake = await startPagerDutyFake();
    clock = new InstantClock('2026-11-20T15:00:00Z');
  });
  afterEach(async () => {
    await fake.close();
  });

  function wiring(rules: Array<NoticeRule | CapacityRule>) {
    const channel = createPagerDutyChannel(
      { apiUrl: fake.url, paceClock: clock },
      { clock, logger: silentLogger },
    );
    const channels: ChannelSet = { for: () => channel as never };
    const dispatcher = new Dispatcher(
      {
        store: asyncStoreOf(temp.store),
        channels,
        clock,
        logger: silentLogger,
      },
      { digestWindowMs: 0, maxAgeMs: 6 * HOUR, random: () => 0.5 },
    );
    const engine = new AlertEngine(
      { store: asyncStoreOf(temp.store), clock, logger: silentLogger, maxAlertAgeMs: 86_400_000 },
      rules,
    );
    const s = asyncStoreOf(temp.store);
    const notice = (e: NoticeEvent) =>
      s.transaction(async () => {
        await s.notices.upsert(e.notice, e.seenAt, false);
        await engine.hooks().notices?.([e]);
      });
    const capacity = (oac: number, cycle: string) =>
      s.transaction(async () =>
        engine.hooks().capacity?.(
          transcoCycle({
            cycle,
            gasDay: '2026-11-20',
            locations: [loc(oac)],
            seenAt: '2026-11-20T15:00:00Z',
          }),
        ),
      );
    return { channel, dispatcher, engine, notice, capacity };
  }

  it('opens an incident for low OAC and resolves it when the OAC recovers', async () => {
    const w = wiring([lowOac]);
    await w.capacity(40_000, 'timely');
    expect(await w.dispatcher.drain(60_000)).toMatchObject({ sent: 1, dead: 0 });
    const dedup = 'pipewatch/capacity/transco-low-oac/transco/1001234';
    expect(fake.events).toMatchObject([
      {
        event_action: 'trigger',
        dedup_key: dedup,
        payload: { severity: 'error', source: 'Transco', component: 'STATION 85' },
      },
    ]);
    expect(fake.open).toEqual(new Set([`${KEY} ${dedup}`]));
    await w.capacity(65_000, 'evening');
    expect(await w.dispatcher.drain(60_000)).toMatchObject({ sent: 1, dead: 0 });
    expect(fake.events.map((e) => [e.event_action, e.dedup_key])).toEqual([
      ['trigger', dedup],
      ['resolve', dedup],
    ]);
    expect(fake.open.size).toBe(0);
    await w.channel.close?.();
  });

  it('resolves the incident of a notice cancelled, though its rule does not alert on updates', async () => {
    const w = wiring([constraints]);
    const ofo = makeNotice({ type: 'Operational Flow Order', subject: 'OFO - Zone 6' });
    await w.notice(noticeEvent(ofo));
    await w.dispatcher.drain(60_000);
    expect(fake.events).toMatchObject([
      {
        event_action: 'trigger',
        dedup_key: 'pipewatch/notice/transco/101',
        payload: { severity: 'critical' },
      },
    ]);
    // Updated without ending: the rule is on new notices only, nothing is sent.
    const moved = { ...ofo, subject: 'OFO - Zone 6 (revised)' };
    await w.notice(noticeEvent(moved, { change: 'updated', version: 2, previous: ofo }));
    const cancelled = { ...moved, status: 'Cancelled' };
    await w.notice(noticeEvent(cancelled, { change: 'updated', version: 3, previous: moved }));
    // An ended notice ending again resolves nothing more.
    const again = { ...cancelled, subject: 'OFO - Zone 6 (cancelled)' };
    await w.notice(noticeEvent(again, { change: 'updated', version: 4, previous: cancelled }));
    expect(await w.dispatcher.drain(60_000)).toMatchObject({ sent: 1, dead: 0 });
    expect(fake.events.map((e) => [e.event_action, e.dedup_key])).toEqual([
      ['trigger', 'pipewatch/notice/transco/101'],
      ['resolve', 'pipewatch/notice/transco/101'],
    ]);
    expect(fake.open.size).toBe(0);
    await w.channel.close?.();
  });

  it('resolves the incident of a notice once its end passes, once', async () => {
    const w = wiring([constraints]);
    const fm = makeNotice({ type: 'Force Majeure', end_at: '2026-11-20T16:00:00Z' });
    // Open-ended: its placeholder end never passes.
    const open = makeNotice({ id: 102, type: 'Force Majeure', end_at: '9999-12-31T00:00:00Z' });
    await w.notice(noticeEvent(fm));
    await w.notice(noticeEvent(open));
    await w.dispatcher.drain(60_000);
    expect(fake.open.size).toBe(2);
    expect((await w.engine.runReminders()).ended).toBe(0);
    await clock.sleep(HOUR);
    expect((await w.engine.runReminders()).ended).toBe(1);
    expect((await w.engine.runReminders()).ended).toBe(0);
    expect(await w.dispatcher.drain(60_000)).toMatchObject({ sent: 1, dead: 0 });
    expect(fake.events.map((e) => [e.event_action, e.dedup_key])).toEqual([
      ['trigger', 'pipewatch/notice/transco/101'],
      ['trigger', 'pipewatch/notice/transco/102'],
      ['resolve', 'pipewatch/notice/transco/101'],
    ]);
    expect([...fake.open]).toEqual([`${KEY} pipewatch/notice/transco/102`]);
    expect(temp.store.audit.forNotice(101).map((a) => [a.event, a.decision, a.reason])).toEqual([
      ['notice-ended', 'resolved', 'its end 2026-11-20T16:00:00Z passed; resolves pagerduty:…9a1b'],
    ]);
    await w.channel.close?.();
  });

  it('resolves an end that passed while pipewatch was down for days, looking back to its last run', async () => {
    const w = wiring([constraints]);
    const fm = makeNotice({ type: 'Force Majeure', end_at: '2026-11-21T16:00:00Z' });
    await w.notice(noticeEvent(fm));
    await w.dispatcher.drain(60_000);
    // The alerts feed last ran now; then pipewatch is down for four days.
    temp.store.syncState.succeeded('alerts', toUtcIso(clock.now()));
    await clock.sleep(4 * 24 * HOUR);
    expect((await w.engine.runReminders()).ended).toBe(1);
    expect(await w.dispatcher.drain(60_000)).toMatchObject({ sent: 1, dead: 0 });
    expect(fake.open.size).toBe(0);
    await w.channel.close?.();
  });

  it('paces events per integration key: 10 at once, then one every 556 ms', async () => {
    const one = loc(40_000);
    const many = Array.from({ length: 12 }, (_, i) => ({
      ...one,
      identifier: String(1_000 + i),
      location: `STATION ${i}`,
    }));
    const channel = createPagerDutyChannel(
      { apiUrl: fake.url, paceClock: clock },
      { clock, logger: silentLogger },
    );
    const other: Target = { kind: 'pagerduty', routingKey: 'OTHERKEY0OTHERKEY0OTHERKEY0OTHER' };
    const alert = capacityAlert(many);
    const ctx = { now: '2026-11-20T15:00:00Z', threads: new MemoryThreads() };
    await channel.send(pd as never, [alert], ctx);
    expect(clock.sleeps).toEqual([556, 556]);
    // Another key has a bucket of its own.
    await channel.send(other as never, [capacityAlert([one])], ctx);
    expect(clock.sleeps).toEqual([556, 556]);
    expect(fake.events).toHaveLength(13);
    await channel.close?.();
  });

  it('retries a 429 later, without loss, and sends a 400 to the dead letters with its reason', async () => {
    const w = wiring([constraints]);
    await w.notice(noticeEvent(makeNotice({ id: 1 })));
    fake.fail(429);
    const start = clock.now().getTime();
    expect(await w.dispatcher.dispatchDue()).toMatchObject({ sent: 0, retrying: 1 });
    const row = temp.store.outbox.due('2030-01-01T00:00:00Z')[0]!;
    expect(row.last_error).toBe('pagerduty: HTTP 429 rate limited (pagerduty:…9a1b)');
    // PagerDuty names no wait: at least half of its minute.
    expect(Date.parse(row.next_attempt_at) - start).toBeGreaterThanOrEqual(30_000);
    expect(await w.dispatcher.drain(120_000)).toMatchObject({ sent: 1, dead: 0 });
    expect(fake.events).toHaveLength(1);

    // A key PagerDuty refuses (not 32 characters), as a target stored long ago may hold.
    const bad: Target = { kind: 'pagerduty', routingKey: 'shortkey0123456789' };
    const alert = noticeAlert({ id: 2 }, 'transco-constraints|notice:2:v1|pagerduty:x');
    temp.store.outbox.enqueue('notice:2:v1', 'r', bad, alert.payload, '2026-11-20T15:00:00Z');
    expect(await w.dispatcher.drain(60_000)).toMatchObject({ sent: 0, dead: 1 });
    expect(temp.store.outbox.summary().dead_reasons[0]?.reason).toBe(
      "pagerduty: HTTP 400 Event object is invalid: 'routing_key' must be 32 characters (pagerduty:…)",
    );
    await w.channel.close?.();
  });
});
