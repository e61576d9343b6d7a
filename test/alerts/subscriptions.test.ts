/**
 * Subscriptions and silences at decision time: a subscription stored in the database is
 * judged with the rule files, in the same transaction, and survives a reload of the
 * files; one changed by another connection is put in force before the next decision; a
 * silence holds back what it matches, once, and says so in the audit, but not an alert
 * decided before it began, which its summary then leaves out.
 */
import { describe, expect, it } from 'vitest';
import { AlertEngine } from '../../src/alerts/engine.js';
import type { NoticeEvent } from '../../src/ingest/events.js';
import { silentLogger } from '../../src/lib/logger.js';
import { parseRuleFile } from '../../src/rules/loader.js';
import type { NoticeRule } from '../../src/rules/types.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import { Store } from '../../src/store/index.js';
import type { NewSilence } from '../../src/store/silences.js';
import type { Notice } from '../../src/upstream/schemas.js';
import { makeNotice, noticeEvent } from '../fakes/notice.js';
import { transcoChannelSilence } from '../fakes/silence.js';
import { ManualClock } from '../support/clock.js';
import { listMatchers } from '../support/silence-matchers.js';
import { useTempStore } from '../support/temp-store.js';

const temp = useTempStore('pipewatch-subs-');

const fileRule: NoticeRule = {
  kind: 'notices',
  name: 'file-constraints',
  at: { file: 'rules/test.yaml', line: 1, col: 1 },
  filter: { pipelines: ['transco'] },
  on: ['new'],
  notify: [{ kind: 'console' }],
};

function setup() {
  const clock = new ManualClock('2026-11-20T15:00:00Z');
  const engine = new AlertEngine(
    { store: asyncStoreOf(temp.store), clock, logger: silentLogger, maxAlertAgeMs: 86_400_000 },
    [fileRule],
  );
  return { clock, engine };
}

async function ingest(engine: AlertEngine, n: Notice, over: Partial<NoticeEvent> = {}) {
  await asyncStoreOf(temp.store).transaction(async () => {
    temp.store.notices.upsert(n, '2026-11-20T15:00:00Z', false);
    await engine.hooks().notices?.([noticeEvent(n, over)]);
  });
}

function subscribe(s: Store, rule: Record<string, unknown>, over: Record<string, unknown> = {}) {
  return s.subscriptions.add({
    rule,
    target: 'slack:C0GAS',
    source: 'slack',
    channel: 'slack:C0GAS',
    created_by: 'U0ALICE',
    created_at: '2026-11-20T14:30:00Z',
    notice_id: null,
    ...over,
  });
}

const constraintsToGas = {
  notices: { pipelines: ['transco'], types: ['capacity constraint'] },
  notify: [{ slack: 'C0GAS' }],
};

/** The key of every delivery decided, in order. */
const keys = () => temp.store.outbox.forSubject('').map((r) => r.key);

