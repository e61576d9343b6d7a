/**
 * `pipewatch silence add|list|expire` on a real database, as amtool does them: matchers
 * checked against what they could ever match (each bad one refused in one line, with
 * the word meant, and nothing stored), `--for` a duration of at most 90 days (1 h by
 * default), the OS user as the author; the list with state and what each held back;
 * lifting one before its end.
 */
import { userInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { silenceMatches } from '../../src/alerts/silences.js';
import { parseTarget } from '../../src/domain/targets.js';
import { Store } from '../../src/store/index.js';
import { InstantClock } from '../support/clock.js';
import { cli } from './run-cli.js';
import {
  dataDirWith,
  FILE_RULES,
  readStore,
  rulesDir,
  SUBSCRIPTIONS,
} from './subscription-fixture.js';

const NOW = new Date('2026-11-25T12:00:00Z');
const at = (d: Date | string = NOW) => ({ clock: new InstantClock(new Date(d)) });
const ME = userInfo().username;

function setup(): { dir: string; env: Record<string, string> } {
  const dir = dataDirWith({
    pipelines: ['transco', 'texas-eastern', 'tennessee'],
    subscriptions: SUBSCRIPTIONS,
  });
  return { dir, env: { PIPEWATCH_DATA_DIR: dir, PIPEWATCH_RULES_DIR: rulesDir(FILE_RULES) } };
}

const silences = (dir: string) => readStore(dir, (s) => s.silences.list());

describe('pipewatch silence add', () => {
  it('stores the matchers, from now for --for, by the OS user, with the comment', async () => {
    const { dir, env } = setup();
    const run = await cli(
      [
        'silence',
        'add',
        'pipeline=transco',
        'rule=transco-constraints',
        '--for',
        '4h',
        '--comment',
        'compressor work',
      ],
      env,
      at(),
    );
    expect(run).toEqual({
      code: 0,
      stdout:
        'silence 1: pipeline=transco rule=transco-constraints until 2026-11-25T16:00:00Z (4h)\n',
      stderr: '',
    });
    expect(silences(dir)).toEqual([
      expect.objectContaining({
        id: 1,
        matchers: { pipelines: ['transco'], rules: ['transco-constraints'] },
        starts_at: '2026-11-25T12:00:00Z',
        ends_at: '2026-11-25T16:00:00Z',
        created_by: ME,
        comment: 'compressor work',
        lifted_at: null,
      }),
    ]);
  });

  it('lasts 1h without --for', async () => {
    const { dir, env } = setup();
    expect((await cli(['silence', 'add', 'pipeline=tennessee'], env, at())).code).toBe(0);
    expect(silences(dir)[0]).toMatchObject({ ends_at: '2026-11-25T13:00:00Z', comment: null });
  });

  it('takes a key given twice (or a|b) as either value, and every key must match', async () => {
    const { dir, env } = setup();
    const run = await cli(
      [
        'silence',
        'add',
        'pipeline=transco',
        'pipeline=Texas-Eastern|tennessee',
        'target=slack:C0GAS12345',
        'rule=SUB-1',
      ],
      env,
      at(),
    );
    expect(run.stdout).toBe(
      'silence 1: pipeline=transco|texas-eastern|tennessee target=slack:C0GAS12345 rule=sub-1 until 2026-11-25T13:00:00Z (1h)\n',
    );
    const [s] = silences(dir);
    const gas = parseTarget('slack:C0GAS12345');
    expect(silenceMatches(s!, 'sub-1', 'texas-eastern', gas)).toBe(true);
    expect(silenceMatches(s!, 'sub-1', 'transco', gas)).toBe(true);
    expect(silenceMatches(s!, 'sub-1', 'algonquin', gas)).toBe(false);
    expect(silenceMatches(s!, 'sub-1', 'transco', parseTarget('slack:C0OPS12345'))).toBe(false);
    expect(silenceMatches(s!, 'transco-constraints', 'transco', gas)).toBe(false);
  });

  it('holds back every alert only when told --everything, and then takes no matcher', async () => {
    const { dir, env } = setup();
    const run = await cli(['silence', 'add', '--everything', '--for', '30m'], env, at());
    expect(run.stdout).toBe('silence 1: everything until 2026-11-25T12:30:00Z (30m)\n');
    expect(silences(dir)[0]!.matchers).toEqual({});
    const both = await cli(['silence', 'add', '--everything', 'pipeline=transco'], env, at());
    expect(both).toEqual({
      code: 2,
      stdout: '',
      stderr: 'pipewatch: --everything silences every alert: give it no matchers\n',
    });
    expect(silences(dir)).toHaveLength(1);
  });

  it('warns when no rule in force sends to the target, and stores it', async () => {
    const { dir, env } = setup();
    const run = await cli(['silence', 'add', 'target=slack:#gas'], env, at());
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      'pipewatch: no rule or subscription sends to slack:#gas now; the silence holds nothing back for it until one does\n',
    );
    expect(silences(dir)[0]!.matchers).toEqual({ targets: ['slack:#gas'] });
  });

  const refusals: Array<[string, string[], string]> = [
    [
      'an unknown key, with the key meant',
      ['pipelin=transco'],
      "pipewatch: unknown matcher key 'pipelin' — did you mean 'pipeline'? (keys: pipeline, target, rule)",
    ],
    [
      'a bad target, with the target parser’s message',
      ['target=slak:#gas'],
      "pipewatch: target=slak:#gas: unknown kind 'slak' (did you mean 'slack'?); write kind:value with one of slack, slack_dm, discord, discord_dm, email, webhook, teams, or console",
    ],
    [
      'a bad Slack channel, with the target parser’s message',
      ['target=slack:gas'],
      "pipewatch: target=slack:gas: slack: must be a channel name such as '#gas-ops' or a channel id (C…, G…)",
    ],
    [
      'a pipeline the API does not track, with the slug meant',
      ['pipeline=transcoo'],
      "pipewatch: pipeline=transcoo: not tracked by the API — did you mean 'transco'?",
    ],
    [
      'a rule that does not exist, with the name meant',
      ['rule=transco-constraint'],
      "pipewatch: rule=transco-constraint: no rule of that name in the rule files or the subscriptions — did you mean 'transco-constraints'?",
    ],
    [
      'no matcher at all',
      [],
      'pipewatch: a silence needs at least one matcher (pipeline=…, target=…, rule=…); to hold back every alert, say --everything',
    ],
    [
      'a word that is not a matcher',
      ['transco'],
      "pipewatch: 'transco' is not a matcher: write key=value, such as pipeline=transco",
    ],
    [
      'a regex or negative matcher',
      ['pipeline!=transco'],
      "pipewatch: 'pipeline!=transco': only equality matchers (key=value) are supported; for several values give the key again",
    ],
    ['an empty value', ['pipeline='], "pipewatch: 'pipeline=': pipeline= needs a value"],
  ];
  for (const [what, words, line] of refusals) {
    it(`refuses ${what} in one line, exit 2, storing nothing`, async () => {
      const { dir, env } = setup();
      const run = await cli(['silence', 'add', ...words, '--for', '2h'], env, at());
      expect(run).toEqual({ code: 2, stdout: '', stderr: `${line}\n` });
      expect(silences(dir)).toEqual([]);
    });
  }

  it('says every bad matcher at once, one line each', async () => {
    const { dir, env } = setup();
    const run = await cli(
      ['silence', 'add', 'pipelin=transco', 'rule=nope', 'pipeline=transco'],
      env,
      at(),
    );
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      "pipewatch: unknown matcher key 'pipelin' — did you mean 'pipeline'? (keys: pipeline, target, rule)",
      'pipewatch: rule=nope: no rule of that name in the rule files or the subscriptions',
    ]);
    expect(silences(dir)).toEqual([]);
  });

  const durations: Array<[string, string, string]> = [
    ['a bad duration', '4x', "'4x' is not a duration (a number and a unit: m, h or d, such as 4h)"],
    ['a zero duration', '0h', 'must be longer than 0s'],
    [
      'more than 90 days',
      '91d',
      '91d is longer than 90d, the longest silence; remove the rule or subscription instead',
    ],
  ];
  for (const [what, text, reason] of durations) {
    it(`refuses ${what} (--for ${text}) in one line, exit 2, storing nothing`, async () => {
      const { dir, env } = setup();
      const run = await cli(['silence', 'add', 'pipeline=transco', '--for', text], env, at());
      expect(run).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: option '--for <duration>' argument '${text}' is invalid. ${reason}\n`,
      });
      expect(silences(dir)).toEqual([]);
    });
  }

  it('takes exactly 90 days', async () => {
    const { dir, env } = setup();
    expect(
      (await cli(['silence', 'add', 'pipeline=transco', '--for', '90d'], env, at())).code,
    ).toBe(0);
    expect(silences(dir)[0]!.ends_at).toBe('2027-02-23T12:00:00Z');
  });
});

describe('pipewatch silence list and expire', () => {
  /** Three silences: one ended two days ago, one that ends at 13:00, one of 4 h lifted at 12:30. */
  async function three(env: Record<string, string>, dir: string): Promise<void> {
    await cli(
      ['silence', 'add', 'pipeline=tennessee', '--for', '1h'],
      env,
      at('2026-11-23T10:00:00Z'),
    );
    await cli(['silence', 'add', 'rule=sub-1', '--comment', 'noisy'], env, at());
    await cli(['silence', 'add', 'pipeline=transco', '--for', '4h'], env, at());
    const store = Store.open(dir);
    try {
      // What the daemon records when the silence holds an alert back.
      for (const key of ['a', 'b'])
        store.silences.hold(key, {
          silence_id: 3,
          rule: 'transco-constraints',
          target: { kind: 'console' },
          targetKey: 'console',
          alert: {},
          at: '2026-11-25T12:10:00Z',
        });
    } finally {
      store.close();
    }
    const lift = await cli(['silence', 'expire', '3'], env, at('2026-11-25T12:30:00Z'));
    expect(lift).toEqual({
      code: 0,
      stdout:
        'silence 3 lifted: pipeline=transco; it held back 2 alerts, which the daemon sums up to their targets\n',
      stderr: '',
    });
  }

  it('lists those in force and ended in the last day, newest first, with state and held count', async () => {
    const { dir, env } = setup();
    await three(env, dir);
    const run = await cli(['silence', 'list'], env, at('2026-11-25T12:45:00Z'));
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id\s+matchers\s+starts\s+ends\s+state\s+held\s+by\s+comment$/);
    expect(lines.slice(2)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^ 3 {2}pipeline=transco +2026-11-25 12:00Z {2}2026-11-25 16:00Z {2}lifted by ${ME} +2 {2}${ME}$`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^ 2 {2}rule=sub-1 +2026-11-25 12:00Z {2}2026-11-25 13:00Z {2}active +0 {2}${ME} +noisy$`,
        ),
      ),
    ]);
    const later = await cli(['silence', 'list'], env, at('2026-11-25T14:00:00Z'));
    expect(later.stdout).toMatch(/ 2 {2}rule=sub-1 .* ended /);
  });

  it('--all lists every one; --json with ISO 8601 UTC datetimes and null for absent', async () => {
    const { dir, env } = setup();
    await three(env, dir);
    const all = await cli(['silence', 'list', '--all', '--json'], env, at('2026-11-25T12:45:00Z'));
    const list = JSON.parse(all.stdout) as Array<Record<string, unknown>>;
    expect(list.map((s) => [s.id, s.state, s.held])).toEqual([
      [3, `lifted by ${ME}`, 2],
      [2, 'active', 0],
      [1, 'ended', 0],
    ]);
    expect(list[1]).toEqual({
      id: 2,
      matchers: { pipelines: null, targets: null, rules: ['sub-1'] },
      starts_at: '2026-11-25T12:00:00Z',
      ends_at: '2026-11-25T13:00:00Z',
      state: 'active',
      held: 0,
      created_by: ME,
      created_at: '2026-11-25T12:00:00Z',
      comment: 'noisy',
      lifted_at: null,
      lifted_by: null,
    });
    expect(list[0]).toMatchObject({ lifted_at: '2026-11-25T12:30:00Z', lifted_by: ME });
    const recent = await cli(['silence', 'list', '--json'], env, at('2026-11-25T12:45:00Z'));
    expect((JSON.parse(recent.stdout) as unknown[]).length).toBe(2);
  });

  it('says when there is none to list', async () => {
    const { env } = setup();
    expect((await cli(['silence', 'list'], env, at())).stdout).toBe(
      'no silences in force or ended in the last 1d (--all lists every one)\n',
    );
  });

  it('refuses to lift an unknown or an ended silence, exit 1, changing nothing', async () => {
    const { dir, env } = setup();
    await three(env, dir);
    const before = silences(dir);
    expect(await cli(['silence', 'expire', '9'], env, at())).toEqual({
      code: 1,
      stdout: '',
      stderr: "pipewatch: no silence 9 (see 'pipewatch silence list --all')\n",
    });
    expect(await cli(['silence', 'expire', '1'], env, at())).toEqual({
      code: 1,
      stdout: '',
      stderr: 'pipewatch: silence 1 already ended at 2026-11-23T11:00:00Z\n',
    });
    expect(await cli(['silence', 'expire', '3'], env, at('2026-11-25T12:50:00Z'))).toEqual({
      code: 1,
      stdout: '',
      stderr: `pipewatch: silence 3 was already lifted by ${ME} at 2026-11-25T12:30:00Z\n`,
    });
    expect((await cli(['silence', 'expire', 'x'], env, at())).code).toBe(2);
    expect(silences(dir)).toEqual(before);
  });
});
