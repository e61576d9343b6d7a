/**
 * Escalation, end to end: `pipewatch run --once` at instants the test chooses (the clock
 * injected), the simulator as the API, the fake Slack and the fake PagerDuty. A rule
 * posts Transco force majeure notices to #gas and pages on-call when nobody acknowledged
 * within 30 minutes. The Acknowledge button is clicked through the Slack app as the
 * daemon serves it (any replica serves it, on the same database), signed as Slack signs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertEngine } from '../../src/alerts/engine.js';
import { ChatCore } from '../../src/chat/service.js';
import { silentLogger } from '../../src/lib/logger.js';
import type { Simulator } from '../../src/simulator/index.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import { Store } from '../../src/store/index.js';
import { type PagerDutyFake, startPagerDutyFake } from '../fakes/pagerduty.js';
import { startSimulatedApi } from '../fakes/simulated-api.js';
import { FAKE_TOKEN as SLACK_TOKEN, type SlackFake, startSlackFake } from '../fakes/slack.js';
import { blockActions } from '../fakes/slack-payloads.js';
import { slackRequestSender } from '../fakes/slack-requests.js';
import { serveChatEndpoints } from '../support/chat-endpoints.js';
import { InstantClock, ManualClock } from '../support/clock.js';
import { cli } from './run-cli.js';

const START = new Date('2026-11-20T15:00:00Z');
const MINUTE = 60_000;
const KEY = 'R0ESCALATE0000000000000000009a1b';
const SECRET = '0123456789abcdef0123456789abcdef';
const RULES = `
rules:
  - name: transco-force-majeure
    notices:
      pipelines: [transco]
      types: [force majeure]
    notify:
      - slack: "#gas"
    escalate:
      after: 30m
      to:
        - pagerduty: ${KEY}
`;

let sim: Simulator;
let slack: SlackFake;
let pagerduty: PagerDutyFake;
let env: Record<string, string>;
let dataDir: string;
const instant = (minutes: number) => new Date(START.getTime() + minutes * MINUTE);
const at = (minutes: number) => new InstantClock(instant(minutes));

beforeAll(async () => {
  ({ sim, env, dataDir } = await startSimulatedApi({ seed: 7, start: START, rules: RULES }));
  slack = await startSlackFake();
  pagerduty = await startPagerDutyFake();
  env = {
    ...env,
    SLACK_BOT_TOKEN: SLACK_TOKEN,
    SLACK_API_URL: slack.url,
    SLACK_SIGNING_SECRET: SECRET,
    PAGERDUTY_API_URL: pagerduty.url,
  };
});
afterAll(async () => {
  await Promise.all([sim.close(), slack.close(), pagerduty.close()]);
});

/** One `run --once` at `minutes` after the start; it must succeed. */
async function runAt(minutes: number): Promise<void> {
  const run = await cli(['run', '--once'], env, { clock: at(minutes) });
  expect(run.code, run.stderr).toBe(0);
}

/** `user` clicks Acknowledge on the Slack message `ts` in #gas at `minutes`. */
async function acknowledge(ts: string, user: string, minutes: number): Promise<void> {
  const clock = new ManualClock(instant(minutes));
  const store = Store.open(dataDir);
  const engine = new AlertEngine(
    { store: asyncStoreOf(store), clock, logger: silentLogger, maxAlertAgeMs: 86_400_000 },
    [],
  );
  const chat = new ChatCore({
    store: asyncStoreOf(store),
    engine,
    clock,
    logger: silentLogger,
    policy: { admins: new Set() },
  });
  const endpoints = await serveChatEndpoints({
    chat,
    store,
    clock,
    slack: { apiUrl: slack.url, token: SLACK_TOKEN, signingSecret: SECRET },
  });
  try {
    const send = slackRequestSender({
      url: `${endpoints.server.url}/slack/events`,
      signingSecret: SECRET,
      clock,
    });
    const click = blockActions(slack, {
      source: { message: { channel: 'C0GAS', ts } },
      actionId: 'pipewatch_ack',
      user,
      at: clock.now(),
    });
    expect((await send.interactive(click)).status).toBe(200);
    await slack.until(
      'the acknowledged message',
      () => JSON.stringify(slack.message('C0GAS', ts)?.blocks).includes('Acknowledged by'),
      10_000,
    );
  } finally {
    await endpoints.close();
    store.close();
  }
}

/** The PagerDuty events about notice `id`. */
function pagesOf(id: number) {
  return pagerduty.events.filter((e) => e.dedup_key === `pipewatch/notice/transco/${id}`);
}

