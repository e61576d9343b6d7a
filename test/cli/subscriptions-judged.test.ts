/**
 * Subscriptions and silences where rules are shown, on a database real `pipewatch run
 * --once` cycles filled against the simulator: a silence made with `silence add` holds
 * back a rule file's alert while a subscription alerts; subscriptions made afterwards,
 * a paused one and a reminder for one notice are added. `why` and `rules test` judge the
 * subscriptions with the rule files, each shown with where it came from, say "muted by
 * silence 1 until …" and "did not exist yet"; `status` and the daemon's `/status` count
 * them, and see changes the command line makes while the daemon runs.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import { Store } from '../../src/store/index.js';
import type { NewSubscription } from '../../src/store/subscriptions.js';
import { startSimulatedApi } from '../fakes/simulated-api.js';
import { ManualClock } from '../support/clock.js';
import { cli, startCli, until } from './run-cli.js';
import { at, sql, tempDir } from './stored-fixture.js';
import { FILE_RULES } from './subscription-fixture.js';

const START = new Date('2026-11-20T15:00:00Z');
const RUN_AT = new Date(START.getTime() + 60_000);
const SILENCE_END = '2026-11-20T19:01:00Z';
/** Its type matcher a regex, matched in any letter case against the whole type. */
const SILENCE_1 = 'rule=transco-constraints type=~"capacity .*"';
const STATUS_TOKEN = 'status-token-of-the-subscriptions-test';

let sim: Simulator;
let env: Record<string, string>;
let ids: { constraint: number; ofo: number };

/** A subscription made from the command line that prints to the console. */
function cliSubscription(
  rule: Record<string, unknown>,
  by: string,
  createdAt: string,
  extra: Partial<NewSubscription> = {},
): NewSubscription {
  return {
    rule: { ...rule, notify: [{ console: true }] },
    target: 'console',
    source: 'cli',
    channel: null,
    created_by: by,
    created_at: createdAt,
    notice_id: null,
    ...extra,
  };
}

function addSubscriptions(dataDir: string, subs: NewSubscription[], pause?: string): void {
  const store = Store.open(dataDir);
  try {
    for (const s of subs) store.subscriptions.add(s);
    if (pause) store.subscriptions.pauseChannel(pause, 'channel_archived', '2026-11-20T16:00:00Z');
  } finally {
    store.close();
  }
}

const CONSTRAINTS = { notices: { pipelines: ['transco'], types: ['constraint'] } };

beforeAll(async () => {
  let dataDir: string;
  ({ sim, env, dataDir } = await startSimulatedApi({ seed: 41, start: START, rules: FILE_RULES }));
  expect((await cli(['run', '--once'], env, at(RUN_AT))).code).toBe(0);
  // Made before the notices arrive: sub-1 alerts; sub-2's channel is gone, so it is
  // paused; sub-3 reminds of the flow order, and a silence holds its first reminder back.
  addSubscriptions(
    dataDir,
    [
      cliSubscription(CONSTRAINTS, 'alice', '2026-11-20T15:00:30Z'),
      cliSubscription(CONSTRAINTS, 'U0DAVE', '2026-11-20T15:00:30Z', {
        source: 'slack',
        channel: 'slack:C0GONE1234',
        target: 'slack:C0GONE1234',
        rule: { ...CONSTRAINTS, notify: [{ slack: 'C0GONE1234' }] },
      }),
      cliSubscription(
        { deadlines: { before: ['2h', '30m'], pipelines: ['texas-eastern'] } },
        'erin',
        '2026-11-20T15:00:30Z',
      ),
    ],
    'slack:C0GONE1234',
  );
  const silence = await cli(
    [
      'silence',
      'add',
      'rule=transco-constraints',
      'type=~"capacity .*"',
      '--for',
      '4h',
      '--comment',
      'storm',
    ],
    env,
    at(RUN_AT),
  );
  expect(silence.stdout).toBe(`silence 1: ${SILENCE_1} until ${SILENCE_END} (4h)\n`);
  expect((await cli(['silence', 'add', 'rule=sub-3', '--for', '4h'], env, at(RUN_AT))).code).toBe(
    0,
  );
  ids = {
    constraint: sim.control.addNotice({
      pipeline_slug: 'transco',
      type: 'Capacity Constraint',
      subject: 'Capacity Constraint - Station 165',
      category: 'Critical',
      status: 'Initiate',
    }).id,
    ofo: sim.control.addNotice({
      pipeline_slug: 'texas-eastern',
      type: 'Operational Flow Order',
      subject: 'OFO - response required',
      response_at: sql(new Date(START.getTime() + 90 * 60_000)),
    }).id,
  };
  expect((await cli(['run', '--once'], env, at(RUN_AT))).code).toBe(0);
  // Made after the notices arrived: sub-4 matches the constraint, sub-5 does not; sub-6 is
  // a reminder for the flow order only.
  addSubscriptions(dataDir, [
    cliSubscription(CONSTRAINTS, 'bob', '2026-11-20T18:00:00Z'),
    cliSubscription({ notices: { pipelines: ['texas-eastern'] } }, 'bob', '2026-11-20T18:00:00Z'),
    cliSubscription({ deadlines: { before: ['30m'] } }, 'carol', '2026-11-20T18:00:00Z', {
      notice_id: ids.ofo,
    }),
  ]);
}, 60_000);
afterAll(async () => {
  await sim.close();
});

