/**
 * `pipewatch subs list|rm|export` on a real database: each subscription with what it
 * matches, its target, where it came from and whether it is paused; removal by id, and
 * an unknown id refused with nothing removed; and the export as one rule file that
 * `rules validate` accepts and that loads as the very rules the subscriptions are.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRules } from '../../src/rules/loader.js';
import { subscriptionRules } from '../../src/rules/subscription.js';
import type { Rule } from '../../src/rules/types.js';
import { InstantClock } from '../support/clock.js';
import { cli } from './run-cli.js';
import {
  dataDirWith,
  readStore,
  rulesDir as rulesDirWith,
  SUBSCRIPTIONS,
  slackSubscription,
} from './subscription-fixture.js';

const NOW = new Date('2026-11-25T12:00:00Z');
const at = { clock: new InstantClock(NOW) };
const PAUSED = {
  channel: 'slack:C0OPS12345',
  reason: 'channel_archived',
  at: '2026-11-24T09:00:00Z',
};

function envFor(dir: string): Record<string, string> {
  return { PIPEWATCH_DATA_DIR: dir, PIPEWATCH_RULES_DIR: rulesDirWith('rules: []\n') };
}

/** A rule without what differs between a subscription and its exported copy. */
function comparable(r: Rule) {
  const { name: _name, at: _at, origin: _origin, pipelineRefs, ...rest } = r;
  const located =
    'locationRefs' in rest
      ? (({ locationRefs, ...other }) => ({
          ...other,
          written: locationRefs?.map((l) => l.location) ?? [],
        }))(rest)
      : rest;
  return { ...located, pipelines: pipelineRefs?.map((p) => p.slug) ?? [] };
}

describe('pipewatch subs list', () => {
  it('shows each subscription: id, kind, what it matches, target, source, paused since … (reason)', async () => {
    const dir = dataDirWith({ subscriptions: SUBSCRIPTIONS, paused: [PAUSED] });
    const run = await cli(['subs', 'list'], envFor(dir), at);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id\s+kind\s+matches\s+target\s+from\s+state$/);
    expect(lines).toHaveLength(6);
    expect(lines[2]).toMatch(
      /^ 1 {2}notices +transco; type constraint; text \/force\\s\+majeure\|station 165\/; not \(status cancelled\); on new, updated +slack:C0GAS12345 +slack:C0GAS12345 by U0ALICE, 2026-11-23 +active$/,
    );
    expect(lines[3]).toMatch(
      /^ 2 {2}deadlines +texas-eastern; response_at 1d, 2h before +slack_dm:U0ALICE12 +slack_dm:U0ALICE12 by U0ALICE12, 2026-11-23 +active$/,
    );
    expect(lines[4]).toMatch(
      /^ 3 {2}capacity +transco station 85; OAC below 20% of OPC \(clear above 22% of OPC\); cycles timely, evening +slack:C0OPS12345 +slack:C0OPS12345 by U0BOB, 2026-11-23 +paused since 2026-11-24T09:00:00Z \(channel_archived\)$/,
    );
    expect(lines[5]).toMatch(
      /^ 4 {2}deadlines +notice #4242; response_at 1h before +slack_dm:U0CAROL12 /,
    );
    expect(run.stderr).toBe('');
  });

  it('--json gives every field, ISO 8601 UTC datetimes and null for absent ones', async () => {
    const dir = dataDirWith({ subscriptions: SUBSCRIPTIONS, paused: [PAUSED] });
    const run = await cli(['subs', 'list', '--json'], envFor(dir), at);
    expect(run.code).toBe(0);
    const list = JSON.parse(run.stdout) as Array<Record<string, unknown>>;
    expect(list.map((s) => s.id)).toEqual([1, 2, 3, 4]);
    expect(list[0]).toEqual({
      id: 1,
      name: 'sub-1',
      kind: 'notices',
      matches:
        'transco; type constraint; text /force\\s+majeure|station 165/; not (status cancelled); on new, updated',
      target: 'slack:C0GAS12345',
      label: 'slack:C0GAS12345 by U0ALICE, 2026-11-23',
      source: 'slack',
      channel: 'slack:C0GAS12345',
      created_by: 'U0ALICE',
      created_at: '2026-11-23T10:00:00Z',
      notice_id: null,
      paused_at: null,
      paused_reason: null,
      problem: null,
      rule: SUBSCRIPTIONS[0]!.rule,
    });
    expect(list[2]).toMatchObject({
      paused_at: '2026-11-24T09:00:00Z',
      paused_reason: 'channel_archived',
    });
    expect(list[3]).toMatchObject({ notice_id: 4242, channel: null });
  });

  it('shows a subscription whose stored rule no longer validates as such, not in force', async () => {
    const dir = dataDirWith({
      subscriptions: [slackSubscription({ notices: { pipelines: ['transco'], colour: 'red' } })],
    });
    const run = await cli(['subs', 'list'], envFor(dir), at);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/ 1 {2}- +invalid: notices: .*colour.* +not in force \(invalid\)/);
  });

  it('says there are none', async () => {
    const run = await cli(['subs', 'list'], envFor(dataDirWith()), at);
    expect(run).toEqual({ code: 0, stdout: 'no subscriptions\n', stderr: '' });
  });

  it('exits 1 without a database, and creates none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipewatch-subs-none-'));
    const run = await cli(['subs', 'list'], envFor(dir), at);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^pipewatch: no database at .*pipewatch\.db; run 'pipewatch run' first/,
    );
    expect(existsSync(join(dir, 'pipewatch.db'))).toBe(false);
  });
});

