import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ruleFileText } from '../../bench/rule-files.js';
import { loadRules, parseRuleFile } from '../../src/rules/loader.js';
import { compilePattern, patternProblem } from '../../src/rules/pattern.js';
import { formatProblem } from '../../src/rules/types.js';

/** The 1-based line of the first line of `text` equal to `line`, after `from`. */
function lineOf(text: string, line: string | RegExp, from = 0): number {
  const lines = text.split('\n');
  for (let i = from; i < lines.length; i++)
    if (typeof line === 'string' ? lines[i] === line : line.test(lines[i]!)) return i + 1;
  return 0;
}

describe('loading many rules', () => {
  it('names a bad rule among 10,000 at its file:line:col, and keeps the others', () => {
    const good = ruleFileText(0, 10_000);
    const name = lineOf(good, /^ {2}- name: desk-7777-/);
    const lines = good.split('\n');
    lines[name] = '    notifications:';
    const dir = mkdtempSync(join(tmpdir(), 'pipewatch-rules-'));
    writeFileSync(join(dir, 'desk.yaml'), lines.join('\n'));
    const loaded = loadRules(dir, { cwd: dir });
    expect(loaded.problems.map(formatProblem)).toEqual([
      `desk.yaml:${name + 1}:5: unknown key 'notifications' in a rule; expected name, notices, deadlines, capacity, notify, escalate`,
    ]);
    expect(loaded.rules).toHaveLength(9_999);
    // Seconds of CPU and nothing else, many times that on a busy machine: a bound for a hang.
  }, 120_000);

  it('places each rule and each pipeline slug where it was written, in a large file', () => {
    const text = ruleFileText(0, 2_000);
    const { rules, problems } = parseRuleFile(text, 'desk.yaml');
    expect(problems).toEqual([]);
    const rule = rules[1234]!;
    const at = lineOf(text, `  - name: ${rule.name}`);
    expect(rule.at).toEqual({ file: 'desk.yaml', line: at, col: 5 });
    const slugLine = lineOf(text, /^ {6}pipelines: \["[a-z-]+"\]$/, at);
    const slug = rule.kind === 'capacity' ? '' : rule.filter.pipelines![0]!;
    expect(text.split('\n')[slugLine - 1]).toBe(`      pipelines: ["${slug}"]`);
    expect(rule.pipelineRefs).toEqual([
      { slug, at: { file: 'desk.yaml', line: slugLine, col: 19 } },
    ]);
  });

  it('names a duplicate rule name in a large file at both places', () => {
    const text = `${ruleFileText(0, 3_000)}${ruleFileText(10, 1).replace(/^.*\nrules:\n/, '')}`;
    const { problems } = parseRuleFile(text, 'desk.yaml');
    const first = lineOf(text, '  - name: desk-10-anr');
    const again = lineOf(text, '  - name: desk-10-anr', first);
    expect(problems.map(formatProblem)).toEqual([
      `desk.yaml:${again}:5: duplicate rule name 'desk-10-anr', first used at desk.yaml:${first}:5`,
    ]);
  });
});

describe('files partly in plain YAML', () => {
  it('reads every rule once when a construct past the first rules needs the full parser', () => {
    const text = `${ruleFileText(0, 2)}  - name: with-anchor
    notices: &filter
      pipelines: [transco]
    notify:
      - console: true
  - name: with-alias
    notices: *filter
    notify:
      - console: true
`;
    const { rules, problems } = parseRuleFile(text, 'desk.yaml');
    expect(problems).toEqual([]);
    expect(rules.map((r) => r.name)).toEqual([
      'desk-0-transco',
      'desk-1-texas-eastern',
      'with-anchor',
      'with-alias',
    ]);
  });

  it('holds no rules and no problem for an empty list', () => {
    expect(parseRuleFile('rules: []\n', 'r.yaml')).toEqual({ rules: [], problems: [] });
    expect(parseRuleFile('# nothing yet\n', 'r.yaml')).toEqual({ rules: [], problems: [] });
  });
});

describe('shared patterns', () => {
  it('compiles a pattern once for every rule that has it, and it judges alike', () => {
    const a = compilePattern('force\\s+majeure|OFO');
    const b = compilePattern('force\\s+majeure|OFO');
    expect(b).toBe(a);
    for (const text of ['FORCE\u00a0MAJEURE', 'an ofo', 'forcemajeure'])
      expect(b.test(text)).toBe(compilePattern(`(?:${'force\\s+majeure|OFO'})`).test(text));
  });

  it('refuses a bad pattern every time it is checked, with the same reason', () => {
    const first = patternProblem('a(?=b)');
    expect(first).toMatch(/^look-ahead/);
    expect(patternProblem('a(?=b)')).toBe(first);
    expect(patternProblem('a(b')).toMatch(/^not a valid regular expression/);
    expect(patternProblem('a(b')).toMatch(/^not a valid regular expression/);
  });
});
