import { describe, expect, it } from 'vitest';
import {
  type ChatProblem,
  type ChatVocabulary,
  COMMAND_MAX_LENGTH,
  parseChatCommand,
} from '../../src/chat/grammar.js';

const KNOWN: ChatVocabulary = {
  pipelines: ['transco', 'texas-eastern', 'tgp'],
  types: ['Capacity Constraint', 'Force Majeure', 'Maintenance'],
  categories: ['Critical', 'Non-Critical'],
  statuses: ['Posted', 'Updated'],
};
const UNKNOWN: ChatVocabulary = { pipelines: [], types: [], categories: [], statuses: [] };

const WHY = 'patterns run in linear time, which rules out look-around and back-references';
const NUMBER = 'is not a number; write 100000 or 100,000 (Dth), or 10% (of OPC)';
const ID = 'ids are numbers such as 12 or #12, as list shows them';

function problems(text: string, vocabulary = KNOWN): ChatProblem[] {
  const parsed = parseChatCommand(text, vocabulary);
  if (parsed.ok) throw new Error(`accepted: ${JSON.stringify(parsed.command)}`);
  return parsed.problems;
}

/** `[message, word, column, suggestion?]`: a problem as the table writes it. */
type Row = [string, string, number, string?];
const asProblem = ([message, word, column, suggestion]: Row): ChatProblem => ({
  message,
  word,
  column,
  ...(suggestion === undefined ? {} : { suggestion }),
});

