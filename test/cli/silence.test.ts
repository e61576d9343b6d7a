/**
 * `pipewatch silence add|list|expire` on a real database, as amtool does them: matchers
 * checked against what they could ever match (each bad one refused in one line, with
 * the word meant, and nothing stored), `--for` a duration of at most 90 days (1 h by
 * default), the OS user as the author; the list with state and what each held back;
 * lifting one before its end.
 */
import { userInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { alertLabels } from '../../src/alerts/silence-matchers.js';
import { silenceMatches } from '../../src/alerts/silences.js';
import { parseTarget } from '../../src/domain/targets.js';
import { Store } from '../../src/store/index.js';
import { makeNotice } from '../fakes/notice.js';
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
  // What was stored lately: a silence that would match none of it is warned of.
  const store = Store.open(dir);
  store.notices.upsert(makeNotice({ id: 1 }), '2026-11-24T12:00:00Z', false);
  store.notices.upsert(
    makeNotice({ id: 2, pipeline_slug: 'texas-eastern', type: 'Planned Maintenance' }),
    '2026-10-01T12:00:00Z',
    false,
  );
  store.close();
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
        matchers: [
          { key: 'pipeline', op: '=', value: 'transco' },
          { key: 'rule', op: '=', value: 'transco-constraints' },
        ],
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
    const holds = (rule: string, pipeline: string, target = gas) =>
      silenceMatches(s!, alertLabels(rule, pipeline, target));
    expect(holds('sub-1', 'texas-eastern')).toBe(true);
    expect(holds('sub-1', 'transco')).toBe(true);
    expect(holds('sub-1', 'algonquin')).toBe(false);
    expect(holds('sub-1', 'transco', parseTarget('slack:C0OPS12345'))).toBe(false);
    expect(holds('transco-constraints', 'transco')).toBe(false);
  });

  it('starts later with --start, for --for or until --end; list shows it pending', async () => {
    const { dir, env } = setup();
    const run = await cli(
      ['silence', 'add', 'pipeline=transco', '--start', '2026-12-01T09:00-06:00', '--for', '4h'],
      env,
      at(),
    );
    expect(run).toEqual({
      code: 0,
      stdout:
        'silence 1: pipeline=transco from 2026-12-01T15:00:00Z until 2026-12-01T19:00:00Z (4h); pending: it holds nothing back before its start\n',
      stderr: '',
    });
    const end = await cli(
      [
        'silence',
        'add',
        'type=~"planned.*"',
        '--start',
        '2026-12-01T15:00Z',
        '--end',
        '2026-12-02T03:00:00+00:00',
      ],
      env,
      at(),
    );
    expect(end.stdout).toMatch(/until 2026-12-02T03:00:00Z \(12h\); pending/);
    expect(silences(dir).map((s) => [s.starts_at, s.ends_at, s.created_at])).toEqual([
      ['2026-12-01T15:00:00Z', '2026-12-02T03:00:00Z', '2026-11-25T12:00:00Z'],
      ['2026-12-01T15:00:00Z', '2026-12-01T19:00:00Z', '2026-11-25T12:00:00Z'],
    ]);
    const list = await cli(['silence', 'list'], env, at());
    expect(list.stdout.split('\n').filter((l) => / pending /.test(l))).toHaveLength(2);
    const started = await cli(['silence', 'list', '--json'], env, at('2026-12-01T16:00:00Z'));
    expect(JSON.parse(started.stdout).map((s: { state: string }) => s.state)).toEqual([
      'active',
      'active',
    ]);
  });

  it('takes --end without --for, and an end of --for from a start typed a minute ago', async () => {
    const { dir, env } = setup();
    expect(
      (await cli(['silence', 'add', 'pipeline=transco', '--end', '2026-11-25T14:30Z'], env, at()))
        .stdout,
    ).toMatch(/until 2026-11-25T14:30:00Z \(2h30m\)\n$/);
    expect(
      (
        await cli(
          ['silence', 'add', 'pipeline=tennessee', '--start', '2026-11-25T11:59Z', '--for', '1h'],
          env,
          at(),
        )
      ).stdout,
    ).toMatch(/: pipeline=tennessee until 2026-11-25T13:00:00Z \(1h\)\n$/);
    expect(silences(dir)[0]?.starts_at).toBe('2026-11-25T12:00:00Z');
  });

  const windows: Array<[string, string[], string]> = [
    [
      'a start in the past',
      ['--start', '2026-11-25T09:00Z'],
      'pipewatch: --start 2026-11-25T09:00:00Z is in the past; a silence starts now at the earliest (leave --start out)',
    ],
    [
      'a time without its zone',
      ['--start', '2026-12-01T09:00'],
      "error: option '--start <instant>' argument '2026-12-01T09:00' is invalid. '2026-12-01T09:00' is not an instant with its zone (such as 2026-12-01T09:00-06:00 or 2026-12-01T15:00Z)",
    ],
    [
      'an end before the start',
      ['--start', '2026-12-01T15:00Z', '--end', '2026-12-01T09:00-06:00'],
      'pipewatch: --end 2026-12-01T15:00:00Z is not after the start, 2026-12-01T15:00:00Z',
    ],
    [
      'more than 90 days from the start to the end',
      ['--start', '2026-12-01T15:00Z', '--end', '2027-03-01T15:00:01Z'],
      'pipewatch: 90d1s from 2026-12-01T15:00:00Z to 2027-03-01T15:00:01Z is longer than 90d, the longest silence; remove the rule or subscription instead',
    ],
    [
      'a start more than 90 days ahead',
      ['--start', '2027-03-01T00:00Z'],
      'pipewatch: --start 2027-03-01T00:00:00Z is more than 90d ahead; make the silence nearer the time',
    ],
    [
      'both --for and --end',
      ['--for', '2h', '--end', '2026-12-01T15:00Z'],
      "error: option '--for <duration>' cannot be used with option '--end <instant>'",
    ],
  ];
  for (const [what, args, line] of windows) {
    it(`refuses ${what}, storing nothing`, async () => {
      const { dir, env } = setup();
      const run = await cli(['silence', 'add', 'pipeline=transco', ...args], env, at());
      expect(run).toEqual({ code: 2, stdout: '', stderr: expect.stringContaining(line) });
      expect(silences(dir)).toEqual([]);
    });
  }

  it('warns when the silence matches nothing stored in the last 30 days, and stores it', async () => {
    const { dir, env } = setup();
    const warned = async (...words: string[]) => {
      const run = await cli(['silence', 'add', ...words], env, at());
      expect(run.code).toBe(0);
      return run.stderr;
    };
    expect(await warned('pipeline=transco', 'type=~".*constraint"')).toBe('');
    expect(await warned('type!~"planned.*"')).toBe('');
    // Anchored: the whole type must match.
    expect(await warned('type=~constraint')).toBe(
      'pipewatch: warning: type=~constraint matches no notice or capacity stored in the last 30d; check for a typo: the silence holds back only what matches it\n',
    );
    // Texas Eastern's maintenance was last seen 55 days ago.
    expect(await warned('pipeline=texas-eastern', 'rule=transco-constraints')).toMatch(
      /^pipewatch: warning: pipeline=texas-eastern matches no notice/,
    );
    expect(await warned('pipeline=transco', 'status="planned"')).toMatch(
      /^pipewatch: warning: pipeline=transco status=planned matches no notice/,
    );
    // Rules and targets alone are checked when written, not against the notices.
    expect(await warned('rule=transco-constraints')).toBe('');
    expect(silences(dir)).toHaveLength(6);
  });

  it('holds back every alert only when told --everything, and then takes no matcher', async () => {
    const { dir, env } = setup();
    const run = await cli(['silence', 'add', '--everything', '--for', '30m'], env, at());
    expect(run.stdout).toBe('silence 1: everything until 2026-11-25T12:30:00Z (30m)\n');
    expect(silences(dir)[0]!.matchers).toEqual([]);
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
    expect(silences(dir)[0]!.matchers).toEqual([{ key: 'target', op: '=', value: 'slack:#gas' }]);
  });

  const refusals: Array<[string, string[], string]> = [
    [
      'an unknown key, with the key meant',
      ['pipelin=transco'],
      "pipewatch: unknown matcher key 'pipelin' — did you mean 'pipeline'? (keys: pipeline, target, rule, type, category, status)",
    ],
    [
      'a bad target, with the target parser’s message',
      ['target=slak:#gas'],
      "pipewatch: target=slak:#gas: unknown kind 'slak' (did you mean 'slack'?); write kind:value with one of slack, slack_dm, discord, discord_dm, email, webhook, teams, pagerduty, or console",
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
      'pipewatch: a silence needs at least one matcher (pipeline=…, target=…, rule=…, type=…, category=…, status=…); to hold back every alert, say --everything',
    ],
    [
      'a word that is not a matcher',
      ['transco'],
      "pipewatch: 'transco' is not a matcher: write key=value, key!=value, key=~regex or key!~regex, such as pipeline=transco",
    ],
    [
      'a regex with a back-reference, refused as a rule pattern is',
      ['type=~(a+)\\1'],
      'pipewatch: type=~"(a+)\\\\1": back-reference \\1 is not supported: patterns run in linear time, which rules out look-around and back-references; repeat the text instead',
    ],
    [
      'a regex whose automaton is too large to match in linear time',
      ['type=~"(a{1000}){1000}"'],
      'pipewatch: type=~(a{1000}){1000}: repetition {1000} is too large: at most 1000 repeats, nested counts multiplied',
    ],
    [
      'a regex that is not one',
      ['type!~"(maint"'],
      'pipewatch: type!~(maint: not a valid regular expression: missing closing ): (maint',
    ],
    [
      'a key that is not one, among several matchers',
      ['pipeline=transco', 'typo!~maint.*'],
      "pipewatch: unknown matcher key 'typo' — did you mean 'type'? (keys: pipeline, target, rule, type, category, status)",
    ],
    [
      'an unclosed quote',
      ['type="planned maint'],
      `pipewatch: 'type="planned maint': the quote is not closed`,
    ],
    [
      'a pipeline != of a pipeline the API does not track',
      ['pipeline!=transcoo'],
      "pipewatch: pipeline!=transcoo: not tracked by the API — did you mean 'transco'?",
    ],
    [
      'an empty value, with how to say an absent field',
      ['pipeline='],
      `pipewatch: 'pipeline=': pipeline= needs a value (pipeline="" for an alert without pipeline)`,
    ],
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
      "pipewatch: unknown matcher key 'pipelin' — did you mean 'pipeline'? (keys: pipeline, target, rule, type, category, status)",
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
      matchers: [{ key: 'rule', op: '=', value: 'sub-1' }],
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
