/**
 * What people type cannot print rows of its own. A pattern of three lines
 * (`text:"a\rb\nc"`, valid: it matches across line breaks) and a silence comment with line
 * breaks of every kind, stored as chat and the command line store them, are shown each on
 * its one row, its line breaks as `\r`, `\n`, `\u2028`: in `subs list`, `subs add`,
 * `subs rm`, `silence list`, and in the list chat replies with. A table is one line a
 * row whatever its cells hold, printed whole or as its rows arrive.
 */
import { describe, expect, it } from 'vitest';
import { StreamedTable, table } from '../../src/cli/format.js';
import { startChatCore } from '../support/chat-core.js';
import { InstantClock } from '../support/clock.js';
import { cli } from './run-cli.js';
import { dataDirWith, rulesDir } from './subscription-fixture.js';

const at = { clock: new InstantClock(new Date('2026-11-25T12:00:00Z')) };
const PATTERN = 'a\rb\nc';
const SHOWN = 'text /a\\rb\\nc/';
const COMMENT = 'first\nsecond\r\nthird\u2028fourth\tfifth';

function envFor(dir: string): Record<string, string> {
  return { PIPEWATCH_DATA_DIR: dir, PIPEWATCH_RULES_DIR: rulesDir('rules: []\n') };
}

/** Lines of `stdout`, the last newline dropped. */
const linesOf = (stdout: string) => stdout.replace(/\n$/, '').split('\n');

describe('a pattern with line breaks', () => {
  it('is shown on one row by subs add, subs list and subs rm', async () => {
    const env = envFor(dataDirWith({ pipelines: ['transco'] }));
    const made = await cli(
      ['subs', 'add', 'slack:#gas', 'subscribe', 'transco', `text:"${PATTERN}"`],
      env,
      at,
    );
    expect(made.code, made.stderr).toBe(0);
    expect(linesOf(made.stdout)).toEqual([`sub-1: transco; ${SHOWN} → slack:#gas`]);
    const list = await cli(['subs', 'list'], env, at);
    expect(list.code, list.stderr).toBe(0);
    const rows = linesOf(list.stdout);
    expect(rows).toHaveLength(3);
    expect(rows[2]).toMatch(/^ 1 {2}notices {2}transco; text \/a\\rb\\nc\/ {2}slack:#gas {2}/);
    // The JSON keeps the pattern as it is.
    const json = JSON.parse((await cli(['subs', 'list', '--json'], env, at)).stdout);
    expect(json[0].rule.notices.text).toBe(PATTERN);
    const removed = await cli(['subs', 'rm', '1'], env, at);
    expect(linesOf(removed.stdout)).toEqual([
      expect.stringMatching(/^removed subscription 1: transco; text \/a\\rb\\nc\/ → slack:#gas/),
    ]);
  });

  it('is shown on one line in the list chat replies with', async () => {
    const chat = startChatCore();
    try {
      const caller = {
        platform: 'slack' as const,
        channel: 'C0GAS',
        user: 'U0ALICE',
        direct: false,
      };
      const made = await chat.core.command(caller, `subscribe transco text:"${PATTERN}"`);
      expect(made.reply.text).toContain(SHOWN);
      const { reply } = await chat.core.command(caller, 'list');
      const list = reply.sections?.find((s) => s.kind === 'list');
      const items = list?.kind === 'list' ? list.items.map((i) => i.text) : [];
      expect(items).toEqual([expect.stringContaining(`transco; ${SHOWN}`)]);
      expect(items[0]).not.toMatch(/[\r\n]/);
    } finally {
      chat.close();
    }
  });
});

describe('a silence comment with line breaks', () => {
  it('is shown on one row by silence list', async () => {
    const env = envFor(dataDirWith({ pipelines: ['transco'] }));
    const made = await cli(
      ['silence', 'add', 'pipeline=transco', '--for', '2h', '--comment', COMMENT],
      env,
      at,
    );
    expect(made.code, made.stderr).toBe(0);
    const list = await cli(['silence', 'list'], env, at);
    const rows = linesOf(list.stdout);
    expect(rows).toHaveLength(3);
    expect(rows[2]).toMatch(/ {2}first\\nsecond\\r\\nthird\\u2028fourth\\tfifth$/);
  });
});

describe('tables', () => {
  const header = ['id', 'comment'];
  const rows = [
    ['1', 'one\r\n2  forged   row'],
    ['2', 'x\u2029y'],
  ];

  it('print a row a line, whatever its cells hold, aligned on what is shown', async () => {
    expect(table(header, rows).split('\n')).toEqual([
      'id  comment',
      '--  ----------------------',
      '1   one\\r\\n2  forged   row',
      '2   x\\u2029y',
    ]);
  });

  it('print the same a row at a time', async () => {
    const lines: string[] = [];
    const t = new StreamedTable((line) => lines.push(line), header);
    t.add(rows);
    expect(lines.join('\n')).toBe(table(header, rows));
    expect(lines.filter((l) => /[\r\n\u2029]/.test(l))).toEqual([]);
  });
});