describe('pipewatch subs rm', () => {
  it('removes one by id (12 or sub-12) and bumps the revision a running daemon watches', async () => {
    const dir = dataDirWith({ subscriptions: SUBSCRIPTIONS });
    const before = readStore(dir, (s) => s.subscriptions.revision());
    const run = await cli(['subs', 'rm', '2'], envFor(dir), at);
    expect(run).toEqual({
      code: 0,
      stdout:
        'removed subscription 2: texas-eastern; response_at 1d, 2h before → slack_dm:U0ALICE12 (slack_dm:U0ALICE12 by U0ALICE12, 2026-11-23)\n',
      stderr: '',
    });
    expect((await cli(['subs', 'rm', 'sub-4'], envFor(dir), at)).code).toBe(0);
    readStore(dir, (s) => {
      expect(s.subscriptions.all().map((r) => r.id)).toEqual([1, 3]);
      expect(s.subscriptions.revision()).toBeGreaterThan(before);
    });
  });

  it('refuses an unknown id with exit 1 and one line, and removes nothing', async () => {
    const dir = dataDirWith({ subscriptions: SUBSCRIPTIONS });
    const run = await cli(['subs', 'rm', '12'], envFor(dir), at);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: "pipewatch: no subscription 12 (see 'pipewatch subs list')\n",
    });
    expect(readStore(dir, (s) => s.subscriptions.all()).length).toBe(4);
  });

  it('refuses what is not an id with exit 2, and removes nothing', async () => {
    const dir = dataDirWith({ subscriptions: SUBSCRIPTIONS });
    const run = await cli(['subs', 'rm', 'transco'], envFor(dir), at);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      "error: command-argument value 'transco' is invalid for argument 'id'. must be a subscription id (12, or sub-12)\n",
    );
    expect(readStore(dir, (s) => s.subscriptions.all()).length).toBe(4);
  });
});

