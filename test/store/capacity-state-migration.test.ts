/**
 * Migration 11 on a database written before it: the last cycle judged at each capacity
 * location, kept as `gas_day#order`, becomes the instant that cycle was posted, so the
 * engine goes on ignoring what is older and judges today's ID2 and ID3 after tomorrow's
 * timely cycle.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE, openDatabase } from '../../src/store/database.js';
import { Store } from '../../src/store/index.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { useTempDir } from '../support/temp-store.js';

const temp = useTempDir('pipewatch-migration-11-');

describe('migration 11: capacity state by posting time', () => {
  it('rewrites each last cycle as its posting instant, and leaves what it cannot read', () => {
    const db = openDatabase(join(temp.dir, DATABASE_FILE), MIGRATIONS.slice(0, 10));
    const insert = db.prepare(
      `INSERT INTO capacity_state (rule, pipeline_slug, location, state, since, last_cycle)
       VALUES ('oac', 'transco', ?, 'firing', '2026-11-20T15:00:00Z', ?)`,
    );
    insert.run('1000085', '2026-11-21#1'); // timely of 11-21: 5 p.m. CST on 11-20
    insert.run('1001234', '2026-11-20#5'); // ID3 of 11-20: 10 p.m. CST on 11-20
    insert.run('79999', '2027-03-14#4'); // ID2 on the spring-forward day: 5:30 p.m. CDT
    insert.run('33973', '2026-11-20#0'); // a cycle of another name: the gas day's start
    insert.run('x', 'not a key');
    db.close();

    const store = Store.open(temp.dir);
    const last = Object.fromEntries(
      (
        store.db.prepare('SELECT location, last_cycle FROM capacity_state').all() as Array<{
          location: string;
          last_cycle: string;
        }>
      ).map((r) => [r.location, r.last_cycle]),
    );
    expect(last).toEqual({
      '1000085': '2026-11-20T23:00:00Z',
      '1001234': '2026-11-21T04:00:00Z',
      '79999': '2027-03-14T22:30:00Z',
      '33973': '2026-11-20T15:00:00Z',
      x: 'not a key',
    });
    // The timely cycle of 11-21 now comes before the ID3 of 11-20, as they are posted.
    expect(last['1000085']! < last['1001234']!).toBe(true);
    store.close();
  });
});
