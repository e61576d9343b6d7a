/**
 * Deliveries whose stored alert cannot be read back, damaged in the real SQLite file:
 * JSON cut short, a notice alert without its notice, a state no pipewatch writes. Each
 * goes dead at once with a reason naming what is wrong (kind `UNREADABLE`), is logged and
 * heard by the outage watch like any dead delivery, and costs nothing else: the alerts
 * around it to the same target are sent, and the dispatcher does not stop on it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleChannel } from '../../src/channels/console/send.js';
import { createSlackChannels } from '../../src/channels/slack/index.js';
import type { AnyChannel, ChannelSet } from '../../src/channels/types.js';
import { createWebhookChannel } from '../../src/channels/webhook/send.js';
import { Dispatcher } from '../../src/delivery/dispatcher.js';
import type { DeliveryWatch } from '../../src/delivery/sender.js';
import type { Target } from '../../src/domain/targets.js';
import { systemClock } from '../../src/lib/clock.js';
import { silentLogger } from '../../src/lib/logger.js';
import { toUtcIso } from '../../src/lib/time.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import { StoredDataError } from '../../src/store/stored-json.js';
import { noticeAlert, updatedAlert } from '../fakes/alerts.js';
import { makeNotice } from '../fakes/notice.js';
import { startSlackFake } from '../fakes/slack.js';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook.js';
import { capturedLogger } from '../support/captured-logger.js';
import { InstantClock } from '../support/clock.js';
import { useTempStore } from '../support/temp-store.js';

const temp = useTempStore('pipewatch-unreadable-');
let receiver: WebhookReceiver;
let clock: InstantClock;

beforeEach(async () => {
  receiver = await startWebhookReceiver();
  clock = new InstantClock('2026-11-20T15:00:00Z');
});
afterEach(async () => {
  await receiver.close();
});

const hook = (): Target => ({ kind: 'webhook', url: `${receiver.url}/hook` });

/** Queues an alert about notice `id` to `target`; returns its outbox row id. */
function enqueue(id: number, target: Target): number {
  const alert = noticeAlert({ id, subject: `Notice ${id}` });
  temp.store.outbox.enqueue(
    `notice:${id}:v1`,
    'rule',
    target,
    alert.payload,
    toUtcIso(clock.now()),
  );
  return (
    temp.store.db
      .prepare<[string], { id: number }>('SELECT id FROM outbox WHERE subject = ?')
      .get(`notice:${id}:v1`)?.id ?? -1
  );
}

/** Damages one row's stored JSON with `sql` (`payload = …`), as a disk or a hand might. */
function damage(id: number, sql: string): void {
  temp.store.db.prepare(`UPDATE outbox SET ${sql} WHERE id = ?`).run(id);
}

/** A dispatcher on the webhook fake, its log lines and what its outage watch heard. */
function dispatcher() {
  const { logger, lines } = capturedLogger();
  const webhook = createWebhookChannel(
    { pace: { perUrl: 1000, perHost: 1000 } },
    { clock, logger: silentLogger },
  );
  const byKind: Partial<Record<Target['kind'], AnyChannel>> = {
    webhook,
    console: createConsoleChannel(() => {}),
  };
  const channels: ChannelSet = { for: (kind) => byKind[kind] as never };
  const heard: Array<{ target: Target; reason: string; code: string | null }> = [];
  const watch: DeliveryWatch = {
    delivered() {},
    failedForGood: (target, reason, code) => heard.push({ target, reason, code }),
  };
  const d = new Dispatcher(
    {
      store: asyncStoreOf(temp.store),
      channels,
      clock,
      logger,
      watch,
    },
    { digestWindowMs: 0, maxAgeMs: 6 * 3_600_000, random: () => 0.5 },
  );
  return { d, lines, heard, close: async () => webhook.close?.() };
}

const row = (id: number) =>
  temp.store.db
    .prepare<[number], { status: string; last_error: string | null; last_error_code: string }>(
      'SELECT status, last_error, last_error_code FROM outbox WHERE id = ?',
    )
    .get(id);

const sentIds = () => receiver.received.map((r) => JSON.parse(r.body).notice.id);

