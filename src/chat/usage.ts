/**
 * How to write each `/pipewatch` command, as chat users read it: short lines in a
 * fixed-width block (a phone shows about 60 characters), and one example each. The help
 * command answers with it, and so does every command with a wrong word.
 */
import { CYCLES } from '../rules/schema.js';
import { DEFAULT_BEFORE, VERBS, type Verb } from './commands.js';
import type { ChatReply } from './types.js';

const PIPELINES = '  PIPELINES  slugs, space- or comma-separated, or all';

/** Each command: its forms, what it does, and one example. */
const USAGE: Record<Verb, { forms: string[]; does: string[]; example: string }> = {
  subscribe: {
    forms: [
      'subscribe PIPELINES [type:T,…] [category:C,…]',
      '          [status:S,…] [text:"regex"] [on:new,updated]',
      '          [escalate:30m to:TARGET,…]',
    ],
    does: [
      'This channel gets the notices of these pipelines that',
      'match every option given.',
      PIPELINES,
      '  type:      notice types; each matches as whole words',
      '             (constraint matches Capacity Constraint)',
      '  category:  notice categories',
      '  status:    notice statuses',
      '  text:      a regular expression on subject and text,',
      '             any case; RE2: no look-around',
      '  on:        new, updated or both (default new)',
      '  escalate:  an alert nobody acknowledged this long goes',
      '             to the to: targets, once (to:pagerduty:KEY)',
    ],
    example: 'subscribe transco type:constraint on:new,updated',
  },
  remind: {
    forms: [
      'remind PIPELINES [field:response_at|effective_at|end_at]',
      `       [before:${DEFAULT_BEFORE.join(',')}]`,
    ],
    does: [
      'You get a direct message before the deadline of each',
      'matching notice.',
      PIPELINES,
      '  field:     the deadline (default response_at)',
      `  before:    how long before it (default ${DEFAULT_BEFORE.join(',')})`,
    ],
    example: 'remind transco,texas-eastern before:24h,2h',
  },
  oac: {
    forms: ['oac PIPELINE LOCATION below:N [clear:N] [cycles:C,…]'],
    does: [
      "This channel gets an alert when a location's operationally",
      'available capacity falls below N, and when it is back.',
      '  LOCATION  a location name in quotes, or its id',
      '  below:    Dth (100000 or 100,000), or % of OPC (10%)',
      '  clear:    back above this, in the same unit',
      '            (default 10% above below)',
      `  cycles:   ${CYCLES.join(', ')}`,
    ],
    example: 'oac transco "Station 85" below:10% clear:15%',
  },
  list: {
    forms: ['list'],
    does: ["This channel's subscriptions, and your reminders and", 'silences, each with its id.'],
    example: 'list',
  },
  unsubscribe: {
    forms: ['unsubscribe ID', 'unsubscribe all'],
    does: [
      'Removes a subscription of this channel or a reminder of',
      'yours, by the id list shows (12 or #12); all: every one.',
    ],
    example: 'unsubscribe #12',
  },
  mute: {
    forms: [
      'mute [PIPELINE] [type:T,…] [category:C,…] [status:S,…]',
      '     for DURATION | until TIME [from TIME]',
    ],
    does: [
      "Holds back this channel's alerts (of one pipeline, or all)",
      'for 1m to 30d; then one message says what was held back.',
      '  type:      notice types, as whole words (maintenance',
      '             holds Planned Maintenance); also category:,',
      '             status:. A capacity alert has none: not held',
      '  from:      a later start: 2026-12-01T09:00-06:00',
      '  until:     the end instead of for, with its zone',
    ],
    example: 'mute transco type:maintenance for 4h',
  },
  unmute: {
    forms: ['unmute [ID]'],
    does: ['Ends a silence of this channel, by the id list shows;', 'without one, all of them.'],
    example: 'unmute #3',
  },
  help: {
    forms: ['help [COMMAND]'],
    does: ['How to write every command, or one.'],
    example: 'help subscribe',
  },
};

/**
 * The usage of one command, or with no verb an overview of them all with an example
 * each: fixed-width text for a code block.
 */
export function usage(verb?: Verb): string {
  if (verb) {
    const u = USAGE[verb];
    return [...u.forms, '', ...u.does, '', 'Example:', `  /pipewatch ${u.example}`].join('\n');
  }
  return [
    '/pipewatch COMMAND …',
    '',
    ...VERBS.flatMap((v) => USAGE[v].forms),
    '',
    'PIPELINES: slugs, space- or comma-separated, or all.',
    'Values with spaces go in quotes: text:"force majeure".',
    'help COMMAND says more about one.',
    '',
    'Examples:',
    ...VERBS.map((v) => `  /pipewatch ${USAGE[v].example}`),
  ].join('\n');
}

/** The answer to `help`: only the caller sees it. */
export function helpReply(topic?: Verb): ChatReply {
  return {
    private: true,
    text: topic ? `How to write /pipewatch ${topic}` : 'How to write /pipewatch commands',
    sections: [{ kind: 'code', text: usage(topic) }],
  };
}