describe('every wrong word gets a problem at its column, with the word meant when one is close', () => {
  it.each<[string, string, Row[], ChatVocabulary?]>([
    [
      'an unknown verb',
      'subscirbe transco',
      [["unknown command 'subscirbe' — did you mean 'subscribe'?", 'subscirbe', 1, 'subscribe']],
    ],
    [
      'an unknown verb nothing is close to',
      'frobnicate',
      [
        [
          "unknown command 'frobnicate'; commands are subscribe, remind, oac, list, unsubscribe, mute, unmute, help",
          'frobnicate',
          1,
        ],
      ],
    ],
    [
      'an unknown key',
      'subscribe transco typ:constraint',
      [['unknown option typ: — did you mean type:?', 'typ:constraint', 19, 'type']],
    ],
    [
      'an unknown key written with a space before its value, which is no pipeline',
      'subscribe transco typ: constraint',
      [['unknown option typ: — did you mean type:?', 'typ:', 19, 'type']],
    ],
    [
      "another command's key",
      'subscribe transco below:10',
      [
        [
          'subscribe takes no below:; its options are type: category: status: text: on: escalate: to:',
          'below:10',
          19,
        ],
      ],
    ],
    ['a key on a command that takes none', 'list type:x', [['list takes no type:', 'type:x', 6]]],
    [
      'an unknown pipeline',
      'subscribe trnsco,tgp',
      [["unknown pipeline 'trnsco' — did you mean 'transco'?", 'trnsco', 11, 'transco']],
    ],
    [
      'an unknown pipeline nothing is close to',
      'remind transco zzz',
      [["unknown pipeline 'zzz'", 'zzz', 16]],
    ],
    [
      'an unknown type, category and status',
      'subscribe tgp type:constrant category:critcal status:postd',
      [
        [
          "unknown notice type 'constrant' — did you mean 'constraint'?",
          'constrant',
          20,
          'constraint',
        ],
        ["unknown category 'critcal' — did you mean 'Critical'?", 'critcal', 39, 'Critical'],
        ["unknown status 'postd' — did you mean 'Posted'?", 'postd', 54, 'Posted'],
      ],
    ],
    [
      'a pattern with look-ahead, which RE2 refuses',
      'subscribe transco text:"force(?= majeure)"',
      [[`text: look-ahead (?=…) is not supported: ${WHY}`, 'text:"force(?= majeure)"', 19]],
    ],
    [
      'a pattern with look-behind',
      'subscribe transco text:(?<!no)OFO',
      [
        [
          `text: negative look-behind (?<!…) is not supported: ${WHY}; leave notices out with not: text:`,
          'text:(?<!no)OFO',
          19,
        ],
      ],
    ],
    [
      'a pattern that is no regular expression',
      'subscribe transco text:"(unclosed"',
      [
        [
          'text: not a valid regular expression: missing closing ): (unclosed',
          'text:"(unclosed"',
          19,
        ],
      ],
    ],
    [
      'an empty pattern',
      'subscribe transco text:""',
      [['text: must not be empty; leave it out to match all', 'text:""', 19]],
    ],
    [
      'a pipeline that is no slug, when the store knows others: one problem for the word',
      'subscribe Trans_co',
      [["unknown pipeline 'Trans_co' — did you mean 'transco'?", 'Trans_co', 11, 'transco']],
    ],
    [
      'a pipeline that is no slug, when the store knows none',
      'subscribe Trans_co',
      [["pipeline 'Trans_co': must be a pipeline slug such as 'texas-eastern'", 'Trans_co', 11]],
      UNKNOWN,
    ],
    [
      'a mute of a pipeline that is no slug, when the store knows none',
      'mute Trans_co for 1h',
      [["'Trans_co' is not a pipeline slug such as 'texas-eastern'", 'Trans_co', 6]],
      UNKNOWN,
    ],
    [
      'a bad duration before a deadline',
      'remind transco before:24h,2x',
      [
        [
          "before: '2x' is not a duration (a number and a unit: s, m, h or d, such as 24h)",
          '2x',
          27,
        ],
      ],
    ],
    [
      'an unknown deadline field',
      'remind transco field:respons_at',
      [
        [
          "field: 'respons_at' is not one of response_at, effective_at, end_at — did you mean 'response_at'?",
          'respons_at',
          22,
          'response_at',
        ],
      ],
    ],
    [
      'a bad duration of a mute',
      'mute for 4x',
      [["for: '4x' is not a duration, such as 30m, 4h or 2d", '4x', 10]],
    ],
    [
      'a mute too short',
      'mute for 30s',
      [['for: a mute lasts from 1m to 30d, not 30s', '30s', 10]],
    ],
    [
      'a mute too long',
      'mute tgp for 31d',
      [['for: a mute lasts from 1m to 30d, not 31d', '31d', 14]],
    ],
    [
      'a duration without for',
      'mute transco 4h',
      [['write for before the duration: mute … for 4h', '4h', 14, 'for 4h']],
    ],
    ['a bad number', 'oac transco X below:lots', [[`below: 'lots' ${NUMBER}`, 'lots', 21]]],
    [
      'thousands not in groups of three',
      'oac transco X below:100,00',
      [[`below: '100,00' ${NUMBER}`, '100,00', 21]],
    ],
    [
      'below:-5: the schema says',
      'oac transco X below:-5',
      [['below: must be at least 0', 'below:-5', 15]],
    ],
    [
      'a percentage over 100',
      'oac transco X below:150%',
      [['below: must be at most 100', 'below:150%', 15]],
    ],
    [
      'clear not above below: the schema says, at clear:',
      'oac transco "Station 85" below:100,000 clear:90,000',
      [['clear: must be above the threshold (100000)', 'clear:90,000', 40]],
    ],
    [
      'clear in another unit than below',
      'oac transco X below:10% clear:15',
      [['clear: must be in the unit of below: (%), such as clear:15%', 'clear:15', 25]],
    ],
    [
      'an unknown cycle',
      'oac transco X below:10 cycles:timely,tmely',
      [
        [
          "cycles: 'tmely' is not one of latest, timely, evening, id1, id2, id3 — did you mean 'timely'?",
          'tmely',
          38,
          'timely',
        ],
      ],
    ],
    [
      'an unknown on',
      'subscribe transco on:neww',
      [["on: 'neww' is not one of new, updated — did you mean 'new'?", 'neww', 22, 'new']],
    ],
    [
      'no pipelines',
      'subscribe type:maintenance',
      [['subscribe needs pipelines: slugs such as transco, or all', '', 28]],
    ],
    [
      'all beside slugs',
      'subscribe transco all',
      [["'all' means every pipeline: give either all or pipeline slugs", 'all', 19]],
    ],
    [
      'no location and no threshold',
      'oac transco',
      [
        ['oac needs a location: oac transco "Station 85" below:10%', '', 13],
        ['oac needs below:N, in Dth (below:100,000) or in % of OPC (below:10%)', '', 13],
      ],
    ],
    [
      'a location by name but no pipeline',
      'oac location:"Station 85" below:10%',
      [['oac needs a pipeline: oac transco "Station 85" below:10%', '', 37]],
    ],
    [
      'a location name with spaces, unquoted',
      'oac transco Station 85 below:10',
      [
        [
          `unexpected word '85'; a location name with spaces goes in quotes: "Station 85"`,
          '85',
          21,
        ],
      ],
    ],
    [
      'two pipelines for one location',
      'oac transco,tgp X below:10',
      [['oac takes one pipeline: a location belongs to one', 'transco,tgp', 5]],
    ],
    [
      'a key without a value',
      'subscribe transco status:',
      [['status: needs a value after the colon', 'status:', 19]],
    ],
    ['for without a duration', 'mute transco for', [['for needs a value: for 4h', 'for', 14]]],
    [
      'no duration at all',
      'mute transco',
      [['mute needs for DURATION or until TIME: mute transco for 4h, or mute for 1h', '', 14]],
    ],
    [
      'a repeated option',
      'subscribe transco type:a status:x type:b',
      [
        [
          'type: is given twice; give it once, with its values separated by commas: type:a,b',
          'type:b',
          35,
        ],
      ],
      UNKNOWN,
    ],
    [
      'a repeated option, under its other spelling',
      'oac tgp X below:5 below:6',
      [['below: is given twice; give it once', 'below:6', 19]],
    ],
    ['an extra word', 'list all', [["unexpected word 'all'", 'all', 6]]],
    ['an extra id', 'unsubscribe 12 13', [["unexpected word '13'", '13', 16]]],
    [
      'an id that is not a number',
      'unsubscribe twelve',
      [[`'twelve' is not an id: ${ID}`, 'twelve', 13]],
    ],
    ['an id of 0', 'unmute #0', [[`'#0' is not an id: ${ID}`, '#0', 8]]],
    [
      'no id',
      'unsubscribe',
      [['unsubscribe needs an id, as list shows them (12 or #12), or all', '', 13]],
    ],
    [
      'help on an unknown command',
      'help unmte',
      [["unknown command 'unmte' — did you mean 'unmute'?", 'unmte', 6, 'unmute']],
    ],
    [
      'a quote never closed',
      'oac transco “Station 85 below:10',
      [['the quote “ is never closed: end the value with "', '“Station 85 below:10', 13]],
    ],
    [
      'columns count characters, not UTF-16 units',
      'oac transco "🔥 85" below:x',
      [[`below: 'x' ${NUMBER}`, 'x', 26]],
    ],
  ])('%s: %s', (_, text, rows, vocabulary) => {
    const found = problems(text, vocabulary);
    expect(found).toEqual(rows.map(asProblem));
    for (const p of found) {
      const at = Array.from(text)
        .slice(p.column - 1)
        .join('');
      expect(p.word === '' ? at : at.startsWith(p.word) && p.word).toBe(p.word);
    }
  });

  it('reports every wrong word of a command at once, in column order', () => {
    expect(problems('subscribe trnsco typ:x on:neww').map((p) => [p.column, p.suggestion])).toEqual(
      [
        [11, 'transco'],
        [18, 'type'],
        [27, 'new'],
      ],
    );
  });

  it('says which command a problem is in, for its usage', () => {
    expect(parseChatCommand('mute for 4x', KNOWN)).toMatchObject({ ok: false, verb: 'mute' });
    expect(parseChatCommand('mte for 4h', KNOWN)).not.toHaveProperty('verb');
  });
});

