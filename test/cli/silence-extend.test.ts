/**
 * `pipewatch silence extend ID` on a real database: `--for` counts from the silence's
 * start, as amtool's `silence update --duration` does, `--end` names the end; a silence
 * ended, lifted or endless is refused, and so is an end that would already be past.
 */
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/store/index.js';
import { InstantClock } from '../support/clock.js';
import { cli } from './run-cli.js';
import {
  dataDirWith,
  FILE_RULES,
  readStore,
  rulesDir,
  SUBSCRIPTIONS,
} from './subscription-fixture.js';

const NOW = new Date('2026-11-25T12:00:00Z');
const at = (d: Date | string = NOW) => ({ clock: new InstantClock(new Date(d)) });

function setup(): { dir: string; env: Record<string, string> } {
  const dir = dataDirWith({
    pipelines: ['transco', 'texas-eastern', 'tennessee'],
    subscriptions: SUBSCRIPTIONS,
  });
  return { dir, env: { PIPEWATCH_DATA_DIR: dir, PIPEWATCH_RULES_DIR: rulesDir(FILE_RULES) } };
}

const ends = (dir: string) => readStore(dir, (s) => s.silences.list().map((x) => x.ends_at));

describe('pipewatch silence extend', () => {
  it('gives a silence in force a new end, --for from its start, or --end', async () => {
    const { dir, env } = setup();
    await cli(['silence', 'add', 'pipeline=transco', '--for', '1h'], env, at());
    const run = await cli(
      ['silence', 'extend', '1', '--for', '3h'],
      env,
      at('2026-11-25T12:50:00Z'),
    );
    expect(run).toEqual({
      code: 0,
      stdout:
        'silence 1: pipeline=transco from 2026-11-25T12:00:00Z until 2026-11-25T15:00:00Z (3h in all; was until 2026-11-25T13:00:00Z)\n',
      stderr: '',
    });
    expect(ends(dir)).toEqual(['2026-11-25T15:00:00Z']);
    const end = await cli(
      ['silence', 'extend', '1', '--end', '2026-11-25T10:30-06:00'],
      env,
      at('2026-11-25T14:00:00Z'),
    );
    expect(end.stdout).toMatch(
      /until 2026-11-25T16:30:00Z \(4h30m in all; was until 2026-11-25T15:00:00Z\)/,
    );
    expect(ends(dir)).toEqual(['2026-11-25T16:30:00Z']);
  });

  it('moves the end of a pending one, counted from its start', async () => {
    const { dir, env } = setup();
    await cli(
      ['silence', 'add', 'pipeline=transco', '--start', '2026-12-01T15:00Z', '--for', '1h'],
      env,
      at(),
    );
    expect((await cli(['silence', 'extend', '1', '--for', '6h'], env, at())).code).toBe(0);
    expect(ends(dir)).toEqual(['2026-12-01T21:00:00Z']);
  });

  const refusals: Array<[string, string[], string, number, string?]> = [
    [
      'an unknown id',
      ['9', '--for', '2h'],
      "pipewatch: no silence 9 (see 'pipewatch silence list --all')",
      1,
    ],
    [
      'an ended silence',
      ['1', '--for', '4h'],
      'pipewatch: silence 1 already ended at 2026-11-25T13:00:00Z; add a new one',
      1,
      '2026-11-25T13:00:00Z',
    ],
    [
      'an end that would be past, --for counting from the start',
      ['1', '--for', '30m'],
      "pipewatch: silence 1 would end at 2026-11-25T12:30:00Z, before now (it started at 2026-11-25T12:00:00Z; --for counts from its start); to end it now, 'pipewatch silence expire 1'",
      2,
    ],
    [
      'neither --for nor --end',
      ['1'],
      'pipewatch: silence extend needs --for DURATION (from its start) or --end INSTANT',
      2,
    ],
    ['more than 90 days from its start', ['1', '--for', '91d'], 'error: option', 2],
  ];
  for (const [what, args, line, code, when] of refusals) {
    it(`refuses ${what}, changing nothing`, async () => {
      const { dir, env } = setup();
      await cli(['silence', 'add', 'pipeline=transco', '--for', '1h'], env, at());
      const run = await cli(
        ['silence', 'extend', ...args],
        env,
        at(when ?? '2026-11-25T12:45:00Z'),
      );
      expect(run).toEqual({ code, stdout: '', stderr: expect.stringContaining(line) });
      expect(ends(dir)).toEqual(['2026-11-25T13:00:00Z']);
    });
  }

  it('refuses a lifted silence, and one that lasts until lifted', async () => {
    const { dir, env } = setup();
    await cli(['silence', 'add', 'pipeline=transco', '--for', '1h'], env, at());
    await cli(['silence', 'expire', '1'], env, at('2026-11-25T12:10:00Z'));
    const lifted = await cli(
      ['silence', 'extend', '1', '--for', '2h'],
      env,
      at('2026-11-25T12:20:00Z'),
    );
    expect(lifted.code).toBe(1);
    expect(lifted.stderr).toMatch(
      /^pipewatch: silence 1 was lifted by .* at 2026-11-25T12:10:00Z; add a new one\n$/,
    );
    const store = Store.open(dir);
    store.silences.add({
      matchers: [{ key: 'target', op: '=', value: 'email:ops@example.com' }],
      starts_at: '2026-11-25T12:00:00Z',
      ends_at: null,
      created_by: 'unsubscribe link',
      comment: null,
      created_at: '2026-11-25T12:00:00Z',
    });
    store.close();
    const endless = await cli(['silence', 'extend', '2', '--for', '2h'], env, at());
    expect(endless).toEqual({
      code: 1,
      stdout: '',
      stderr: 'pipewatch: silence 2 has no end to move: it lasts until lifted\n',
    });
  });
});
