/**
 * Escalation decisions on a real database with a manual clock: an acknowledgement on
 * Discord stops one as a Slack one does (the message a click names is found from what
 * the channel recorded when it posted), and a rule that no longer escalates drops it.
 */
import { describe, expect, it } from 'vitest';
import { AlertEngine } from '../../src/alerts/engine.js';
import { explainNotice, verdictLine } from '../../src/alerts/explain.js';
import { compileRules } from '../../src/alerts/rules.js';
import {
  discordPostedDetail,
  postedMessageOf,
  slackPostedDetail,
} from '../../src/domain/posted-message.js';
import { silentLogger } from '../../src/lib/logger.js';
import type { NoticeRule } from '../../src/rules/types.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import type { Store } from '../../src/store/index.js';
import { noticeEvent as event, makeNotice } from '../fakes/notice.js';
import { ManualClock } from '../support/clock.js';
import { useTempStores } from '../support/temp-store.js';

const KEY = 'R0ESCALATE0000000000000000009a1b';
const CHANNEL = '1203456789012345678';
const MINUTE = 60_000;
const stores = useTempStores('pipewatch-escalations-');

const rule: NoticeRule = {
  kind: 'notices',
  name: 'fm',
  at: { file: 'rules/fm.yaml', line: 1, col: 1 },
  filter: { pipelines: ['transco'] },
  on: ['new'],
  notify: [{ kind: 'discord', channel: CHANNEL }],
  escalate: { afterMs: 30 * MINUTE, to: [{ kind: 'pagerduty', routingKey: KEY }] },
};

async function setup() {
  const { store } = stores.open();
  const clock = new ManualClock('2026-11-20T15:00:00Z');
  const engine = new AlertEngine(
    { store: asyncStoreOf(store), clock, logger: silentLogger, maxAlertAgeMs: 86_400_000 },
    [rule],
  );
  const e = event(makeNotice({ id: 101 }));
  const s = asyncStoreOf(store);
  await s.transaction(async () => {
    await s.notices.upsert(e.notice, e.seenAt, false);
    await engine.hooks().notices?.([e]);
  });
  return { store, clock, engine };
}

/** Marks the Discord alert of notice 101 sent as message `id`, as the channel records it. */
function posted(store: Store, id: string) {
  const [row] = store.outbox.forSubject('notice:101:v1');
  store.outbox.markSent([row!.id], '2026-11-20T15:00:05Z', discordPostedDetail(CHANNEL, id));
}

const escalationsOf = (store: Store) =>
  store.audit
    .forNotice(101)
    .filter((a) => a.event === 'escalation')
    .map((a) => [a.decision, a.reason]);

describe('escalations', () => {
  it('a click on Acknowledge in Discord stops it', async () => {
    const { store, clock, engine } = await setup();
    posted(store, '1311000000000000001');
    store.acks.acknowledge(
      'discord',
      CHANNEL,
      '1311000000000000001',
      '4455',
      '2026-11-20T15:10:00Z',
    );
    clock.advance(30 * MINUTE);
    expect((await engine.runReminders()).escalations).toBe(0);
    expect(store.outbox.forSubject('notice:101:escalation')).toEqual([]);
    expect(escalationsOf(store)).toEqual([
      ['scheduled', 'escalates to pagerduty:…9a1b at 2026-11-20T15:30:00Z unless acknowledged'],
      [
        'acknowledged',
        `not escalated: acknowledged by 4455 at 2026-11-20T15:10:00Z on discord:${CHANNEL}`,
      ],
    ]);
  });

  it('an acknowledgement of another message does not', async () => {
    const { store, clock, engine } = await setup();
    posted(store, '1311000000000000001');
    store.acks.acknowledge(
      'discord',
      CHANNEL,
      '1311000000000000999',
      '4455',
      '2026-11-20T15:10:00Z',
    );
    clock.advance(30 * MINUTE);
    expect((await engine.runReminders()).escalations).toBe(1);
    expect(store.outbox.forSubject('notice:101:escalation').map((r) => r.key)).toEqual([
      'fm|notice:101:escalation-escalated|pagerduty:R0ESCALATE0000000000000000009a1b',
    ]);
  });

  it('is dropped when the rule no longer escalates', async () => {
    const { store, clock, engine } = await setup();
    const { escalate: _, ...quiet } = rule;
    await engine.setRules([quiet]);
    clock.advance(30 * MINUTE);
    expect((await engine.runReminders()).escalations).toBe(0);
    expect(escalationsOf(store).at(-1)).toEqual([
      'dropped',
      'not escalated: the rule no longer escalates, or is not in force',
    ]);
    expect(store.escalations.open()).toEqual([]);
  });
});

describe('rules test', () => {
  it('says a rule that would alert also escalates, where and after how long', () => {
    const [verdict] = explainNotice(compileRules([rule]), makeNotice({ id: 900 }), {
      now: new Date('2026-11-20T15:00:00Z'),
      maxAlertAgeMs: 86_400_000,
      zone: 'America/Chicago',
    });
    expect(verdictLine(verdict!)).toBe(
      `fm: fires → discord:${CHANNEL} (matches, judged as new (the notice is not stored); escalates to pagerduty:…9a1b if nobody acknowledges it within 30m)`,
    );
  });
});

describe('the message a delivery names', () => {
  it('reads back what the Slack and Discord channels write, and nothing else', () => {
    expect(postedMessageOf('slack', slackPostedDetail('C0GAS', '1732111200.000100'))).toEqual({
      platform: 'slack',
      channel: 'C0GAS',
      message: '1732111200.000100',
    });
    expect(
      postedMessageOf(
        'slack',
        slackPostedDetail('C0GAS', '1732111200.000200', '1732111200.000100'),
      ),
    ).toMatchObject({ message: '1732111200.000200' });
    expect(
      postedMessageOf(
        'discord',
        discordPostedDetail(CHANNEL, '1311000000000000002', '131100000000000001'),
      ),
    ).toEqual({ platform: 'discord', channel: CHANNEL, message: '1311000000000000002' });
    expect(postedMessageOf('webhook', slackPostedDetail('C0GAS', '1.2'))).toBeUndefined();
    expect(postedMessageOf('slack', 'ok HTTP 200')).toBeUndefined();
    expect(postedMessageOf('discord', null)).toBeUndefined();
  });
});
