import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { suggest } from '../../src/lib/suggest.js';
import { loadRules } from '../../src/rules/loader.js';
import { RULES_SCHEMA_FILE, rulesJsonSchemaText } from '../../src/rules/schema.js';
import { formatProblem } from '../../src/rules/types.js';

const RULES_DIR = fileURLToPath(new URL('../../rules/', import.meta.url));

describe('rules/schema.json', () => {
  it('is the JSON Schema the rule schema generates', () => {
    const committed = readFileSync(RULES_SCHEMA_FILE, 'utf8');
    expect(
      committed === rulesJsonSchemaText(),
      'rules/schema.json is out of date: run `node --import tsx scripts/rules-schema.ts` and commit it',
    ).toBe(true);
  });

  it('describes the format strictly, for editors to check and complete', () => {
    const schema = JSON.parse(rulesJsonSchemaText());
    const rule = schema.properties.rules.items;
    expect(schema.additionalProperties).toBe(false);
    expect(rule.additionalProperties).toBe(false);
    expect(rule.oneOf).toEqual([
      { required: ['notices'] },
      { required: ['deadlines'] },
      { required: ['capacity'] },
    ]);
    expect(Object.keys(rule.properties.notify.items.properties)).toEqual([
      'slack',
      'slack_dm',
      'discord',
      'discord_dm',
      'email',
      'webhook',
      'teams',
      'pagerduty',
      'console',
    ]);
    expect(rule.properties.notify.items.maxProperties).toBe(1);
    expect(rule.properties.capacity.properties.cycles.items.enum).toContain('timely');
  });
});

describe('the example rules', () => {
  it('are valid: a channel on constraints, DM reminders, and an OAC threshold', () => {
    const loaded = loadRules(RULES_DIR);
    expect(loaded.problems.map(formatProblem)).toEqual([]);
    expect(loaded.rules.map((r) => [r.name, r.kind, r.notify.map((t) => t.kind)])).toEqual([
      ['transco-constraints', 'notices', ['slack']],
      ['transco-low-oac', 'capacity', ['email']],
      ['response-reminders', 'deadlines', ['slack_dm']],
    ]);
    expect(loaded.rules.find((r) => r.kind === 'notices')).toMatchObject({
      not: { types: ['computer system status'] },
    });
    expect(loaded.rules.find((r) => r.kind === 'deadlines')).toMatchObject({
      beforeMs: [86_400_000, 7_200_000, 1_800_000],
      filter: { pipelines: ['texas-eastern', 'transco'] },
    });
    expect(loaded.rules.find((r) => r.kind === 'capacity')).toMatchObject({
      locations: ['station 85'],
      below: 50000,
      clearAbove: 60000,
    });
  });

  it('point editors at the schema', () => {
    for (const file of loadRules(RULES_DIR, { cwd: RULES_DIR }).files) {
      const first = readFileSync(`${RULES_DIR}${file}`, 'utf8').split('\n')[0];
      expect(first, file).toBe('# yaml-language-server: $schema=./schema.json');
    }
  });
});

describe('suggestions', () => {
  it('offer the word meant for a near miss, and nothing for a far one', () => {
    const targets = [
      'slack',
      'slack_dm',
      'discord',
      'discord_dm',
      'email',
      'webhook',
      'pagerduty',
      'console',
    ];
    expect(suggest('slak', targets)).toBe('slack');
    expect(suggest('Slack-DM', targets)).toBe('slack_dm');
    expect(suggest('emial', targets)).toBe('email');
    expect(suggest('pager', targets)).toBeUndefined();
    expect(suggest('pipeline', ['pipelines', 'types'])).toBe('pipelines');
    expect(suggest('clear_abve', ['oac_below', 'clear_above'])).toBe('clear_above');
  });
});