describe('pipewatch why, with subscriptions and silences', () => {
  it('shows the muted decision, each subscription with its source, and one made later as such', async () => {
    const run = await cli(['why', String(ids.constraint)], env, at(RUN_AT));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(
        `transco-constraints +notice-new +muted +muted by silence 1 \\(${SILENCE_1.replace('.*', '\\.\\*')}\\) until ${SILENCE_END} for console`,
      ),
    );
    expect(run.stdout).toMatch(
      /sub-1 \(cli by alice, 2026-11-20\) +notice-new +alert +matched; to console/,
    );
    expect(run.stdout).toContain(
      `  transco-constraints: no: muted at 2026-11-20T15:01:00Z: muted by silence 1 (${SILENCE_1}) until ${SILENCE_END} for console`,
    );
    expect(run.stdout).toContain(
      '  sub-1 (cli by alice, 2026-11-20): no: already alerted: v1 → console sent 2026-11-20T15:01:00Z',
    );
    expect(run.stdout).toContain(
      '  sub-4 (cli by bob, 2026-11-20): no: did not exist yet: made 2026-11-20T18:00:00Z, after the notice last changed (2026-11-20T15:01:00Z); ' +
        'a subscription alerts only on what is new or updated after it was made: with on: [new] it never alerts on this one',
    );
    expect(run.stdout).toContain(
      '  sub-5 (cli by bob, 2026-11-20): no: did not exist yet: made 2026-11-20T18:00:00Z, after the notice last changed (2026-11-20T15:01:00Z); ' +
        'as written it would not alert on it anyway: not matched on pipelines',
    );
    expect(run.stdout).toContain(
      '  sub-2 (slack:C0GONE1234 by U0DAVE, 2026-11-20): no: paused since 2026-11-20T16:00:00Z (channel_archived): it judges nothing until its channel is back',
    );
    expect(run.stdout).not.toContain('sub-6');
  });

  it('silence list counts what the silence held back', async () => {
    const run = await cli(['silence', 'list', '--json'], env, at(RUN_AT));
    expect(JSON.parse(run.stdout)).toEqual([
      expect.objectContaining({ id: 2, state: 'active', held: 1, comment: null }),
      expect.objectContaining({ id: 1, state: 'active', held: 1, comment: 'storm' }),
    ]);
  });

  it('says what a silence held back of a rule that alerts otherwise', async () => {
    const run = await cli(['why', String(ids.ofo)], env, at(RUN_AT));
    expect(run.stdout).toMatch(
      /sub-3 \(cli by erin, 2026-11-20\) +deadline +muted +2h reminder muted by silence 2 \(rule=sub-3\) until/,
    );
    expect(run.stdout).toContain(
      '  sub-3 (cli by erin, 2026-11-20): reminders ahead → console (response_at 2026-11-20T16:30:00Z: ' +
        `2h before: held back: muted by silence 2 (rule=sub-3) until ${SILENCE_END} for console; 30m before: at 2026-11-20T16:00:00Z; ` +
        `held back before: 2h reminder muted by silence 2 (rule=sub-3) until ${SILENCE_END} for console)`,
    );
  });

  it('judges a reminder for one notice on that notice', async () => {
    const run = await cli(['why', String(ids.ofo), '--json'], env, at(RUN_AT));
    const why = JSON.parse(run.stdout) as {
      verdicts: Array<{ rule: string; outcome: string; reason: string; source: string | null }>;
    };
    expect(why.verdicts).toContainEqual(
      expect.objectContaining({
        rule: 'sub-6',
        source: 'cli by carol, 2026-11-20',
        outcome: 'not-in-force',
        reason: expect.stringContaining('30m before: at 2026-11-20T16:00:00Z'),
      }),
    );
  });

  it('--json gives each verdict its source: a file position, or the subscription label', async () => {
    const run = await cli(['why', String(ids.constraint), '--json'], env, at(RUN_AT));
    const why = JSON.parse(run.stdout) as {
      decisions: Array<{ rule: string; decision: string; reason: string }>;
      verdicts: Array<{ rule: string; source: string | null }>;
      subscription_problems: unknown[];
    };
    expect(why.decisions).toContainEqual(
      expect.objectContaining({
        rule: 'transco-constraints',
        decision: 'muted',
        reason: `muted by silence 1 (${SILENCE_1}) until ${SILENCE_END} for console`,
      }),
    );
    const source = (rule: string) => why.verdicts.find((v) => v.rule === rule)?.source;
    expect(source('transco-constraints')).toMatch(/rules\.yaml:2:\d+$/);
    expect(source('sub-1')).toBe('cli by alice, 2026-11-20');
    expect(source('sub-2')).toBe('slack:C0GONE1234 by U0DAVE, 2026-11-20');
    expect(why.subscription_problems).toEqual([]);
  });
});