/** A new Transco force majeure at the simulator. */
function forceMajeure(subject: string) {
  return sim.control.addNotice({
    pipeline_slug: 'transco',
    type: 'Force Majeure',
    category: 'Critical',
    status: 'Initiate',
    subject,
    response_at: '',
  });
}

/** The Slack post of a notice in #gas, with its buttons. */
function postOf(subject: string) {
  const post = slack.posts.find((p) => p.channel === 'C0GAS' && p.text.includes(subject));
  expect(post, `a post in #gas about ${subject}`).toBeDefined();
  expect(JSON.stringify(post!.blocks)).toContain('pipewatch_ack');
  return post!;
}

describe('escalate: {after: 30m, to: [pagerduty]}', () => {
  it('pages once when nobody acknowledged in time, and resolves when someone does later', async () => {
    await runAt(1);
    const notice = forceMajeure('Station 165 compressor failure');
    await runAt(2);
    const post = postOf('Station 165 compressor failure');
    expect(pagerduty.events).toEqual([]);

    // 29 minutes after the alert: not yet.
    await runAt(31);
    expect(pagerduty.events).toEqual([]);

    // 30 minutes: nobody acknowledged, on-call is paged.
    await runAt(32);
    expect(pagerduty.events).toHaveLength(1);
    const [page] = pagerduty.events;
    expect(page).toMatchObject({
      routing_key: KEY,
      event_action: 'trigger',
      dedup_key: `pipewatch/notice/transco/${notice.id}`,
      payload: {
        severity: 'critical',
        custom_details: { escalation: 'not acknowledged within 30m' },
      },
    });
    expect(page!.payload!.summary).toContain('Not acknowledged in 30m: Force Majeure');

    // Once: later runs page no more.
    await runAt(40);
    expect(pagerduty.events).toHaveLength(1);

    // Acknowledged after the escalation: the incident is resolved.
    await acknowledge(post.ts, 'W0BOB', 45);
    await runAt(46);
    expect(pagerduty.events.map((e) => [e.event_action, e.dedup_key])).toEqual([
      ['trigger', `pipewatch/notice/transco/${notice.id}`],
      ['resolve', `pipewatch/notice/transco/${notice.id}`],
    ]);
    expect(pagerduty.open.size).toBe(0);

    const why = await cli(['why', String(notice.id)], env, { clock: at(47) });
    expect(why.stdout).toContain(
      'escalates to pagerduty:…9a1b at 2026-11-20T15:32:00Z unless acknowledged',
    );
    expect(why.stdout).toContain('not acknowledged within 30m; to pagerduty:…9a1b');
    expect(why.stdout).toMatch(
      /acknowledged by W0BOB at 2026-11-20T15:45:00Z on slack:#gas after the escalation; resolves pagerduty:…9a1b/,
    );
    expect(why.stdout).not.toContain(KEY);
  });

  it('pages nobody when someone acknowledged in time', async () => {
    const notice = forceMajeure('Station 180 unit outage');
    await runAt(60);
    const post = postOf('Station 180 unit outage');
    await acknowledge(post.ts, 'U0ALICE', 75);
    await runAt(95);
    expect(pagesOf(notice.id)).toEqual([]);

    const why = await cli(['why', String(notice.id)], env, { clock: at(96) });
    expect(why.stdout).toContain(
      'not escalated: acknowledged by U0ALICE at 2026-11-20T16:15:00Z on slack:#gas',
    );
  });

  it('pages nobody about a notice cancelled before its time', async () => {
    const notice = forceMajeure('Station 200 meter failure');
    await runAt(100);
    postOf('Station 200 meter failure');
    sim.control.updateNotice(notice.id, { status: 'Cancelled' });
    await runAt(110);
    await runAt(131);
    expect(pagesOf(notice.id)).toEqual([]);
    const why = await cli(['why', String(notice.id)], env, { clock: at(132) });
    expect(why.stdout).toContain('not escalated: its status is Cancelled');
  });

  it('refuses to start when no message of the rule could be acknowledged', async () => {
    const { SLACK_SIGNING_SECRET: _, ...withoutApp } = env;
    const run = await cli(['run', '--once'], withoutApp, { clock: at(200) });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      "rule 'transco-force-majeure' escalates what nobody acknowledges, but its messages carry no Acknowledge button: set SLACK_SIGNING_SECRET or SLACK_APP_TOKEN for Slack, DISCORD_PUBLIC_KEY for Discord",
    );
  });
});
