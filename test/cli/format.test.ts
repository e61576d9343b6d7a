/** The output helpers: a table or a JSON array printed as it arrives reads as one printed whole. */
import { describe, expect, it } from 'vitest';
import { StreamedJsonArray, StreamedTable, table, toJson } from '../../src/cli/format.js';

const HEADER = ['id', 'pipeline', 'subject'];
const ROWS = [
  ['7', 'transco', 'Capacity Constraint'],
  ['12', 'texas-eastern', 'OFO'],
];

function printed(write: (print: (line: string) => void) => void): string {
  const lines: string[] = [];
  write((line) => lines.push(line));
  return lines.join('\n');
}

describe('StreamedTable', () => {
  it('printed in one go is the table', () => {
    const text = printed((print) => {
      const t = new StreamedTable(print, HEADER, ['right']);
      t.add(ROWS);
      t.end();
    });
    expect(text).toBe(table(HEADER, ROWS, ['right']));
  });

  it('prints the header alone when no row comes', () => {
    const text = printed((print) => new StreamedTable(print, HEADER).end());
    expect(text).toBe(table(HEADER, []));
  });

  it('keeps the first rows as they were printed and widens a column for later ones', () => {
    const text = printed((print) => {
      const t = new StreamedTable(print, HEADER);
      t.add([ROWS[0]!]);
      t.add([ROWS[1]!]);
    });
    expect(text.split('\n')).toEqual([
      'id  pipeline  subject',
      '--  --------  -------------------',
      '7   transco   Capacity Constraint',
      '12  texas-eastern  OFO',
    ]);
  });
});

describe('StreamedJsonArray', () => {
  it.each([[[]], [[{ a: 1 }]], [[{ a: 1, b: ['x', '\u202e'] }, 2, 'three', null]]])(
    'prints what toJson prints for %j',
    (items: unknown[]) => {
      const text = printed((print) => {
        const a = new StreamedJsonArray(print);
        for (const item of items) a.add(item);
        a.end();
      });
      expect(text).toBe(toJson(items));
    },
  );
});