describe('pipewatch rules test, with subscriptions and silences', () => {
  it('judges the subscriptions with the rule files, each named with its source', async () => {
    const run = await cli(['rules', 'test', '--notice', String(ids.constraint)], env, at(RUN_AT));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      '  sub-1 (cli by alice, 2026-11-20): no: already alerted: v1 → console sent 2026-11-20T15:01:00Z',
    );
    expect(run.stdout).toMatch(/ {2}sub-4 \(cli by bob, 2026-11-20\): no: did not exist yet: /);
    const all = await cli(['rules', 'test'], env, at(RUN_AT));
    expect(all.stdout).toMatch(
      /^ {2}sub-1 \(cli by alice, 2026-11-20\): fires 0 · already alerted 1/m,
    );
    expect(all.stdout).toMatch(
      /^ {2}sub-5 \(cli by bob, 2026-11-20\): fires 0 · .*before the rule 1 · not matched \d+ \(pipelines \d+\)$/m,
    );
  });

  it('says a firing alert a silence in force matches is held back, and gives each its source', async () => {
    const notice = {
      id: 990001,
      pipeline_id: 1,
      pipeline_slug: 'transco',
      pipeline_name: 'Transco',
      subject: 'Capacity Constraint - Station 200',
      type: 'Capacity Constraint',
      category: 'Critical',
      status: 'Initiate',
      notice: 'Station 200 is constrained.',
      posted_at: sql(RUN_AT),
    };
    const dir = tempDir('pipewatch-subs-file-', { 'notice.json': JSON.stringify([notice]) });
    const run = await cli(
      ['rules', 'test', '--file', join(dir, 'notice.json'), '--json'],
      env,
      at(RUN_AT),
    );
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as {
      notices: Array<{
        verdicts: Array<{ rule: string; outcome: string; reason: string; source: string | null }>;
      }>;
      summary: Array<{ rule: string; source: string | null }>;
    };
    const verdicts = report.notices[0]!.verdicts;
    expect(verdicts.find((v) => v.rule === 'transco-constraints')).toMatchObject({
      outcome: 'fires',
      reason: `matches, judged as new (the notice is not stored); held back if it fired now: muted by silence 1 (${SILENCE_1}) until ${SILENCE_END} for console`,
      source: expect.stringMatching(/rules\.yaml:2:\d+$/),
    });
    // A subscription made after it, for a notice judged as new: it fires.
    expect(verdicts.find((v) => v.rule === 'sub-4')).toMatchObject({
      outcome: 'fires',
      reason: 'matches, judged as new (the notice is not stored)',
      source: 'cli by bob, 2026-11-20',
    });
    expect(report.summary.map((s) => [s.rule, s.source])).toContainEqual([
      'sub-5',
      'cli by bob, 2026-11-20',
    ]);
  });
});

