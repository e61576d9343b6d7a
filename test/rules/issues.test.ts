import { describe, expect, it } from 'vitest';
import { LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import {
  issueMessages,
  issueProblems,
  positionAt,
  type RuleSource,
} from '../../src/rules/issues.js';
import { formatProblem } from '../../src/rules/types.js';

type Issue = z.core.$ZodIssue;

/** A rule file's text as the loader parses it. */
function source(text: string): RuleSource {
  const lines = new LineCounter();
  return { file: 'r.yaml', doc: parseDocument(text, { lineCounter: lines }), lines };
}

/** The `file:line:col: message` lines a file's issues amount to. */
function translate(issues: Array<Partial<Issue>>, text: string): string[] {
  return issueProblems(issues as Issue[], source(text)).map(formatProblem);
}

const RULE = `rules:
  - name: r1
    notices:
      pipelines: [transco, texas-eastern]
      text: "("
      colour: red
    notify:
      - slak: "#ops"
`;

describe('issueProblems', () => {
  it.each<[string, Array<Partial<Issue>>, string, string[]]>([
    [
      'an unknown key at the top level, with the key meant',
      [{ code: 'unrecognized_keys', keys: ['rule'], path: [], message: '' }],
      'rule: []\n',
      ["r.yaml:1:1: unknown key 'rule' at the top level — did you mean 'rules'?"],
    ],
    [
      'an unknown key with nothing close, with the keys expected there',
      [{ code: 'unrecognized_keys', keys: ['colour'], path: ['rules', 0, 'notices'], message: '' }],
      RULE,
      [
        "r.yaml:6:7: unknown key 'colour' in notices; expected pipelines, types, categories, statuses, text, on, not",
      ],
    ],
    [
      'an unknown target, with the target meant',
      [{ code: 'unrecognized_keys', keys: ['slak'], path: ['rules', 0, 'notify', 0], message: '' }],
      RULE,
      ["r.yaml:8:9: unknown target 'slak' — did you mean 'slack'?"],
    ],
    [
      'an unknown target with nothing close, with every target',
      [
        {
          code: 'unrecognized_keys',
          keys: ['pager'],
          path: ['rules', 0, 'notify', 0],
          message: '',
        },
      ],
      'rules:\n  - notify:\n      - pager: x\n',
      [
        "r.yaml:3:9: unknown target 'pager'; targets are slack, slack_dm, discord, discord_dm, email, webhook, teams, pagerduty, console",
      ],
    ],
    [
      'a missing key, at the mapping it is missing from',
      [
        {
          code: 'invalid_type',
          expected: 'array',
          path: ['rules', 0, 'notify'],
          message: 'missing',
        },
      ],
      'rules:\n  - name: r1\n    notices: {}\n',
      ["r.yaml:2:5: missing 'notify' in a rule"],
    ],
    [
      'a missing key left out when an unknown key beside it is its typo',
      [
        {
          code: 'invalid_type',
          expected: 'array',
          path: ['rules', 0, 'notify'],
          message: 'missing',
        },
        { code: 'unrecognized_keys', keys: ['notfy'], path: ['rules', 0], message: '' },
      ],
      'rules:\n  - name: r1\n    notfy: []\n',
      ["r.yaml:3:5: unknown key 'notfy' in a rule — did you mean 'notify'?"],
    ],
    [
      'a bad value, named by its key and pointed at',
      [{ code: 'custom', path: ['rules', 0, 'notices', 'text'], message: 'not a pattern' }],
      RULE,
      ['r.yaml:5:13: text: not a pattern'],
    ],
    [
      'a bad list item, named with its index',
      [{ code: 'custom', path: ['rules', 0, 'notices', 'pipelines', 1], message: 'bad slug' }],
      RULE,
      ['r.yaml:4:28: pipelines[1]: bad slug'],
    ],
    [
      'a problem of a whole rule',
      [
        {
          code: 'custom',
          path: ['rules', 0],
          message: 'needs one of notices, deadlines, capacity',
        },
      ],
      RULE,
      ['r.yaml:2:5: rule: needs one of notices, deadlines, capacity'],
    ],
    [
      'a problem of the whole file, unlabelled',
      [{ code: 'custom', path: [], message: 'no rules' }],
      'rules: []\n',
      ['r.yaml:1:1: no rules'],
    ],
    [
      'a message meant for the key, at the key and unlabelled',
      [{ code: 'custom', path: ['rules', 0, 'notices'], message: 'bad', params: { at: 'key' } }],
      RULE,
      ['r.yaml:3:5: bad'],
    ],
    [
      'an empty value, at its key',
      [{ code: 'custom', path: ['rules', 0, 'name'], message: 'must not be empty' }],
      'rules:\n  - name:\n    notify: []\n',
      ['r.yaml:2:5: name: must not be empty'],
    ],
    [
      'a union, by the branch whose type fits',
      [
        {
          code: 'invalid_union',
          path: ['rules', 0, 'notify', 0, 'email'],
          message: 'Invalid input',
          errors: [
            [{ code: 'invalid_type', expected: 'string', path: [], message: 'expected text' }],
            [
              {
                code: 'too_small',
                origin: 'array',
                minimum: 1,
                path: [],
                message: 'must not be empty',
              },
            ],
          ],
        } as Partial<Issue>,
      ],
      'rules:\n  - notify:\n      - email: []\n',
      ['r.yaml:3:16: email: must not be empty'],
    ],
    [
      'a union no branch of which fits, by its own message',
      [
        {
          code: 'invalid_union',
          path: ['rules', 0, 'notify', 0, 'email'],
          message: 'expected an address or a list of them',
          errors: [
            [{ code: 'invalid_type', expected: 'string', path: [], message: 'expected text' }],
            [{ code: 'invalid_type', expected: 'array', path: [], message: 'expected a list' }],
          ],
        } as Partial<Issue>,
      ],
      'rules:\n  - notify:\n      - email: 5\n',
      ['r.yaml:3:16: email: expected an address or a list of them'],
    ],
  ])('%s', (_name, issues, text, expected) => {
    expect(translate(issues, text)).toEqual(expected);
  });
});

describe('positionAt', () => {
  const src = source(RULE);

  it.each<[string, PropertyKey[], boolean, string, string?]>([
    ['a value', ['rules', 0, 'name'], false, '2:11'],
    ['a key', ['rules', 0, 'name'], true, '2:5'],
    ['a list item', ['rules', 0, 'notify', 0], false, '8:9'],
    [
      'a path deeper than the file, at the deepest part there is',
      ['rules', 0, 'deadlines', 'x'],
      false,
      '2:5',
    ],
    ['a missing key of a mapping, at the mapping', ['rules', 0, 'notices', 'types'], false, '4:7'],
    ['an item past the end of a list, at the list', ['rules', 3], false, '2:3'],
    [
      'a key without a value, at the key',
      ['rules', 0, 'name'],
      false,
      '2:7',
      '{ name, notify: [] }',
    ],
  ])('%s', (_name, path, atKey, expected, item) => {
    const p = positionAt(item ? source(`rules:\n  - ${item}\n`) : src, path, atKey);
    expect(`${p.file}:${p.line}:${p.col}`).toBe(`r.yaml:${expected}`);
  });
});

describe('issueMessages', () => {
  it.each<[string, Record<string, unknown>, string | undefined]>([
    ['a missing value', { code: 'invalid_type', expected: 'string', input: undefined }, 'missing'],
    [
      'a wrong type',
      { code: 'invalid_type', expected: 'string', input: 5 },
      'expected text, got number 5',
    ],
    [
      'a list for text',
      { code: 'invalid_type', expected: 'string', input: [1] },
      'expected text, got a list',
    ],
    [
      'text for a list',
      { code: 'invalid_type', expected: 'array', input: 'x' },
      "expected a list, got 'x'",
    ],
    [
      'a type without a word of its own',
      { code: 'invalid_type', expected: 'bigint', input: true },
      'expected bigint, got boolean true',
    ],
    [
      'nothing for a mapping',
      { code: 'invalid_type', expected: 'object', input: null },
      'expected a mapping (key: value), got nothing (write {} for an empty mapping)',
    ],
    [
      'a value not allowed, with the one meant',
      { code: 'invalid_value', values: ['new', 'updated'], input: 'nwe' },
      "'nwe' is not one of new, updated — did you mean 'new'?",
    ],
    [
      'a value not allowed and not text',
      { code: 'invalid_value', values: ['new', 'updated'], input: 3 },
      'number 3 is not one of new, updated',
    ],
    [
      'a number too small',
      { code: 'too_small', origin: 'number', minimum: 1 },
      'must be at least 1',
    ],
    ['an empty list', { code: 'too_small', origin: 'array', minimum: 1 }, 'must not be empty'],
    ['a number too big', { code: 'too_big', origin: 'number', maximum: 10 }, 'must be at most 10'],
    ['anything else, left to the schema', { code: 'custom' }, undefined],
  ])('%s', (_name, raw, expected) => {
    expect(issueMessages({ path: [], ...raw } as unknown as z.core.$ZodRawIssue)).toBe(expected);
  });
});
