import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRules, parseRuleFile } from '../../src/rules/loader.js';
import { formatProblem, type Rule } from '../../src/rules/types.js';

/** The problems of a rule file's text, as `file:line:col: message` lines. */
function problems(text: string): string[] {
  return parseRuleFile(text, 'r.yaml').problems.map(formatProblem);
}

function rules(text: string): Rule[] {
  const parsed = parseRuleFile(text, 'r.yaml');
  expect(parsed.problems.map(formatProblem)).toEqual([]);
  return parsed.rules;
}

function tempDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-rules-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('parseRuleFile: valid rules', () => {
  it('reads a notices rule: lists trimmed and lower-cased, absent fields left out, on [new]', () => {
    const [rule] = rules(
      [
        'rules:',
        '  - name: transco-constraints',
        '    notices:',
        '      pipelines: [" Transco "]',
        '      types: [Capacity Constraint, constraint, CONSTRAINT]',
        '      text: "force majeure|OFO"',
        '    notify:',
        '      - slack: "#gas-constraints"',
        '      - console: true',
      ].join('\n'),
    );
    expect(rule).toEqual({
      name: 'transco-constraints',
      kind: 'notices',
      filter: {
        pipelines: ['transco'],
        types: ['capacity constraint', 'constraint'],
        text: 'force majeure|OFO',
      },
      on: ['new'],
      notify: [{ kind: 'slack', channel: '#gas-constraints' }, { kind: 'console' }],
      at: { file: 'r.yaml', line: 2, col: 5 },
      pipelineRefs: [{ slug: 'transco', at: { file: 'r.yaml', line: 4, col: 19 } }],
    });
  });

  it('reads exclusions, on, and every kind of target', () => {
    const [rule] = rules(`rules:
  - name: all-but-status
    notices:
      on: [updated, new]
      not: { types: [Computer System Status], statuses: [Terminate] }
    notify:
      - slack: C0123ABCD
      - slack_dm: U0123ABCD
      - discord: "123456789012345678"
      - discord_dm: "223456789012345678"
      - email: ops@example.com
      - email: [a@example.com, b@example.com]
      - webhook: https://hooks.example.com/x
      - console: {}
`);
    expect(rule).toMatchObject({
      filter: {},
      not: { types: ['computer system status'], statuses: ['terminate'] },
      on: ['updated', 'new'],
      notify: [
        { kind: 'slack', channel: 'C0123ABCD' },
        { kind: 'slack_dm', user: 'U0123ABCD' },
        { kind: 'discord', channel: '123456789012345678' },
        { kind: 'discord_dm', user: '223456789012345678' },
        { kind: 'email', to: ['ops@example.com'] },
        { kind: 'email', to: ['a@example.com', 'b@example.com'] },
        { kind: 'webhook', url: 'https://hooks.example.com/x' },
        { kind: 'console' },
      ],
    });
  });

  it('reads deadline offsets largest first, without repeats; one offset alone; field default', () => {
    const [a, b] = rules(`rules:
  - name: a
    deadlines: { field: end_at, before: [2h, 24h, 1d, 90s] }
    notify: [{ console: true }]
  - name: b
    deadlines: { before: 30m, pipelines: [texas-eastern] }
    notify: [{ console: true }]
`);
    expect(a).toMatchObject({ kind: 'deadlines', field: 'end_at', filter: {} });
    expect(a).toHaveProperty('beforeMs', [86_400_000, 7_200_000, 90_000]);
    expect(b).toMatchObject({
      field: 'response_at',
      beforeMs: [1_800_000],
      filter: { pipelines: ['texas-eastern'] },
    });
  });

  it('reads capacity rules: clear_above defaults to 10% above the threshold, in its unit', () => {
    const [abs, pct, given] = rules(`rules:
  - name: abs
    capacity: { locations: ["STATION 85", "1001234"], flow: [D], oac_below: 50000 }
    notify: [{ console: true }]
  - name: pct
    capacity: { oac_pct_below: 10, repeat_every: 2h, cycles: [timely, id1] }
    notify: [{ console: true }]
  - name: given
    capacity: { oac_below: 50000, clear_above: 60000 }
    notify: [{ console: true }]
`);
    expect(abs).toEqual({
      name: 'abs',
      kind: 'capacity',
      locations: ['station 85', '1001234'],
      // Each entry as written, where it was written: what it is checked against capacity by.
      locationRefs: [
        { location: 'STATION 85', at: { file: 'r.yaml', line: 3, col: 29 } },
        { location: '1001234', at: { file: 'r.yaml', line: 3, col: 43 } },
      ],
      flow: ['d'],
      unit: 'absolute',
      below: 50000,
      clearAbove: 55000,
      notify: [{ kind: 'console' }],
      at: { file: 'r.yaml', line: 2, col: 5 },
    });
    expect(pct).toMatchObject({
      unit: 'percent',
      below: 10,
      clearAbove: 11,
      repeatEveryMs: 7_200_000,
      cycles: ['timely', 'id1'],
    });
    expect(given).toMatchObject({ unit: 'absolute', below: 50000, clearAbove: 60000 });
  });

  it('takes an empty file, or one with only comments, as zero rules', () => {
    expect(rules('')).toEqual([]);
    expect(rules('# yaml-language-server: $schema=./schema.json\n')).toEqual([]);
    expect(rules('rules: []\n')).toEqual([]);
  });
});

