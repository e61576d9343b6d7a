import { describe, expect, it } from 'vitest';
import {
  type ChatCommand,
  type ChatRuleCommand,
  type ChatVocabulary,
  chatRuleItem,
  parseChatCommand,
} from '../../src/chat/grammar.js';
import { ruleSchema } from '../../src/rules/schema.js';

const KNOWN: ChatVocabulary = {
  pipelines: ['transco', 'texas-eastern', 'tgp'],
  types: ['Capacity Constraint', 'Force Majeure', 'Maintenance'],
  categories: ['Critical', 'Non-Critical'],
  statuses: ['Posted', 'Updated'],
};
/** A store that knows nothing yet: any name goes. */
const UNKNOWN: ChatVocabulary = { pipelines: [], types: [], categories: [], statuses: [] };

function command(text: string, vocabulary = KNOWN): ChatCommand {
  const parsed = parseChatCommand(text, vocabulary);
  if (!parsed.ok) throw new Error(parsed.problems.map((p) => p.message).join('; '));
  return parsed.command;
}

describe('a rule command says what a rule file would say, and the rule schema takes it', () => {
  it.each<[string, ChatCommand]>([
    [
      'subscribe transco type:constraint',
      { verb: 'subscribe', notices: { pipelines: ['transco'], types: ['constraint'] } },
    ],
    [
      'subscribe transco, texas-eastern tgp type:constraint,maintenance category:critical status:posted text:"force\\s+majeure" on:new,updated',
      {
        verb: 'subscribe',
        notices: {
          pipelines: ['transco', 'texas-eastern', 'tgp'],
          types: ['constraint', 'maintenance'],
          categories: ['critical'],
          statuses: ['posted'],
          text: 'force\\s+majeure',
          on: ['new', 'updated'],
        },
      },
    ],
    ['subscribe all', { verb: 'subscribe', notices: {} }],
    [
      'remind transco',
      { verb: 'remind', deadlines: { pipelines: ['transco'], before: ['24h', '2h'] } },
    ],
    [
      'remind all field:effective_at before:2d,1h30m',
      { verb: 'remind', deadlines: { field: 'effective_at', before: ['2d', '1h30m'] } },
    ],
    [
      'oac transco "Station 85" below:100,000',
      {
        verb: 'oac',
        capacity: { pipelines: ['transco'], locations: ['Station 85'], oac_below: 100_000 },
      },
    ],
    [
      'oac tgp 412345 below:10% clear:15% cycles:timely,evening',
      {
        verb: 'oac',
        capacity: {
          pipelines: ['tgp'],
          locations: ['412345'],
          oac_pct_below: 10,
          clear_above: 15,
          cycles: ['timely', 'evening'],
        },
      },
    ],
    [
      'oac transco "Station 85" below:1,234,567.5 clear:2000000',
      {
        verb: 'oac',
        capacity: {
          pipelines: ['transco'],
          locations: ['Station 85'],
          oac_below: 1_234_567.5,
          clear_above: 2_000_000,
        },
      },
    ],
  ])('%s', (text, expected) => {
    const parsed = command(text);
    expect(parsed).toEqual(expected);
    const item = chatRuleItem(parsed as ChatRuleCommand, 'chat-1', [{ slack: '#gas' }]);
    expect(ruleSchema.safeParse(item).success).toBe(true);
  });

  it('makes the rule-file item under notices:, deadlines: or capacity:, with its name and targets', () => {
    const notify = [{ slack: 'C0GAS0001' }];
    expect(chatRuleItem(command('subscribe transco') as ChatRuleCommand, 'sub-1', notify)).toEqual({
      name: 'sub-1',
      notices: { pipelines: ['transco'] },
      notify,
    });
    const dm = [{ slack_dm: 'U0ALICE01' }];
    expect(chatRuleItem(command('remind tgp') as ChatRuleCommand, 'rem-2', dm)).toEqual({
      name: 'rem-2',
      deadlines: { pipelines: ['tgp'], before: ['24h', '2h'] },
      notify: dm,
    });
    const oac = chatRuleItem(command('oac tgp X below:5%') as ChatRuleCommand, 'oac-3', notify);
    expect(ruleSchema.parse(oac)).toMatchObject({ kind: 'capacity', unit: 'percent', below: 5 });
  });
});