describe('a delivery whose alert cannot be read back', () => {
  it('JSON cut short: dead at once with the reason, the alerts around it sent', async () => {
    const ids = [1, 2, 3].map((n) => enqueue(n, hook()));
    damage(ids[1] ?? -1, `payload = substr(payload, 1, 40)`);
    const { d, lines, heard, close } = dispatcher();
    const result = await d.dispatchDue();
    expect(result).toMatchObject({ sent: 2, dead: 1, retrying: 0 });
    expect(sentIds()).toEqual([1, 3]);
    expect(row(ids[1] ?? -1)).toMatchObject({
      status: 'dead',
      last_error_code: 'UNREADABLE',
      last_error: expect.stringMatching(/^its alert is not JSON \(/),
    });
    const logged = lines.filter((l) => l.includes('could not send rule'));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('notice:2:v1 (its alert is not JSON');
    // The target's path (often its token) is not written.
    expect(logged[0]).not.toContain('/hook');
    expect(heard).toEqual([
      {
        target: hook(),
        reason: expect.stringMatching(/^its alert is not JSON/),
        code: 'UNREADABLE',
      },
    ]);
    // Dead is dead: the next pass finds nothing, and nothing fails.
    expect(await d.dispatchDue()).toMatchObject({ sent: 0, dead: 0 });
    expect(temp.store.outbox.summary().dead_reasons).toMatchObject([
      { code: 'UNREADABLE', count: 1 },
    ]);
    await close();
  });

  it('of a shape this pipewatch does not render: dead, naming the field', async () => {
    const ids = [1, 2, 3].map((n) => enqueue(n, hook()));
    damage(ids[0] ?? -1, `payload = json_remove(payload, '$.notice')`);
    damage(ids[2] ?? -1, `payload = json_set(payload, '$.state', 'opened')`);
    const { d, heard, close } = dispatcher();
    expect(await d.dispatchDue()).toMatchObject({ sent: 1, dead: 2, retrying: 0 });
    expect(sentIds()).toEqual([2]);
    expect(row(ids[0] ?? -1)).toMatchObject({
      status: 'dead',
      last_error_code: 'UNREADABLE',
      last_error:
        'its alert is not one this pipewatch sends: notice: missing: a notice alert is rendered from its notice',
    });
    expect(row(ids[2] ?? -1)?.last_error).toBe(
      'its alert is not one this pipewatch sends: state: expected a state pipewatch alerts on',
    );
    expect(heard.map((h) => h.code)).toEqual(['UNREADABLE', 'UNREADABLE']);
    await close();
  });

  it('its target damaged: read from the target key it is filed under, and sent', async () => {
    const id = enqueue(1, hook());
    damage(id, `target_json = '{"kind":'`);
    const { d, close } = dispatcher();
    expect(await d.dispatchDue()).toMatchObject({ sent: 1, dead: 0 });
    expect(sentIds()).toEqual([1]);
    await close();
  });

  it('a thread reference damaged: the update is sent as a first message, with a warning', async () => {
    const fake = await startSlackFake();
    const slack = createSlackChannels(
      { token: fake.token, apiUrl: fake.url, perChannel: { perSecond: 50, burst: 5 } },
      { clock: systemClock, logger: silentLogger },
    );
    const { logger, lines } = capturedLogger();
    const d = new Dispatcher(
      {
        store: asyncStoreOf(temp.store),
        channels: { for: () => slack.slack as never },
        clock,
        logger,
      },
      { digestWindowMs: 0, maxAgeMs: 6 * 3_600_000, random: () => 0.5 },
    );
    const gas: Target = { kind: 'slack', channel: '#gas' };
    const at = toUtcIso(clock.now());
    const first = noticeAlert();
    temp.store.outbox.enqueue('notice:101:v1', 'rule', gas, first.payload, at);
    expect(await d.dispatchDue()).toMatchObject({ sent: 1 });
    temp.store.db.prepare('UPDATE threads SET ref = ?').run('{"channel":"C0GAS","ts":');
    temp.store.outbox.enqueue('notice:101:v2', 'rule', gas, updatedAlert().payload, at);
    expect(await d.dispatchDue()).toMatchObject({ sent: 1, dead: 0 });
    expect(fake.posts.map((p) => p.thread_ts)).toEqual([undefined, undefined]);
    expect(lines.filter((l) => l.includes('the thread reference of notice:101'))).toHaveLength(1);
    await slack.slack.close?.();
    await fake.close();
  });

  it("its notice version's history damaged: only the deliveries about that version are dead", async () => {
    const v1 = makeNotice({ id: 7, subject: 'First words' });
    const at = toUtcIso(clock.now());
    temp.store.notices.upsert(v1, at, false);
    temp.store.notices.upsert({ ...v1, subject: 'Second words' }, at, false);
    const payload = noticeAlert({ id: 7 }).payload;
    const json = JSON.stringify({ ...payload, notice: null });
    temp.store.outbox.enqueue('notice:7:v1', 'rule', hook(), json, at, { id: 7, version: 1 });
    temp.store.outbox.enqueue('notice:7:v2', 'rule', hook(), json, at, { id: 7, version: 2 });
    temp.store.db.prepare(`UPDATE notice_history SET previous = '{"subject":7}'`).run();
    const { d, close } = dispatcher();
    expect(await d.dispatchDue()).toMatchObject({ sent: 1, dead: 1 });
    expect(receiver.received.map((r) => JSON.parse(r.body).notice.subject)).toEqual([
      'Second words',
    ]);
    expect(temp.store.outbox.summary().dead_reasons[0]?.reason).toBe(
      'its notice: the database holds version 1 of notice 7 in its history, which is not what pipewatch stores there: subject: Invalid input: expected string, received number',
    );
    await close();
  });

  it('read to be shown (why): an error naming the row, not a payload taken on trust', () => {
    const id = enqueue(1, { kind: 'console' });
    damage(id, `payload = 'not json'`);
    expect(() => temp.store.outbox.forSubject('notice:1:')).toThrow(StoredDataError);
    expect(() => temp.store.outbox.forSubject('notice:1:')).toThrow(
      `the database holds outbox row ${id} (notice:1:v1), which cannot be read: its alert is not JSON`,
    );
  });
});
