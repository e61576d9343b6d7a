/**
 * Discord's `/pipewatch` subcommand and options written back as the words the grammar
 * reads: what the grammar makes of the words must be exactly what was typed in each of
 * Discord's option boxes, whatever the value holds (spaces, commas, quote marks of
 * either kind, colons), and a value no quoting can say is refused rather than misread.
 */
import { describe, expect, it } from 'vitest';
import { parseChatCommand } from '../../../src/chat/grammar.js';
import {
  type CommandOption,
  commandWords,
  quoteValue,
} from '../../../src/frontends/discord/command-words.js';
import { commandData } from '../../fakes/discord-interaction-payloads.js';

const VOCABULARY = {
  pipelines: ['transco', 'tgp', 'texas-eastern'],
  types: ['Capacity Constraint', 'Planned Service Outage', 'Force Majeure'],
  categories: ['Critical', 'Non-Critical'],
  statuses: ['Initiate', 'Supersede'],
};

/** The words of `/pipewatch <subcommand>` with these options, as Discord sends them. */
function words(subcommand: string, options: Record<string, string | number>): string {
  const data = commandData(subcommand, options);
  const made = commandWords({ name: data.name, options: data.options as CommandOption[] });
  if ('reply' in made) throw new Error(made.reply.text);
  return made.text;
}

/** What the grammar makes of the words. */
function parsed(text: string) {
  const result = parseChatCommand(text, VOCABULARY);
  if (!result.ok) throw new Error(`${text}: ${result.problems.map((p) => p.message).join('; ')}`);
  return result.command;
}

describe('commandWords', () => {
  it('writes the subcommand, then each option as key:value, lists joined by commas', () => {
    expect(words('subscribe', { pipelines: 'transco', type: 'constraint' })).toBe(
      'subscribe pipelines:transco type:constraint',
    );
    expect(words('subscribe', { pipelines: 'transco, tgp  texas-eastern' })).toBe(
      'subscribe pipelines:transco,tgp,texas-eastern',
    );
    expect(words('remind', { pipelines: 'all', before: '24h 2h' })).toBe(
      'remind pipelines:all before:24h,2h',
    );
    expect(words('unsubscribe', { id: 12 })).toBe('unsubscribe id:12');
    expect(words('mute', { pipeline: 'transco', for: '4h' })).toBe('mute pipeline:transco for:4h');
    expect(words('help', { topic: 'oac' })).toBe('help oac');
    expect(words('list', {})).toBe('list');
  });

  it('quotes a value with spaces, choosing the quote its text does not close', () => {
    expect(words('oac', { pipeline: 'transco', location: 'Station 85', below: '10%' })).toBe(
      'oac pipeline:transco location:"Station 85" below:10%',
    );
    expect(
      words('subscribe', { pipelines: 'tgp', type: 'Planned Service Outage, Force Majeure' }),
    ).toBe('subscribe pipelines:tgp type:"Planned Service Outage","Force Majeure"');
    expect(quoteValue('say "hi" now')).toBe(`'say "hi" now'`);
    expect(quoteValue("St. Mary's Hub")).toBe(`"St. Mary's Hub"`);
  });

  it('every value reads back as typed, through the grammar', () => {
    const texts = [
      'plain',
      'two words',
      'a,b',
      'trailing,',
      ':colon:inside',
      '"quoted" whole',
      'say "hi" now',
      "it's 'x', or y",
      '“curly” quotes',
      '‘single curly’ ones',
      'ends with "',
      "ends with '",
      '  padded  ',
      'tab\there',
    ];
    for (const text of texts) {
      const command = parsed(words('subscribe', { pipelines: 'transco', text }));
      expect(command, text).toMatchObject({ notices: { text } });
    }
    const location = `Hub "A", Zone 'B'`;
    const oac = parsed(words('oac', { pipeline: 'tgp', location, below: '100,000' }));
    expect(oac).toMatchObject({ capacity: { locations: [location], oac_below: 100_000 } });
  });

  it('a value with both quotes before a space cannot be said, and is refused', () => {
    expect(quoteValue(`a" b' c`)).toBeUndefined();
    const data = commandData('subscribe', { pipelines: 'transco', text: `a" b' c` });
    const made = commandWords({ name: data.name, options: data.options as CommandOption[] });
    expect(made).toMatchObject({ reply: { private: true } });
  });

  it('an unknown option is still written, for the grammar to answer', () => {
    const text = words('subscribe', { pipelines: 'transco', tpye: 'constraint' });
    expect(text).toBe('subscribe pipelines:transco tpye:constraint');
    const result = parseChatCommand(text, VOCABULARY);
    expect(result.ok).toBe(false);
  });

  it('another command than /pipewatch is refused in one line', () => {
    const made = commandWords({ name: 'other', options: [] });
    expect(made).toMatchObject({
      reply: { text: 'pipewatch answers /pipewatch only, not /other.' },
    });
  });
});