describe('pipewatch subs export', () => {
  it('prints one rule file that rules validate accepts and that loads as the subscriptions’ rules', async () => {
    const dir = dataDirWith({
      pipelines: ['transco', 'texas-eastern'],
      subscriptions: [
        ...SUBSCRIPTIONS,
        slackSubscription({ notices: { pipelines: ['transco'], colour: 'red' } }),
      ],
      paused: [PAUSED],
    });
    const run = await cli(['subs', 'export'], envFor(dir), at);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^# pipewatch subscriptions, exported 2026-11-25T12:00:00Z/);
    expect(run.stdout).toContain(
      '  # sub-1: slack:C0GAS12345 by U0ALICE, 2026-11-23\n  - name: subscription-1\n',
    );
    // What a rule file would get wrong stays, as comments.
    expect(run.stdout).toContain(
      '  # left out as a comment: paused since 2026-11-24T09:00:00Z (channel_archived)\n  # - name: subscription-3\n',
    );
    expect(run.stdout).toContain(
      '  # left out as a comment: a reminder for notice #4242 only, which a rule file cannot say\n  # - name: subscription-4\n',
    );
    expect(run.stdout).toMatch(/# left out as a comment: not valid any more \(notices: .*colour/);

    const exported = mkdtempSync(join(tmpdir(), 'pipewatch-exported-'));
    writeFileSync(join(exported, 'subscriptions.yaml'), run.stdout);
    const validate = await cli(['rules', 'validate', exported], envFor(dir), at);
    expect(validate).toEqual({
      code: 0,
      stdout: 'rules: 2 rules in 1 file (1 notice rule, 1 deadline rule, 0 capacity rules)\n',
      stderr: '',
    });

    const loaded = loadRules(exported);
    expect(loaded.problems).toEqual([]);
    expect(loaded.rules.map((r) => r.name)).toEqual(['subscription-1', 'subscription-2']);
    const stored = readStore(dir, (s) => subscriptionRules(s.subscriptions.all()).rules).filter(
      (r) => r.origin?.noticeId === undefined,
    );
    expect(stored.map((r) => r.name)).toEqual(['sub-1', 'sub-2']);
    expect(loaded.rules.map(comparable)).toEqual(stored.map(comparable));
  });

  it('round-trips every kind of rule: notices, deadlines, capacity', async () => {
    const dir = dataDirWith({ subscriptions: SUBSCRIPTIONS.slice(0, 3) });
    const run = await cli(['subs', 'export'], envFor(dir), at);
    const exported = mkdtempSync(join(tmpdir(), 'pipewatch-exported-'));
    writeFileSync(join(exported, 'subs.yml'), run.stdout);
    expect((await cli(['rules', 'validate', exported], envFor(dir), at)).code).toBe(0);
    const stored = readStore(dir, (s) => subscriptionRules(s.subscriptions.all()).rules);
    expect(loadRules(exported).rules.map(comparable)).toEqual(stored.map(comparable));
    expect(stored.map((r) => r.kind)).toEqual(['notices', 'deadlines', 'capacity']);
  });

  it('prints a valid empty rule file when there are none', async () => {
    const run = await cli(['subs', 'export'], envFor(dataDirWith()), at);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/# There are no subscriptions\.\nrules: \[\]\n$/);
    const exported = mkdtempSync(join(tmpdir(), 'pipewatch-exported-'));
    writeFileSync(join(exported, 'subs.yaml'), run.stdout);
    expect(loadRules(exported)).toMatchObject({ rules: [], problems: [] });
  });
});

describe('subs add', () => {
  it('stores what the chat words say, as chat would, for any target', async () => {
    const dir = dataDirWith({ pipelines: ['transco', 'texas-eastern'] });
    const made = await cli(
      ['subs', 'add', 'email:ops@example.com', 'oac', 'transco', 'Station 85', 'below:50,000'],
      envFor(dir),
      at,
    );
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toMatch(/email is not set up here \(SMTP_URL and EMAIL_FROM\)/);
    expect(made.stdout).toMatch(
      /^sub-1: transco station 85; OAC below 50000 Dth .*→ email:ops@example\.com/,
    );
    const chat = await cli(
      ['subs', 'add', 'slack:#gas', 'subscribe', 'texas-eastern', 'text:force majeure'],
      envFor(dir),
      at,
    );
    expect(chat.code, chat.stderr).toBe(0);
    expect(
      readStore(dir, (s) =>
        s.subscriptions.all().map((r) => [r.target, r.channel, r.source, r.rule]),
      ),
    ).toEqual([
      [
        'email:ops@example.com',
        null,
        'cli',
        expect.objectContaining({
          capacity: expect.objectContaining({ locations: ['Station 85'], oac_below: 50_000 }),
        }),
      ],
      [
        'slack:#gas',
        'slack:#gas',
        'cli',
        expect.objectContaining({
          notices: { pipelines: ['texas-eastern'], text: 'force majeure' },
        }),
      ],
    ]);
  });

  it('stores a subscription to a Teams workflow, showing the workflow by host only', async () => {
    const dir = dataDirWith({ pipelines: ['transco'] });
    const url =
      'https://x.powerplatform.com:443/powerautomate/automations/direct/workflows/1/triggers/manual/paths/invoke?api-version=1&sv=1.0&sig=Wq3v8kTz0pL2xYc7';
    const made = await cli(
      ['subs', 'add', `teams:${url}`, 'subscribe', 'transco', 'text:force majeure'],
      envFor(dir),
      at,
    );
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/^sub-1: .*→ teams:https:\/\/x\.powerplatform\.com\/…\n$/);
    const listed = await cli(['subs', 'list'], envFor(dir), at);
    expect(listed.stdout).toContain('teams:https://x.powerplatform.com/…');
    expect(made.stdout + made.stderr + listed.stdout + listed.stderr).not.toContain('Wq3v8kTz');
    expect(readStore(dir, (s) => s.subscriptions.all().map((r) => r.rule.notify))).toEqual([
      [{ teams: url }],
    ]);
  });

  it('stores a PagerDuty target, shown by its label, never its integration key', async () => {
    const dir = dataDirWith({ pipelines: ['transco'] });
    const key = 'R0UT1NGKEYR0UT1NGKEYR0UT1NGK9a1b';
    const made = await cli(
      ['subs', 'add', `pagerduty:${key}`, 'subscribe', 'transco', 'type:force'],
      envFor(dir),
      at,
    );
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/→ pagerduty:…9a1b\n$/);
    const list = await cli(['subs', 'list'], envFor(dir), at);
    expect(list.stdout).toContain('pagerduty:…9a1b');
    for (const run of [made, list]) expect(`${run.stdout}${run.stderr}`).not.toContain(key);
    // The export is a rule file: it keeps the key, as the rule files do.
    const exported = await cli(['subs', 'export'], envFor(dir), at);
    expect(exported.stdout).toContain(`pagerduty: ${key}`);
  });

  it('an oac location no capacity of the pipeline has is refused with the one meant, exit 2, nothing stored', async () => {
    const dir = dataDirWith({
      pipelines: ['transco'],
      locations: {
        transco: [
          ['STATION 85', '1000085'],
          ['PSE&G LINDEN', '1001234'],
        ],
      },
    });
    const typo = await cli(
      ['subs', 'add', 'console', 'oac', 'transco', 'Station 58', 'below:50000'],
      envFor(dir),
      at,
    );
    expect(typo).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "pipewatch: column 13 '\"Station 58\"': unknown location 'Station 58' on transco — did you mean 'STATION 85'?\n",
    });
    expect(readStore(dir, (s) => s.subscriptions.all())).toEqual([]);
    const right = await cli(
      ['subs', 'add', 'console', 'oac', 'transco', '1001234', 'below:50000'],
      envFor(dir),
      at,
    );
    expect(right.code, right.stderr).toBe(0);
    expect(right.stderr).toBe('');
  });

  it('an oac location is stored with a note when nothing of its pipeline is known', async () => {
    const dir = dataDirWith({ pipelines: ['transco'] });
    const made = await cli(
      ['subs', 'add', 'console', 'oac', 'transco', 'Station 58', 'below:50000'],
      envFor(dir),
      at,
    );
    expect(made.code).toBe(0);
    expect(made.stderr).toBe(
      "pipewatch: note: location 'Station 58' was not checked: no capacity of transco is stored from the last 7 days, and PIPEWATCH_API_URL is unset; the daemon checks it when that capacity arrives, and reports it if nothing matches\n",
    );
    expect(readStore(dir, (s) => s.subscriptions.all())).toHaveLength(1);
  });

  it('a wrong word is named with a suggestion, exit 2, and nothing is stored', async () => {
    const dir = dataDirWith({ pipelines: ['transco'] });
    const typo = await cli(['subs', 'add', 'slack:#gas', 'subscribe', 'trnsco'], envFor(dir), at);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/'trnsco'.*transco/);
    const notARule = await cli(['subs', 'add', 'slack:#gas', 'list'], envFor(dir), at);
    expect(notARule.code).toBe(2);
    expect(notARule.stderr).toMatch(/subscribe, remind or oac, not list/);
    const badTarget = await cli(
      ['subs', 'add', 'slak:#gas', 'subscribe', 'transco'],
      envFor(dir),
      at,
    );
    expect(badTarget.code).toBe(2);
    expect(readStore(dir, (s) => s.subscriptions.all())).toEqual([]);
  });
});