describe('patterns and commands too long', () => {
  it('a pattern over 1,000 characters: the schema says so, at text:', () => {
    const text = `subscribe transco text:${'a'.repeat(1_500)}`;
    expect(problems(text)).toEqual([
      {
        message: 'text: is 1500 characters long; a pattern may have at most 1000',
        word: `text:${'a'.repeat(1_500)}`,
        column: 19,
      },
    ]);
  });

  it('a 10,000-character pattern: one problem, nothing read', () => {
    const text = `subscribe trnsco typ:x text:"${'(a+)+'.repeat(2_000)}"`;
    expect(problems(text)).toEqual([
      { message: 'the command is 10,030 characters long; at most 2,000', word: '', column: 1 },
    ]);
  });

  it('a command of exactly the limit is read', () => {
    const text = `subscribe transco text:${'a'.repeat(COMMAND_MAX_LENGTH - 23)}`;
    expect(text.length).toBe(COMMAND_MAX_LENGTH);
    expect(problems(text)[0]?.message).toMatch(/^text: is 1977 characters long/);
  });
});

describe('a command full of unknown names', () => {
  it('gets a problem for each, and a "did you mean" for the first twenty', () => {
    const found = problems(`subscribe ${Array.from({ length: 25 }, () => 'trnsco').join(' ')}`);
    expect(found).toHaveLength(25);
    expect(found.filter((p) => p.suggestion === 'transco')).toHaveLength(20);
    expect(found.at(-1)).toEqual({
      message: "unknown pipeline 'trnsco'",
      word: 'trnsco',
      column: 179,
    });
  });
});
