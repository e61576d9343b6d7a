import { describe, expect, it } from 'vitest';
import { parseRuleFile } from '../../src/rules/loader.js';
import { unknownPipelines } from '../../src/rules/pipeline-check.js';

const TRACKED = ['transco', 'texas-eastern', 'tennessee', 'east-tennessee', 'columbia'];

function rules(text: string) {
  const parsed = parseRuleFile(text, 'rules/r.yaml');
  expect(parsed.problems).toEqual([]);
  return parsed.rules;
}

describe('unknownPipelines', () => {
  it('reports a slug the API does not track, at its position, with the slug meant', () => {
    const found = unknownPipelines(
      rules(`rules:
  - name: low-oac
    capacity:
      pipelines: [transco, transcoo]
      oac_below: 50000
    notify: [{ console: true }]
`),
      TRACKED,
    );
    expect(found).toEqual([
      {
        file: 'rules/r.yaml',
        line: 4,
        col: 28,
        rule: 'low-oac',
        slug: 'transcoo',
        suggestion: 'transco',
        message:
          "rule 'low-oac': pipeline 'transcoo' is not tracked by the API — did you mean 'transco'?",
      },
    ]);
  });

  it('checks notice, deadline and exclusion lists, and offers nothing when no slug is close', () => {
    const found = unknownPipelines(
      rules(`rules:
  - name: a
    notices: { pipelines: [texas-eastren], not: { pipelines: [colombia] } }
    notify: [{ console: true }]
  - name: b
    deadlines: { before: 2h, pipelines: [northern-lights] }
    notify: [{ console: true }]
`),
      TRACKED,
    );
    expect(found.map((f) => [f.rule, f.slug, f.suggestion])).toEqual([
      ['a', 'texas-eastren', 'texas-eastern'],
      ['a', 'colombia', 'columbia'],
      ['b', 'northern-lights', undefined],
    ]);
    expect(found[2]!.message).toBe(
      "rule 'b': pipeline 'northern-lights' is not tracked by the API",
    );
  });

  it('says nothing while the pipeline list is not known, or when every slug is tracked', () => {
    const all = rules(`rules:
  - name: a
    notices: { pipelines: [Transco, columbia] }
    notify: [{ console: true }]
`);
    expect(unknownPipelines(all, [])).toEqual([]);
    expect(unknownPipelines(all, TRACKED)).toEqual([]);
  });
});
