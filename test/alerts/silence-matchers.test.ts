/**
 * Silence matchers as Alertmanager has them: read from amtool's words, anchored regexes
 * through the linear-time engine, letter case ignored, an absent field the empty string,
 * `=` of one key alternatives and everything else required; shown back so that they read
 * back the same.
 */
import { describe, expect, it } from 'vitest';
import {
  alertLabels,
  matchersLine,
  matchersMatch,
  readMatcher,
} from '../../src/alerts/silence-matchers.js';
import type { Target } from '../../src/domain/targets.js';
import type { SilenceMatchers } from '../../src/store/silences.js';

const GAS: Target = { kind: 'slack', channel: 'C0GAS' };
const maintenance = { type: 'Planned Maintenance', category: 'Non-Critical', status: 'Initiate' };
const constraint = { type: 'Capacity Constraint', category: 'Critical', status: 'Initiate' };

/** The matchers of `words`, which must all read. */
function read(...words: string[]): SilenceMatchers {
  return words.flatMap((w) => {
    const r = readMatcher(w);
    if ('problem' in r) throw new Error(r.problem);
    return r.matchers;
  });
}

const notice = (pipeline: string, n = constraint) => alertLabels('gas', pipeline, GAS, n);
/** A capacity alert: no notice, so no type, category or status. */
const capacity = (pipeline: string) => alertLabels('oac', pipeline, GAS);

describe('silence matchers', () => {
  it('take the whole value for a regex, as Alertmanager anchors it, in any letter case', () => {
    const m = read('pipeline=~"transco|tetco"');
    expect(matchersMatch(m, notice('transco'))).toBe(true);
    expect(matchersMatch(m, notice('tetco'))).toBe(true);
    expect(matchersMatch(m, notice('transco-2'))).toBe(false);
    expect(matchersMatch(read('pipeline=~trans'), notice('transco'))).toBe(false);
    expect(matchersMatch(read('type=~"capacity.*"'), notice('tgp'))).toBe(true);
    expect(matchersMatch(read('type="CAPACITY CONSTRAINT"'), notice('tgp'))).toBe(true);
  });

  it('!= and !~ hold back what does not equal or match', () => {
    const m = read('pipeline=transco', 'type!~"planned maint.*"');
    expect(matchersMatch(m, notice('transco'))).toBe(true);
    expect(matchersMatch(m, notice('transco', maintenance))).toBe(false);
    expect(matchersMatch(m, notice('tgp'))).toBe(false);
    const not = read('pipeline!=transco', 'pipeline!=tgp');
    expect(matchersMatch(not, notice('anr'))).toBe(true);
    expect(matchersMatch(not, notice('TGP'))).toBe(false);
    expect(matchersMatch(not, notice('transco'))).toBe(false);
  });

  it('read a missing field as the empty string: a capacity alert has no type', () => {
    expect(matchersMatch(read('type=""'), capacity('transco'))).toBe(true);
    expect(matchersMatch(read('type=""'), notice('transco'))).toBe(false);
    expect(matchersMatch(read('type!=maintenance'), capacity('transco'))).toBe(true);
    expect(matchersMatch(read('type!~"maint.*"'), capacity('transco'))).toBe(true);
    expect(matchersMatch(read('type=~"maint.*"'), capacity('transco'))).toBe(false);
    expect(matchersMatch(read('type=maintenance'), capacity('transco'))).toBe(false);
    expect(matchersMatch(read('status=~".*"'), capacity('transco'))).toBe(true);
  });

  it('take = of one key as either value, and every key and every other matcher as required', () => {
    const m = read('pipeline=transco', 'pipeline=tgp|anr', 'category=critical');
    expect(m).toHaveLength(4);
    for (const p of ['transco', 'tgp', 'anr']) expect(matchersMatch(m, notice(p))).toBe(true);
    expect(matchersMatch(m, notice('ngpl'))).toBe(false);
    expect(matchersMatch(m, notice('tgp', maintenance))).toBe(false);
    expect(matchersMatch([], capacity('anything'))).toBe(true);
  });

  it('keep a quoted value as written, spaces, quotes and | included, and show it so it reads back', () => {
    const m = read('type="Planned \\"Maint\\" | Work"', 'category!~"non-critical|info"');
    expect(m).toEqual([
      { key: 'type', op: '=', value: 'Planned "Maint" | Work' },
      { key: 'category', op: '!~', value: 'non-critical|info' },
    ]);
    const line = matchersLine(m);
    expect(line).toBe('type="Planned \\"Maint\\" | Work" category!~"non-critical|info"');
    expect(read(...line.split(/ (?=[a-z]+[=!])/))).toEqual(m);
    expect(matchersMatch(m, notice('tgp', { ...constraint, type: 'planned "maint" | work' }))).toBe(
      true,
    );
  });

  it('refuse an unknown key with the key meant, and a regex a rule pattern could not be', () => {
    expect(readMatcher('tpye=maintenance')).toEqual({
      problem:
        "unknown matcher key 'tpye' — did you mean 'type'? (keys: pipeline, target, rule, type, category, status)",
    });
    expect(readMatcher('type=~"(?=planned)"')).toEqual({
      problem:
        'type=~(?=planned): look-ahead (?=…) is not supported: patterns run in linear time, which rules out look-around and back-references',
    });
    expect(readMatcher(`type=~${'a'.repeat(1001)}`)).toEqual({
      problem: 'type=~: the value is 1001 characters long; a matcher may have at most 1000',
    });
    expect(readMatcher('type="a\u0007b"')).toEqual({
      problem: 'type=: the value has a control character or line break',
    });
    expect(readMatcher('type="planned" work')).toEqual({
      problem: `'type="planned" work': text after the closing quote:  work`,
    });
  });

  it('match a hostile value in linear time: a long type against a regex that backtracks elsewhere', () => {
    const m = read('type=~"(a+)+b"');
    const started = process.cpuUsage();
    const hostile = { ...constraint, type: 'a'.repeat(60_000) };
    expect(matchersMatch(m, notice('tgp', hostile))).toBe(false);
    const { user, system } = process.cpuUsage(started);
    expect(user + system).toBeLessThan(2_000_000);
  });

  it('hold nothing with a stored regex that no longer compiles, whatever its operator', () => {
    for (const op of ['=~', '!~'] as const)
      expect(matchersMatch([{ key: 'type', op, value: '(unclosed' }], notice('tgp'))).toBe(false);
  });
});
