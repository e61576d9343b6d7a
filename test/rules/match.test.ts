import { describe, expect, it } from 'vitest';
import {
  compileFilter,
  FilterIndex,
  listMatcher,
  prepareNotice,
  prepareValue,
} from '../../src/rules/match.js';
import type { Notice } from '../../src/upstream/schemas.js';
import { makeNotice } from '../fakes/notice.js';

function notice(over: Partial<Notice> = {}): Notice {
  return makeNotice({
    id: 1,
    pipeline_name: 'Transcontinental Gas Pipe Line',
    notice: 'Transco is limiting interruptible service.',
    posted_at: '2026-11-20T14:05:00Z',
    service_updated_at: null,
    ...over,
  });
}

describe('list matching', () => {
  it.each([
    ['constraint', 'Constraint', true],
    ['constraint', 'Capacity Constraint', true],
    ['constraint', 'CONSTRAINT', true],
    ['constraint', 'Unconstrained', false],
    ['critical', 'Critical', true],
    ['critical', 'CRITICAL', true],
    ['critical', 'Non-Critical', false],
    ['critical', 'Noncritical', false],
    ['force majeure', 'Force Majeure', true],
    ['force majeure', 'LIFTED: Force Majeure - Line VB', true],
    ['majeure force', 'Force Majeure', false],
    ['ofo', 'Operational Flow Order (OFO)', true],
    ['non-critical', 'Non-Critical', true],
    ['plnd outage', 'Plnd Outage', true],
    ['initiate', '', false],
  ])('%j against %j is %s', (entry, value, expected) => {
    expect(listMatcher([entry])(prepareValue(value))).toBe(expected);
  });

  it('matches when any entry matches', () => {
    expect(listMatcher(['initiate', 'supersede'])(prepareValue('SUPERSEDE'))).toBe(true);
  });
});

describe('filters', () => {
  it('names the first field that fails', () => {
    const f = compileFilter({
      pipelines: ['transco'],
      types: ['constraint'],
      categories: ['critical'],
      statuses: ['initiate', 'supersede'],
    });
    expect(f(prepareNotice(notice()))).toBeNull();
    expect(f(prepareNotice(notice({ pipeline_slug: 'anr' })))).toBe('pipelines');
    expect(f(prepareNotice(notice({ type: 'Maintenance' })))).toBe('types');
    expect(f(prepareNotice(notice({ category: 'Non-Critical' })))).toBe('categories');
    expect(f(prepareNotice(notice({ status: 'Terminate' })))).toBe('statuses');
    expect(f(prepareNotice(notice({ status: '' })))).toBe('statuses');
  });

  it('matches the text regex case-insensitively on subject and notice text', () => {
    const f = compileFilter({ text: 'force majeure|OFO' });
    expect(f(prepareNotice(notice({ subject: 'FORCE MAJEURE declared' })))).toBeNull();
    expect(f(prepareNotice(notice({ notice: 'An ofo is in effect.' })))).toBeNull();
    expect(f(prepareNotice(notice()))).toBe('text');
  });

  it('an empty filter matches everything', () => {
    expect(compileFilter({})(prepareNotice(notice({ pipeline_slug: 'anything' })))).toBeNull();
  });
});

describe('FilterIndex', () => {
  it('returns every rule that can match, each once, and few that cannot', () => {
    const rules = [
      {
        name: 'a',
        filter: { pipelines: ['transco'], types: ['constraint', 'capacity constraint'] },
      },
      { name: 'b', filter: { pipelines: ['anr'] } },
      { name: 'c', filter: { types: ['maintenance'] } },
      { name: 'd', filter: {} },
      { name: 'e', filter: { pipelines: ['transco', 'tennessee'], types: ['force majeure'] } },
    ];
    const index = new FilterIndex(rules);
    const names = (n: Notice) =>
      index
        .candidates(prepareNotice(n))
        .map((r) => r.name)
        .sort();
    expect(names(notice())).toEqual(['a', 'd']);
    expect(names(notice({ pipeline_slug: 'anr', type: 'Maintenance' }))).toEqual(['b', 'c', 'd']);
    expect(names(notice({ type: 'Force Majeure' }))).toEqual(['d', 'e']);
    // Whatever the index returns, the filters decide; nothing that matches is left out.
    for (const n of [notice(), notice({ pipeline_slug: 'tennessee', type: 'FORCE MAJEURE' })]) {
      const matching = rules
        .filter((r) => compileFilter(r.filter)(prepareNotice(n)) === null)
        .map((r) => r.name);
      expect(index.candidates(prepareNotice(n)).map((r) => r.name)).toEqual(
        expect.arrayContaining(matching),
      );
    }
  });

  it('finds a rule whose pipeline entry is a word of the pipeline, as the filter matches it', () => {
    const rules = [
      { name: 'gulf', filter: { pipelines: ['Gulf'] } },
      { name: 'gulf south', filter: { pipelines: ['gulf  south'], types: ['constraint'] } },
      { name: 'south', filter: { pipelines: ['south'], types: ['maintenance'] } },
    ];
    const index = new FilterIndex(rules);
    const n = prepareNotice(notice({ pipeline_slug: 'Gulf South', type: 'Capacity Constraint' }));
    const matching = rules.filter((r) => compileFilter(r.filter)(n) === null).map((r) => r.name);
    expect(matching).toEqual(['gulf', 'gulf south']);
    expect(index.candidates(n).map((r) => r.name)).toEqual(expect.arrayContaining(matching));
  });
});