describe('parseRuleFile: problems, each at its line and column', () => {
  const rule = (body: string) => `rules:\n  - name: r\n${body}`;

  it('an unknown key, with the key meant', () => {
    expect(
      problems(rule('    notices:\n      pipeline: [transco]\n    notify: [{ console: true }]\n')),
    ).toEqual(["r.yaml:4:7: unknown key 'pipeline' in notices — did you mean 'pipelines'?"]);
    expect(problems('rule:\n  - name: r\n')).toEqual([
      "r.yaml:1:1: unknown key 'rule' at the top level — did you mean 'rules'?",
    ]);
    expect(
      problems('rules:\n  - nam: r\n    notices: {}\n    notify: [{ console: true }]\n'),
    ).toEqual(["r.yaml:2:5: unknown key 'nam' in a rule — did you mean 'name'?"]);
    expect(
      problems(rule('    notices: {}\n    notify: [{ console: true }]\n    muted: true\n')),
    ).toEqual([
      "r.yaml:5:5: unknown key 'muted' in a rule; expected name, notices, deadlines, capacity, notify, escalate",
    ]);
  });

  it('an unknown target, with the target meant', () => {
    expect(problems(rule('    notices: {}\n    notify:\n      - slak: "#ops"\n'))).toEqual([
      "r.yaml:5:9: unknown target 'slak' — did you mean 'slack'?",
    ]);
    expect(problems(rule('    notices: {}\n    notify:\n      - Slack-DM: U0123ABCD\n'))).toEqual([
      "r.yaml:5:9: unknown target 'Slack-DM' — did you mean 'slack_dm'?",
    ]);
    expect(problems(rule('    notices: {}\n    notify:\n      - pager: x\n'))).toEqual([
      "r.yaml:5:9: unknown target 'pager'; targets are slack, slack_dm, discord, discord_dm, email, webhook, teams, pagerduty, console",
    ]);
  });

  it('a wrong type, at the value', () => {
    expect(
      problems(rule('    capacity: { oac_below: "50k" }\n    notify: [{ console: true }]\n')),
    ).toEqual(["r.yaml:3:28: oac_below: expected a number, got '50k'"]);
    expect(
      problems(rule('    notices:\n      types: constraint\n    notify: [{ console: true }]\n')),
    ).toEqual(["r.yaml:4:14: types: expected a list, got 'constraint'"]);
  });

  it('an unquoted channel (a YAML comment) and an unquoted Discord id (a number)', () => {
    expect(problems(rule('    notices: {}\n    notify:\n      - slack: #ops\n'))).toEqual([
      `r.yaml:5:9: slack: expected a channel, got nothing — '#' starts a YAML comment, so quote it: "#ops"`,
    ]);
    expect(
      problems(rule('    notices: {}\n    notify:\n      - discord: 123456789012345678\n')),
    ).toEqual([
      'r.yaml:5:18: discord: expected a channel id as text — quote it: YAML reads unquoted digits as a number',
    ]);
  });

  it('a bad regular expression, with its error, at the text value', () => {
    expect(
      problems(
        rule('    notices:\n      text: "force (majeure"\n    notify: [{ console: true }]\n'),
      ),
    ).toEqual([
      'r.yaml:4:13: text: not a valid regular expression: missing closing ): force (majeure',
    ]);
  });

  it('a pattern that needs backtracking, with why, at its text value, in not: too', () => {
    const why = 'patterns run in linear time, which rules out look-around and back-references';
    expect(
      problems(
        rule(
          "    notices:\n      text: 'force(?= majeure)'\n      not: { text: '(\\w+) \\1' }\n    notify: [{ console: true }]\n",
        ),
      ),
    ).toEqual([
      `r.yaml:4:13: text: look-ahead (?=…) is not supported: ${why}`,
      `r.yaml:5:20: text: back-reference \\1 is not supported: ${why}; repeat the text instead`,
    ]);
    expect(
      problems(
        rule(
          '    deadlines:\n      before: 2h\n      text: "(?<!no )OFO"\n    notify: [{ console: true }]\n',
        ),
      ),
    ).toEqual([
      `r.yaml:5:13: text: negative look-behind (?<!…) is not supported: ${why}; leave notices out with not: text:`,
    ]);
  });

  it('a pattern longer than 1000 characters', () => {
    const text = (pattern: string) =>
      `rules:\n  - name: r\n    notices:\n      text: "${pattern}"\n    notify: [{ console: true }]\n`;
    expect(problems(text(`${'ab'.repeat(500)}c`))).toEqual([
      'r.yaml:4:13: text: is 1001 characters long; a pattern may have at most 1000',
    ]);
    expect(rules(text('ab'.repeat(500)))).toHaveLength(1);
  });

  it('a bad duration, in a list or alone', () => {
    expect(
      problems(
        rule('    deadlines:\n      before: [24h, 2hours]\n    notify: [{ console: true }]\n'),
      ),
    ).toEqual([
      "r.yaml:4:21: before[1]: '2hours' is not a duration (a number and a unit: s, m, h or d, such as 24h)",
    ]);
    expect(
      problems(rule('    deadlines: { before: 0s }\n    notify: [{ console: true }]\n')),
    ).toEqual(['r.yaml:3:26: before: must be longer than 0s']);
    expect(
      problems(rule('    deadlines: { before: 60 }\n    notify: [{ console: true }]\n')),
    ).toEqual([
      'r.yaml:3:26: before: must be a duration or a list of durations, such as [24h, 2h]',
    ]);
  });

  it('a value not among those allowed, with the one meant', () => {
    expect(
      problems(
        rule('    deadlines: { field: respond_at, before: 2h }\n    notify: [{ console: true }]\n'),
      ),
    ).toEqual([
      "r.yaml:3:25: field: 'respond_at' is not one of response_at, effective_at, end_at — did you mean 'response_at'?",
    ]);
  });

  it('none, or two, of notices / deadlines / capacity', () => {
    expect(problems('rules:\n  - name: r\n    notify: [{ console: true }]\n')).toEqual([
      'r.yaml:2:5: rule: needs one of notices, deadlines, capacity',
    ]);
    expect(
      problems(
        rule('    notices: {}\n    capacity: { oac_below: 1 }\n    notify: [{ console: true }]\n'),
      ),
    ).toEqual([
      "r.yaml:4:5: a rule has exactly one of notices, deadlines, capacity; this one also has 'capacity'",
    ]);
  });

  it('bad targets, thresholds and names', () => {
    const text = `rules:
  - name: Transco Low
    capacity: { oac_below: 50000, oac_pct_below: 10 }
    notify:
      - slack: "#Gas Ops"
        email: ops@example.com
      - email: [ops]
      - webhook: ftp://example.com
  - name: pct
    capacity: { oac_pct_below: 120, clear_above: 5 }
    notify: [{ slack_dm: "@bob" }, { console: true }, { console: true }]
  - name: clear
    capacity: { oac_below: 100, clear_above: 100 }
    notify: []
`;
    expect(problems(text)).toEqual([
      "r.yaml:2:11: name: must be letters, digits, '-', '_' or '.', such as 'transco-constraints'",
      'r.yaml:3:35: oac_below and oac_pct_below exclude each other; keep one',
      "r.yaml:5:16: slack: must be a channel name such as '#gas-ops' or a channel id (C…, G…)",
      "r.yaml:6:9: one target per list item: put 'email' in an item of its own",
      'r.yaml:7:17: email[0]: must be an email address',
      'r.yaml:8:18: webhook: must be an http:// or https:// URL',
      'r.yaml:10:32: oac_pct_below: must be at most 100',
      'r.yaml:10:50: clear_above: must be above the threshold (120)',
      'r.yaml:11:26: slack_dm: must be a Slack user id (U…, W…) or email',
      'r.yaml:13:46: clear_above: must be above the threshold (100)',
      'r.yaml:14:13: notify: must list at least one target',
    ]);
  });

  it('repeated targets and names within a file', () => {
    const text = `rules:
  - name: a
    notices: {}
    notify: [{ console: true }, { console: {} }]
  - name: A
    notices: {}
    notify: [{ console: true }]
`;
    expect(problems(text)).toEqual([
      'r.yaml:4:33: notify[1]: repeats console',
      "r.yaml:5:5: duplicate rule name 'A', first used at r.yaml:2:5",
    ]);
  });

  it('reports every problem of a file at once, in order, and keeps the valid rules', () => {
    const text = `rules:
  - name: good
    notices: { types: [constraint] }
    notify: [{ console: true }]
  - name: bad
    notices: { types: [constraint], text: "(" }
    notify: [{ slak: "#x" }]
  - deadlines: { before: [1x] }
    notify: [{ console: true }]
`;
    const parsed = parseRuleFile(text, 'r.yaml');
    expect(parsed.problems.map(formatProblem)).toEqual([
      'r.yaml:6:43: text: not a valid regular expression: missing closing ): (',
      "r.yaml:7:16: unknown target 'slak' — did you mean 'slack'?",
      "r.yaml:8:5: missing 'name' in a rule",
      "r.yaml:8:27: before[0]: '1x' is not a duration (a number and a unit: s, m, h or d, such as 24h)",
    ]);
    expect(parsed.rules.map((r) => r.name)).toEqual(['good']);
  });

  it('a YAML syntax error, at its position, and nothing else of that file', () => {
    expect(problems('rules:\n  - name: a\n    notices: { types: [constraint }\n')).toEqual([
      'r.yaml:3:35: Flow sequence in block collection must be sufficiently indented and end with a ]',
      'r.yaml:3:36: Flow map in block collection must be sufficiently indented and end with a }',
    ]);
    expect(problems('rules:\n  - name: a\n  name: b\n')).toEqual([
      'r.yaml:3:1: All mapping items must start at the same column',
    ]);
    expect(problems('rules:\n  - name: a\n    name: b\n')).toEqual([
      'r.yaml:3:5: Map keys must be unique',
    ]);
  });
});