describe('the other commands carry their arguments', () => {
  it.each<[string, ChatCommand]>([
    ['list', { verb: 'list' }],
    ['unsubscribe 12', { verb: 'unsubscribe', id: 12 }],
    ['unsubscribe #12', { verb: 'unsubscribe', id: 12 }],
    ['unsubscribe all', { verb: 'unsubscribe', id: 'all' }],
    ['mute transco for 4h', { verb: 'mute', pipeline: 'transco', forMs: 4 * 3_600_000 }],
    ['mute for 1h30m', { verb: 'mute', forMs: 5_400_000 }],
    ['mute all for 30d', { verb: 'mute', forMs: 30 * 86_400_000 }],
    ['mute tgp for:1m', { verb: 'mute', pipeline: 'tgp', forMs: 60_000 }],
    ['unmute', { verb: 'unmute' }],
    ['unmute #3', { verb: 'unmute', id: 3 }],
    ['help', { verb: 'help' }],
    ['help oac', { verb: 'help', topic: 'oac' }],
    ['help command:oac', { verb: 'help', topic: 'oac' }],
    ['', { verb: 'help' }],
    ['   ', { verb: 'help' }],
  ])('%j', (text, expected) => expect(command(text)).toEqual(expected));
});

describe('how words may be written', () => {
  it.each<[string, string, ChatCommand]>([
    [
      'verbs, keys, slugs and all in any case',
      'SUBSCRIBE Transco TYPE:constraint On:New',
      {
        verb: 'subscribe',
        notices: { pipelines: ['transco'], types: ['constraint'], on: ['new'] },
      },
    ],
    ['ALL', 'Subscribe ALL', { verb: 'subscribe', notices: {} }],
    [
      'pipelines with commas, spaces, or both',
      'remind transco,tgp texas-eastern, transco',
      {
        verb: 'remind',
        deadlines: {
          pipelines: ['transco', 'tgp', 'texas-eastern', 'transco'],
          before: ['24h', '2h'],
        },
      },
    ],
    [
      'a space after a colon or a comma',
      'subscribe transco type: constraint, maintenance status:posted',
      {
        verb: 'subscribe',
        notices: {
          pipelines: ['transco'],
          types: ['constraint', 'maintenance'],
          statuses: ['posted'],
        },
      },
    ],
    [
      'options in any order, plural keys',
      'subscribe tgp on:updated types:maintenance',
      {
        verb: 'subscribe',
        notices: { pipelines: ['tgp'], types: ['maintenance'], on: ['updated'] },
      },
    ],
    [
      'the curly quotes chat clients put in',
      'subscribe transco text:“force majeure” type:‘capacity constraint’',
      {
        verb: 'subscribe',
        notices: { pipelines: ['transco'], types: ['capacity constraint'], text: 'force majeure' },
      },
    ],
    [
      'an apostrophe inside curly single quotes',
      'oac transco ‘St. Mary’s’ below:10%',
      {
        verb: 'oac',
        capacity: { pipelines: ['transco'], locations: ['St. Mary’s'], oac_pct_below: 10 },
      },
    ],
    [
      'a comma inside quotes is no separator; a regex keeps its commas unquoted',
      'subscribe transco type:"constraint, capacity" text:a{1,3}',
      {
        verb: 'subscribe',
        notices: { pipelines: ['transco'], types: ['constraint, capacity'], text: 'a{1,3}' },
      },
    ],
    [
      'a double quote inside single quotes',
      `subscribe transco text:'say "now"'`,
      { verb: 'subscribe', notices: { pipelines: ['transco'], text: 'say "now"' } },
    ],
    [
      'the places named as options, as Discord sends them',
      'oac pipeline:transco location:"Station 85" below:10',
      {
        verb: 'oac',
        capacity: { pipelines: ['transco'], locations: ['Station 85'], oac_below: 10 },
      },
    ],
    [
      'pipelines: as an option',
      'subscribe pipelines:transco,tgp',
      { verb: 'subscribe', notices: { pipelines: ['transco', 'tgp'] } },
    ],
    [
      'names the store does not know yet when it knows none',
      'subscribe new-pipe type:anything',
      { verb: 'subscribe', notices: { pipelines: ['new-pipe'], types: ['anything'] } },
    ],
  ])('%s', (_, text, expected) => {
    const vocabulary = text.includes('new-pipe') || text.includes('"constraint,') ? UNKNOWN : KNOWN;
    expect(command(text, vocabulary)).toEqual(expected);
  });
});