describe('subscriptions', () => {
  it('are judged with the rule files, named sub-<id>, with where they came from', async () => {
    const { engine } = setup();
    const id = subscribe(temp.store, constraintsToGas);
    await ingest(engine, makeNotice());
    expect(keys().sort()).toEqual([
      'file-constraints|notice:101:v1|console',
      `sub-${id}|notice:101:v1|slack:C0GAS`,
    ]);
    const sub = (await engine.rules()).find((r) => r.name === `sub-${id}`);
    expect(sub?.origin?.label).toBe('slack:C0GAS by U0ALICE, 2026-11-20');
  });

  it('made by another connection are in force at the next decision, and gone when removed', async () => {
    const { engine } = setup();
    const other = Store.open(temp.dir);
    const id = subscribe(other, constraintsToGas);
    await ingest(engine, makeNotice({ id: 1 }));
    other.subscriptions.remove(id);
    other.close();
    await ingest(engine, makeNotice({ id: 2 }));
    expect(keys().filter((k) => k.startsWith('sub-'))).toEqual([
      `sub-${id}|notice:1:v1|slack:C0GAS`,
    ]);
  });

  it('stay in force when the rule files are reloaded', async () => {
    const { engine } = setup();
    const id = subscribe(temp.store, constraintsToGas);
    await engine.setRules([]);
    expect((await engine.rules()).map((r) => r.name)).toEqual([`sub-${id}`]);
  });

  it('do not alert while paused, and do again once resumed', async () => {
    const { engine } = setup();
    subscribe(temp.store, constraintsToGas);
    temp.store.subscriptions.pauseChannel(
      'slack:C0GAS',
      'channel_archived',
      '2026-11-20T14:40:00Z',
    );
    await ingest(engine, makeNotice({ id: 1 }));
    temp.store.subscriptions.resumeChannel('slack:C0GAS');
    await ingest(engine, makeNotice({ id: 2 }));
    expect(keys().filter((k) => k.startsWith('sub-'))).toEqual(['sub-1|notice:2:v1|slack:C0GAS']);
  });

  it('one that is no longer valid is left out and the others stay in force', async () => {
    const { engine } = setup();
    subscribe(temp.store, {
      notices: { pipelines: ['transco'], text: '(?=x)' },
      notify: [{ slack: 'C0GAS' }],
    });
    const good = subscribe(temp.store, constraintsToGas);
    await ingest(engine, makeNotice());
    expect(keys()).toContain(`sub-${good}|notice:101:v1|slack:C0GAS`);
    expect((await engine.rules()).map((r) => r.name)).toEqual(['file-constraints', `sub-${good}`]);
  });

  it('a reminder for one notice schedules for that notice only', async () => {
    const { engine } = setup();
    subscribe(
      temp.store,
      { deadlines: { before: ['2h'] }, notify: [{ slack_dm: 'U0ALICE' }] },
      { notice_id: 7, channel: null, target: 'slack_dm:U0ALICE' },
    );
    await ingest(engine, makeNotice({ id: 6, response_at: '2026-11-21T12:00:00Z' }));
    await ingest(engine, makeNotice({ id: 7, response_at: '2026-11-21T12:00:00Z' }));
    expect(temp.store.reminders.all().map((r) => [r.rule, r.notice_id, r.due_at])).toEqual([
      ['sub-1', 7, '2026-11-21T10:00:00Z'],
    ]);
  });

  it('rule files may not take the names subscriptions have', () => {
    const text = 'rules:\n  - name: sub-12\n    notices: {}\n    notify: [console]\n';
    expect(parseRuleFile(text, 'r.yaml').problems[0]?.message).toMatch(/kept for subscriptions/);
  });
});

