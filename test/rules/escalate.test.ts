/**
 * `escalate:` in a rule file: what it reads as, and each way to write it wrong, named at
 * the line and column of what is wrong.
 */
import { describe, expect, it } from 'vitest';
import { parseRuleFile } from '../../src/rules/loader.js';
import { formatProblem } from '../../src/rules/types.js';

const KEY = 'R0ESCALATE0000000000000000009a1b';

/** A rule file of one rule: `body` under its name, indented as a rule's keys are. */
function file(body: string): string {
  return `rules:\n  - name: fm\n${body
    .trim()
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}\n`;
}

function problems(body: string): string[] {
  return parseRuleFile(file(body), 'r.yaml').problems.map(formatProblem);
}

const NOTICES = 'notices:\n  types: [force majeure]';

describe('escalate:', () => {
  it('reads as its wait in milliseconds and its targets', () => {
    const parsed = parseRuleFile(
      file(`${NOTICES}
notify:
  - slack: "#gas"
escalate:
  after: 30m
  to:
    - pagerduty: ${KEY}
    - email: oncall@example.com`),
      'r.yaml',
    );
    expect(parsed.problems).toEqual([]);
    expect(parsed.rules[0]).toMatchObject({
      kind: 'notices',
      escalate: {
        afterMs: 30 * 60_000,
        to: [
          { kind: 'pagerduty', routingKey: KEY },
          { kind: 'email', to: ['oncall@example.com'] },
        ],
      },
    });
  });

  it('is for notices rules only', () => {
    expect(
      problems(`deadlines:
  before: 2h
notify:
  - slack: "#gas"
escalate: {after: 30m, to: [{pagerduty: ${KEY}}]}`),
    ).toEqual([
      'r.yaml:7:15: escalate: is for notices rules: only a notice alert can be acknowledged',
    ]);
  });

  it('needs a Slack or Discord channel to acknowledge in', () => {
    expect(
      problems(`${NOTICES}
notify:
  - email: gas@example.com
  - slack_dm: U0ALICE
escalate: {after: 30m, to: [{pagerduty: ${KEY}}]}`),
    ).toEqual([
      'r.yaml:8:15: escalate: needs a slack or discord channel in notify: the Acknowledge button on its message is what stops an escalation, and without one every alert would escalate',
    ]);
  });

  it('refuses a wait out of bounds, a target of notify, a repeat and a missing list', () => {
    expect(
      problems(`${NOTICES}
notify:
  - discord: "1203456789012345678"
  - pagerduty: ${KEY}
escalate:
  after: 30s
  to:
    - pagerduty: ${KEY}`),
    ).toEqual(['r.yaml:9:14: after: must be between 1m and 7d']);
    expect(
      problems(`${NOTICES}
notify:
  - discord: "1203456789012345678"
  - pagerduty: ${KEY}
escalate:
  after: 30m
  to:
    - pagerduty: ${KEY}
    - email: a@example.com
    - email: a@example.com`),
    ).toEqual(['r.yaml:13:11: to[2]: repeats email:a@example.com']);
    expect(
      problems(`${NOTICES}
notify:
  - discord: "1203456789012345678"
  - pagerduty: ${KEY}
escalate:
  after: 30m
  to:
    - pagerduty: ${KEY}`),
    ).toEqual([
      'r.yaml:11:11: to[0]: pagerduty:…9a1b is in notify already: it hears of every alert at once',
    ]);
    expect(problems(`${NOTICES}\nnotify:\n  - slack: "#gas"\nescalate:\n  after: 8d`)).toEqual([
      "r.yaml:8:7: missing 'to' in escalate",
      'r.yaml:8:14: after: must be between 1m and 7d',
    ]);
  });
});
