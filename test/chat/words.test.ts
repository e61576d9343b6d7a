import { describe, expect, it } from 'vitest';
import { splitWords, suggester } from '../../src/chat/words.js';
import { suggest } from '../../src/lib/suggest.js';

/** Each word as `key`, its items' texts and their columns. */
function read(text: string) {
  const { words, problems } = splitWords(text);
  expect(problems).toEqual([]);
  return words.map((w) => [w.key ?? null, w.items.map((i) => `${i.text}@${i.column}`)]);
}

describe('splitWords', () => {
  it.each<[string, string, Array<[string | null, string[]]>]>([
    [
      'spaces of any kind',
      'a\u00a0 b\tc',
      [
        [null, ['a@1']],
        [null, ['b@4']],
        [null, ['c@6']],
      ],
    ],
    [
      'commas',
      'a,b, c',
      [
        [null, ['a@1', 'b@3']],
        [null, ['c@6']],
      ],
    ],
    ['an empty item between commas is dropped', 'a,,b,', [[null, ['a@1', 'b@4']]]],
    ['a key and its list', 'Type:x,y', [['type', ['x@6', 'y@8']]]],
    ['a quoted value keeps spaces and commas', 'text:"a b, c"', [['text', ['a b, c@6']]]],
    ['curly double quotes', 'x:“a b”', [['x', ['a b@3']]]],
    ['curly single quotes around an apostrophe', '‘St. Mary’s’', [[null, ['St. Mary’s@1']]]],
    ['a quote inside a word is a letter', "o'brien", [[null, ["o'brien@1"]]]],
    ['quoted items of a list', 'type:"a b","c"', [['type', ['a b@6', 'c@12']]]],
    ['a colon in quotes makes no key', '"a:b"', [[null, ['a:b@1']]]],
    ['a key starts with a letter', '12:30', [[null, ['12:30@1']]]],
    [
      'columns are characters',
      '🔥 x',
      [
        [null, ['🔥@1']],
        [null, ['x@3']],
      ],
    ],
  ])('%s', (_, text, expected) => expect(read(text)).toEqual(expected));

  it('says a list goes on in the next word when a comma ends it', () => {
    const { words } = splitWords('type:a, b');
    expect(words.map((w) => w.continues)).toEqual([true, false]);
  });

  it('keeps the whole value of a key, commas and all, beside its items', () => {
    const [w] = splitWords('below:100,000').words;
    expect(w?.value).toMatchObject({ text: '100,000', column: 7 });
  });

  it('a quote never closed is one problem, at the quote', () => {
    expect(splitWords('subscribe text:‘force majeure').problems).toEqual([
      {
        message: `the quote ‘ is never closed: end the value with '`,
        word: '‘force majeure',
        column: 16,
      },
    ]);
  });
});

describe('suggester', () => {
  it('finds what suggest finds, looking only at candidates of a length within reach', () => {
    const candidates = ['transco', 'texas-eastern', 'tgp', 'Capacity Constraint', 'type', 'on'];
    for (const word of [
      'trnsco',
      'texas_eastrn',
      'tgpp',
      'capacity-constrant',
      'typ',
      'o',
      'zzz',
      '',
    ]) {
      expect(suggester(candidates)(word), word).toBe(suggest(word, candidates));
    }
  });
});