describe('silences', () => {
  const silence = (over: Partial<NewSilence> = {}) =>
    temp.store.silences.add(transcoChannelSilence(over));

  it('hold back what they match, once, and the audit says which silence until when', async () => {
    const { engine } = setup();
    subscribe(temp.store, constraintsToGas);
    const id = silence();
    await ingest(engine, makeNotice());
    await ingest(engine, makeNotice());
    expect(keys()).toEqual(['file-constraints|notice:101:v1|console']);
    const muted = temp.store.audit.forNotice(101).filter((a) => a.decision === 'muted');
    expect(muted.map((a) => a.reason)).toEqual([
      `muted by silence ${id} (pipeline=transco target=slack:C0GAS) until 2026-11-20T16:00:00Z for slack:C0GAS`,
    ]);
    expect(temp.store.silences.heldBy(id)).toHaveLength(1);
    expect(temp.store.silences.heldBy(id)[0]?.alert).toMatchObject({
      rule: 'sub-1',
      notice_id: 101,
      title: 'Notice 26-0412: Capacity Constraint - Station 165',
    });
  });

  it('leave what they held decided: the same notice again after the end alerts no more', async () => {
    const { clock, engine } = setup();
    subscribe(temp.store, constraintsToGas);
    const id = silence();
    await ingest(engine, makeNotice());
    clock.set('2026-11-20T17:00:00Z');
    await ingest(engine, makeNotice());
    expect(keys()).toEqual(['file-constraints|notice:101:v1|console']);
    expect(temp.store.silences.heldBy(id)).toHaveLength(1);
    expect(temp.store.audit.forNotice(101).map((a) => [a.rule, a.decision])).toContainEqual([
      'sub-1',
      'duplicate',
    ]);
  });

  it('do not hold an alert delivered before they began: it is a duplicate, not in the summary', async () => {
    const { clock, engine } = setup();
    subscribe(temp.store, constraintsToGas);
    await ingest(engine, makeNotice());
    const [delivered] = temp.store.outbox.forSubject('').filter((r) => r.rule === 'sub-1');
    temp.store.outbox.markSent([delivered!.id], '2026-11-20T15:00:05Z', 'ok');
    clock.set('2026-11-20T15:10:00Z');
    const id = silence({ starts_at: '2026-11-20T15:10:00Z' });
    // The same notice again (a replay, a restart) while the silence is in force.
    await ingest(engine, makeNotice());
    expect(temp.store.silences.heldBy(id)).toEqual([]);
    const judged = temp.store.audit.forNotice(101).filter((a) => a.rule === 'sub-1');
    expect(judged.map((a) => [a.decision, a.reason])).toEqual([
      ['duplicate', 'already decided for slack:C0GAS'],
    ]);
    clock.set('2026-11-20T16:00:00Z');
    expect((await engine.runReminders()).summaries).toBe(0);
    expect(temp.store.outbox.forSubject('silence:')).toEqual([]);
  });

  it('planned ahead hold nothing before their start, then hold, and sum up when they end', async () => {
    const { clock, engine } = setup();
    subscribe(temp.store, constraintsToGas);
    const id = silence({
      matchers: [
        { key: 'pipeline', op: '=~', value: 'trans.*' },
        { key: 'type', op: '!~', value: 'planned maint.*' },
      ],
      starts_at: '2026-11-20T15:30:00Z',
      ends_at: '2026-11-20T16:30:00Z',
      created_at: '2026-11-20T15:00:00Z',
    });
    await ingest(engine, makeNotice({ id: 1 }));
    clock.set('2026-11-20T15:30:00Z');
    await ingest(engine, makeNotice({ id: 2 }));
    // The silence holds the constraint, not maintenance: its file rule matches every type.
    await ingest(engine, makeNotice({ id: 3, type: 'Planned Maintenance' }));
    expect(keys().filter((k) => k.includes('notice:'))).toEqual([
      'sub-1|notice:1:v1|slack:C0GAS',
      'file-constraints|notice:1:v1|console',
      'file-constraints|notice:3:v1|console',
    ]);
    expect(temp.store.silences.heldBy(id).map((h) => h.rule)).toEqual([
      'file-constraints',
      'sub-1',
    ]);
    clock.set('2026-11-20T16:30:00Z');
    expect((await engine.runReminders()).summaries).toBe(2);
    const summary = temp.store.outbox.forSubject('silence:')[0]?.payload.silence;
    expect(summary).toMatchObject({
      id,
      matchers: 'pipeline=~trans.* type!~"planned maint.*"',
      started_at: '2026-11-20T15:30:00Z',
      ended_at: '2026-11-20T16:30:00Z',
      held: 1,
    });
  });

  it('do not hold what they do not match, nor after they end or are lifted', async () => {
    const { clock, engine } = setup();
    subscribe(temp.store, constraintsToGas);
    const id = silence({ matchers: listMatchers({ pipelines: ['tgp'] }) });
    await ingest(engine, makeNotice({ id: 1 }));
    temp.store.silences.lift(id, 'U0ALICE', '2026-11-20T15:00:00Z');
    silence({ ends_at: '2026-11-20T15:30:00Z' });
    clock.set('2026-11-20T15:30:00Z');
    await ingest(engine, makeNotice({ id: 2 }));
    expect(keys().filter((k) => k.startsWith('sub-'))).toEqual([
      'sub-1|notice:1:v1|slack:C0GAS',
      'sub-1|notice:2:v1|slack:C0GAS',
    ]);
  });
});