describe('pipewatch status and the daemon’s /status', () => {
  it('count the subscriptions, the paused ones by channel with the reason, and the silences in force', async () => {
    const run = await cli(['status'], env, at(RUN_AT));
    expect(run.stdout).toContain('subscriptions: 6 (1 paused), silences in force: 2\n');
    expect(run.stdout).toContain(
      '  paused: slack:C0GONE1234, 1 subscription, since 2026-11-20T16:00:00Z (channel_archived)\n',
    );
    const json = JSON.parse((await cli(['status', '--json'], env, at(RUN_AT))).stdout);
    expect(json.subscriptions).toEqual({
      total: 6,
      paused: 1,
      paused_channels: [
        {
          channel: 'slack:C0GONE1234',
          subscriptions: 1,
          paused_at: '2026-11-20T16:00:00Z',
          reason: 'channel_archived',
        },
      ],
    });
    expect(json.silences).toEqual({ in_force: 2 });
    const later = JSON.parse(
      (await cli(['status', '--json'], env, at(new Date('2026-11-20T19:30:00Z')))).stdout,
    );
    expect(later.silences).toEqual({ in_force: 0 });
  });

  it('the daemon’s /status sees what the command line changes while it runs', async () => {
    const now = new Date(RUN_AT.getTime() + 60_000);
    const stop = new AbortController();
    const running = startCli(
      ['run'],
      { ...env, LOG_LEVEL: 'info', PIPEWATCH_HTTP_PORT: '0', PIPEWATCH_STATUS_TOKEN: STATUS_TOKEN },
      { clock: new ManualClock(now), signal: stop.signal },
    );
    try {
      await until(() => /pipewatch running/.test(running.stderr.text), running);
      const url = /"http":"(http:\/\/[^"]+)"/.exec(running.stderr.text)![1]!;
      const full = async () =>
        (await (
          await fetch(`${url}/status`, { headers: { authorization: `Bearer ${STATUS_TOKEN}` } })
        ).json()) as { subscriptions: { total: number; paused: number }; silences: unknown };
      expect((await full()).subscriptions).toMatchObject({ total: 6, paused: 1 });
      const open = await (await fetch(`${url}/status`)).text();
      expect(JSON.parse(open)).toMatchObject({
        subscriptions: { total: 6, paused: 1 },
        silences: { in_force: 2 },
      });
      expect(open).not.toContain('C0GONE1234');
      expect(open).not.toContain('channel_archived');

      expect((await cli(['subs', 'rm', '4'], env, at(now))).code).toBe(0);
      expect((await cli(['silence', 'expire', '1'], env, at(now))).code).toBe(0);
      const after = await full();
      expect(after.subscriptions).toMatchObject({ total: 5, paused: 1 });
      expect(after.silences).toEqual({ in_force: 1 });
    } finally {
      stop.abort();
      await running.done;
    }
  });
});