describe('loadRules', () => {
  it('reads *.yaml and *.yml in name order, skipping hidden and other files', () => {
    const dir = tempDir({
      'b.yml': 'rules:\n  - name: b\n    notices: {}\n    notify: [{ console: true }]\n',
      'a.yaml': 'rules:\n  - name: a\n    notices: {}\n    notify: [{ console: true }]\n',
      '.c.yaml': 'not: [valid',
      'notes.txt': 'rules: nonsense',
    });
    mkdirSync(join(dir, 'sub.yaml'));
    const loaded = loadRules(dir, { cwd: dir });
    expect(loaded.problems).toEqual([]);
    expect(loaded.files).toEqual(['a.yaml', 'b.yml']);
    expect(loaded.rules.map((r) => [r.name, r.at])).toEqual([
      ['a', { file: 'a.yaml', line: 2, col: 5 }],
      ['b', { file: 'b.yml', line: 2, col: 5 }],
    ]);
  });

  it('names files relative to the working directory inside it, absolute outside', () => {
    const dir = tempDir({ 'x.yaml': 'rules:\n  - name: x\n' });
    const inside = loadRules('rules', { cwd: join(dir, '..') }).problems;
    expect(loadRules(dir, { cwd: join(dir, '..') }).problems[0]?.file).toMatch(
      /^pipewatch-rules-\w+\/x\.yaml$/,
    );
    expect(inside[0]?.message).toBe(`rules directory not found: rules`);
    expect(loadRules(dir, { cwd: '/nonexistent' }).problems[0]?.file).toBe(join(dir, 'x.yaml'));
  });

  it('finds a name used twice across files, and keeps the first rule', () => {
    const dir = tempDir({
      'a.yaml': 'rules:\n  - name: ops\n    notices: {}\n    notify: [{ console: true }]\n',
      'b.yaml':
        '# second\nrules:\n  - name: other\n    notices: {}\n    notify: [{ console: true }]\n  - name: ops\n    capacity: { oac_below: 1 }\n    notify: [{ console: true }]\n',
    });
    const loaded = loadRules(dir, { cwd: dir });
    expect(loaded.problems.map(formatProblem)).toEqual([
      "b.yaml:6:5: duplicate rule name 'ops', first used at a.yaml:2:5",
    ]);
    expect(loaded.rules.map((r) => `${r.name} ${r.kind}`)).toEqual([
      'ops notices',
      'other notices',
    ]);
  });

  it('reports the problems of every file', () => {
    const dir = tempDir({
      'a.yaml': 'rules:\n  - name: a\n    notices: {}\n    notify: [{ slak: "#x" }]\n',
      'b.yaml':
        'rules:\n  - name: b\n    notices: { on: [neww] }\n    notify: [{ console: true }]\n',
      'c.yaml': 'rules: [\n',
    });
    expect(loadRules(dir, { cwd: dir }).problems.map(formatProblem)).toEqual([
      "a.yaml:4:16: unknown target 'slak' — did you mean 'slack'?",
      "b.yaml:3:21: on[0]: 'neww' is not one of new, updated — did you mean 'new'?",
      'c.yaml:2:1: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ]);
  });

  it('takes an empty directory as zero rules, and a missing one as a problem', () => {
    const dir = tempDir({});
    expect(loadRules(dir)).toEqual({ rules: [], problems: [], files: [] });
    expect(loadRules(join(dir, 'missing'), { cwd: dir })).toEqual({
      rules: [],
      problems: [
        { file: 'missing', line: 1, col: 1, message: 'rules directory not found: missing' },
      ],
      files: [],
    });
  });
});