describe('when a silence ends', () => {
  it('each target it held alerts from gets one summary, once, listing them newest first', async () => {
    const { clock, engine } = setup();
    subscribe(temp.store, constraintsToGas);
    const id = temp.store.silences.add({
      matchers: listMatchers({ pipelines: ['transco'] }),
      starts_at: '2026-11-20T14:00:00Z',
      ends_at: '2026-11-20T16:00:00Z',
      created_by: 'slack:U0ALICE',
      comment: null,
      created_at: '2026-11-20T14:00:00Z',
    });
    await ingest(engine, makeNotice({ id: 1, url: 'https://pipeline.example/notice/1' }));
    await ingest(engine, makeNotice({ id: 2, subject: 'Second' }));
    expect((await engine.runReminders()).summaries).toBe(0);
    clock.set('2026-11-20T16:00:00Z');
    expect((await engine.runReminders()).summaries).toBe(2);
    expect((await engine.runReminders()).summaries).toBe(0);
    const summaries = temp.store.outbox
      .due('2030-01-01T00:00:00Z')
      .filter((r) => r.payload.kind === 'silence');
    expect(summaries.map((r) => [r.key, r.payload.silence?.held])).toEqual([
      [`silence-${id}|silence:${id}:ended|console`, 2],
      [`silence-${id}|silence:${id}:ended|slack:C0GAS`, 2],
    ]);
    expect(summaries[1]?.payload).toMatchObject({
      kind: 'silence',
      state: 'ended',
      pipeline: { slug: 'transco' },
      silence: {
        id,
        matchers: 'pipeline=transco',
        ended_by: 'expired',
        alerts: [
          { notice_id: 2, title: 'Notice 26-0412: Second', url: null },
          { notice_id: 1, url: 'https://pipeline.example/notice/1' },
        ],
      },
    });
  });

  it('a summary is never held back by another silence', async () => {
    const { clock, engine } = setup();
    subscribe(temp.store, constraintsToGas);
    for (const ends of ['2026-11-20T15:30:00Z', '2026-11-20T18:00:00Z'])
      temp.store.silences.add({
        matchers: listMatchers({ targets: ['slack:C0GAS'] }),
        starts_at: '2026-11-20T14:00:00Z',
        ends_at: ends,
        created_by: 'cli',
        comment: null,
        created_at: '2026-11-20T14:00:00Z',
      });
    await ingest(engine, makeNotice());
    clock.set('2026-11-20T15:30:00Z');
    expect((await engine.runReminders()).summaries).toBe(1);
  });

  it('a silence that held nothing ends without a word; a lifted one says so', async () => {
    const { engine } = setup();
    subscribe(temp.store, constraintsToGas);
    const quiet = temp.store.silences.add({
      matchers: listMatchers({ pipelines: ['tgp'] }),
      starts_at: '2026-11-20T14:00:00Z',
      ends_at: '2026-11-20T15:00:00Z',
      created_by: 'cli',
      comment: null,
      created_at: '2026-11-20T14:00:00Z',
    });
    const lifted = temp.store.silences.add({
      matchers: listMatchers({ targets: ['slack:C0GAS'] }),
      starts_at: '2026-11-20T14:00:00Z',
      ends_at: '2026-11-20T18:00:00Z',
      created_by: 'cli',
      comment: null,
      created_at: '2026-11-20T14:00:00Z',
    });
    await ingest(engine, makeNotice());
    temp.store.silences.lift(lifted, 'slack:U0ALICE', '2026-11-20T15:00:00Z');
    await engine.runReminders();
    const summaries = temp.store.outbox
      .due('2030-01-01T00:00:00Z')
      .filter((r) => r.payload.kind === 'silence');
    expect(summaries.map((r) => [r.rule, r.payload.silence?.ended_by])).toEqual([
      [`silence-${lifted}`, 'lifted'],
    ]);
    expect(temp.store.silences.get(quiet)?.summarized_at).not.toBeNull();
  });
});
