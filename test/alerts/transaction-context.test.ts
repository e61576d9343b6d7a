/**
 * The decisions of one ingest transaction share one context: what each would read for
 * itself (the subscriptions' revision, the silences, whether a reminder is scheduled or an
 * alert held, the pipelines' zones) is read once for the transaction, and they decide
 * exactly what the same notices decide one call at a time.
 */
import { describe, expect, it, vi } from 'vitest';
import { AlertEngine } from '../../src/alerts/engine.js';
import type { IngestHooks } from '../../src/ingest/events.js';
import { ingestNoticePage, ingestNoticePageInSlices } from '../../src/ingest/notice-sync.js';
import { silentLogger } from '../../src/lib/logger.js';
import type { NoticeRule } from '../../src/rules/types.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import type { Store } from '../../src/store/index.js';
import { makeNotice } from '../fakes/notice.js';
import { dmReminders, ruleAt } from '../fakes/rules.js';
import { transcoChannelSilence } from '../fakes/silence.js';
import { ManualClock } from '../support/clock.js';
import { useTempStores } from '../support/temp-store.js';

const { open } = useTempStores('pipewatch-tx-context-');

const constraints: NoticeRule = {
  kind: 'notices',
  name: 'constraints',
  at: ruleAt,
  filter: { pipelines: ['transco', 'tennessee'] },
  on: ['new', 'updated'],
  notify: [{ kind: 'slack', channel: 'C0GAS' }, { kind: 'console' }],
};
/**
 * One page: a notice with a deadline, another pipeline's, the first again as amended, and
 * one that supersedes the first (its reminders are cancelled); Transco's Slack channel is
 * silenced.
 */
const page = [
  makeNotice({ id: 301, identifier: '26-0501', response_at: '2026-11-23T15:00:00Z' }),
  makeNotice({ id: 302, pipeline_slug: 'tennessee', pipeline_name: 'Tennessee' }),
  makeNotice({
    id: 301,
    identifier: '26-0501',
    response_at: '2026-11-23T15:00:00Z',
    status: 'Supersede',
    subject: 'Capacity Constraint - Station 165 (amended)',
  }),
  makeNotice({
    id: 303,
    identifier: '26-0502',
    notice: 'This notice supersedes Notice ID 26-0501.',
    response_at: '2026-11-24T15:00:00Z',
  }),
];

function silenceTranscoChannel(store: Store) {
  store.silences.add(transcoChannelSilence());
}

function engineOn(store: Store) {
  const clock = new ManualClock('2026-11-20T15:00:00Z');
  return new AlertEngine(
    { store: asyncStoreOf(store), clock, logger: silentLogger, maxAlertAgeMs: 86_400_000 },
    [constraints, dmReminders],
  );
}

/** Stores `page` through the ingest step with `hooks`, in transactions of `budgetMs`. */
function ingest(store: Store, hooks: IngestHooks, budgetMs = Number.POSITIVE_INFINITY) {
  const context = {
    seenAt: '2026-11-20T15:00:00Z' as const,
    baseline: false,
    alertableAfter: '2026-11-19T15:00:00Z' as const,
    pipelines: new Set<string>(),
    hooks,
  };
  return budgetMs === Number.POSITIVE_INFINITY
    ? ingestNoticePage(asyncStoreOf(store), page, context)
    : ingestNoticePageInSlices(asyncStoreOf(store), page, context, budgetMs);
}

/** Everything the decisions wrote: alerts queued, alerts held back, reminders, the audit. */
function decided(store: Store) {
  const all = (sql: string) => store.db.prepare(sql).all();
  return {
    outbox: all('SELECT subject, rule, target, payload, notice_version FROM outbox ORDER BY id'),
    held: all('SELECT * FROM held ORDER BY 1'),
    reminders: all('SELECT * FROM reminders ORDER BY 1'),
    audit: all('SELECT rule, event, subject, decision, reason FROM audit ORDER BY id'),
  };
}

describe("one transaction's decisions", () => {
  it('decide what the same notices decide one call at a time', async () => {
    const alone = open().store;
    const shared = open().store;
    for (const store of [alone, shared]) silenceTranscoChannel(store);
    const { transaction: _, ...callByCall } = engineOn(alone).hooks();
    await ingest(alone, callByCall);
    await ingest(shared, engineOn(shared).hooks());

    const expected = decided(alone);
    expect(expected.outbox.length).toBeGreaterThan(0);
    expect(expected.held.length).toBeGreaterThan(0);
    expect(expected.reminders.length).toBeGreaterThan(0);
    expect(expected.audit.some((a) => (a as { decision: string }).decision === 'muted')).toBe(true);
    expect(decided(shared)).toEqual(expected);
  });

  it('read the subscriptions and silences once a transaction, not once a notice', async () => {
    const store = open().store;
    silenceTranscoChannel(store);
    const engine = engineOn(store);
    await engine.rules();
    const async = asyncStoreOf(store);
    const revisions = vi.spyOn(async.subscriptions, 'revision');
    const silences = vi.spyOn(async.silences, 'revision');
    const page1 = await ingest(store, engine.hooks());
    expect(page1.events).toHaveLength(4);
    expect(revisions).toHaveBeenCalledTimes(1);
    expect(silences).toHaveBeenCalledTimes(1);
  });

  it('read them again at each transaction of a page stored in slices', async () => {
    const store = open().store;
    const engine = engineOn(store);
    await engine.rules();
    const revisions = vi.spyOn(asyncStoreOf(store).subscriptions, 'revision');
    await ingest(store, engine.hooks(), 0);
    // A budget of 0 ends each slice with its first notice.
    expect(revisions).toHaveBeenCalledTimes(page.length);
  });
});
