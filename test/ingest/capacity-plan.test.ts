import { describe, expect, it } from 'vitest';
import {
  capacityPlan,
  describePlanned,
  planRequestsPerHour,
} from '../../src/ingest/capacity-plan.js';
import { parseRuleFile } from '../../src/rules/loader.js';

function rules(text: string) {
  const parsed = parseRuleFile(text, 'r.yaml');
  expect(parsed.problems).toEqual([]);
  return parsed.rules;
}

const RULES = rules(`rules:
  - name: transco-low-oac
    capacity: { pipelines: [transco], cycles: [timely, id1], oac_below: 50000 }
    notify: [{ console: true }]
  - name: transco-evening
    capacity: { pipelines: [Transco, texas-eastern], cycles: [evening], oac_pct_below: 10 }
    notify: [{ console: true }]
  - name: constraints
    notices: { pipelines: [columbia] }
    notify: [{ console: true }]
`);

describe('capacityPlan', () => {
  it('fetches what the capacity rules name, with the cycles each asks for and who asked', () => {
    const plan = capacityPlan(RULES, [], []);
    expect(plan.waitingForPipelineList).toEqual([]);
    expect(plan.pipelines).toEqual([
      {
        slug: 'texas-eastern',
        cycles: ['evening'],
        requestedBy: [{ by: 'transco-evening', cycles: ['evening'] }],
        implicit: false,
      },
      {
        slug: 'transco',
        cycles: ['timely', 'evening', 'id1'],
        requestedBy: [
          { by: 'transco-low-oac', cycles: ['timely', 'id1'] },
          { by: 'transco-evening', cycles: ['evening'] },
        ],
        implicit: false,
      },
    ]);
    expect(describePlanned(plan.pipelines[1]!)).toBe(
      'transco: latest, timely, evening, id1 (transco-low-oac; transco-evening)',
    );
  });

  it('adds PIPEWATCH_CAPACITY_PIPELINES, every cycle, without taking anything away', () => {
    const plan = capacityPlan(RULES, ['transco', 'tennessee'], []);
    expect(plan.pipelines.map((p) => [p.slug, p.cycles.join(',')])).toEqual([
      ['tennessee', 'timely,evening,id1,id2,id3'],
      ['texas-eastern', 'evening'],
      ['transco', 'timely,evening,id1,id2,id3'],
    ]);
    expect(plan.pipelines[2]!.requestedBy.at(-1)).toEqual({
      by: 'PIPEWATCH_CAPACITY_PIPELINES',
      cycles: ['timely', 'evening', 'id1', 'id2', 'id3'],
    });
  });

  it('takes every tracked pipeline for a rule naming none, and waits while the list is unknown', () => {
    const everywhere = rules(`rules:
  - name: everywhere
    capacity: { oac_pct_below: 5 }
    notify: [{ console: true }]
  - name: transco
    capacity: { pipelines: [transco], oac_below: 1 }
    notify: [{ console: true }]
`);
    expect(capacityPlan(everywhere, [], [])).toEqual({
      pipelines: [expect.objectContaining({ slug: 'transco', implicit: false })],
      waitingForPipelineList: ['everywhere'],
    });
    const plan = capacityPlan(everywhere, [], ['anr', 'transco']);
    expect(plan.pipelines.map((p) => [p.slug, p.implicit])).toEqual([
      ['anr', true],
      ['transco', false],
    ]);
    expect(describePlanned(plan.pipelines[0]!)).toBe(
      'anr: latest, timely, evening, id1, id2, id3 (everywhere; every tracked pipeline)',
    );
  });

  it('is empty without capacity rules', () => {
    expect(capacityPlan(RULES.slice(2), [], ['transco'])).toEqual({
      pipelines: [],
      waitingForPipelineList: [],
    });
  });
});

describe('planRequestsPerHour', () => {
  it('counts latest every run and each planned cycle once a day', () => {
    const plan = capacityPlan(RULES, [], []);
    // 2 pipelines × 4 runs an hour, plus 4 planned cycles a day.
    expect(planRequestsPerHour(plan, 15 * 60_000)).toBe(8.2);
    expect(planRequestsPerHour(capacityPlan([], [], []), 15 * 60_000)).toBe(0);
  });
});
