/**
 * A SQLite store copied into PostgreSQL: a store filled as pipewatch fills it (a run
 * against the simulator, then people's subscriptions, a silence, an acknowledgement, an
 * escalation) arrives row for row in an empty database; a database in use is refused
 * and left as it was; ids go on past the highest the source gave.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../../src/simulator/index.js';
import { Store } from '../../../src/store/index.js';
import { connectPostgres } from '../../../src/store/postgres/connect.js';
import { copyToPostgres } from '../../../src/store/postgres/copy.js';
import { POSTGRES_ONLY_TABLES } from '../../../src/store/postgres/migrations.js';
import { cli } from '../../cli/run-cli.js';
import { startSimulatedApi } from '../../fakes/simulated-api.js';
import { usePostgresDatabase } from '../../support/postgres.js';

const RULES = `
rules:
  - name: transco-constraints
    notices:
      pipelines: [transco]
    notify:
      - console: true
`;
const NOW = '2026-11-20T15:30:00Z';

const pg = usePostgresDatabase({ each: true });
let sim: Simulator;
let dataDir: string;

beforeAll(async () => {
  let env: Record<string, string>;
  ({ sim, env, dataDir } = await startSimulatedApi({
    seed: 3,
    start: new Date('2026-11-20T15:00:00Z'),
    rules: RULES,
  }));
  const run = await cli(['run', '--once'], env);
  expect(run.code, run.stderr).toBe(0);
  const store = Store.open(dataDir);
  try {
    const rule = { notices: { pipelines: ['transco'] }, notify: [{ slack: 'C0GAS' }] };
    const row = {
      rule,
      target: 'slack:C0GAS',
      source: 'slack' as const,
      channel: 'slack:C0GAS',
      created_by: 'U0ALICE',
      created_at: NOW,
      notice_id: null,
      workspace: null,
    };
    store.subscriptions.add(row);
    const gone = store.subscriptions.add(row);
    store.subscriptions.remove(gone);
    store.acks.acknowledge('slack', 'C0GAS', '1732111200.000100', 'U0ALICE', NOW);
    const [noticeId] = store.notices.idsPostedSince('2000-01-01T00:00:00Z');
    store.escalations.plan('transco-constraints', noticeId!, NOW);
  } finally {
    store.close();
  }
});
afterAll(async () => {
  await sim.close();
});

const source = () => new Database(join(dataDir, 'pipewatch.db'), { readonly: true });

/** Every row of a table, as comparable text, in one order. */
function sqliteRows(db: Database.Database, table: string): string[] {
  return (db.prepare(`SELECT * FROM "${table}"`).all() as Record<string, unknown>[])
    .map(comparable)
    .sort();
}

function comparable(row: Record<string, unknown>): string {
  return JSON.stringify(
    Object.fromEntries(
      Object.entries(row)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('hex') : v]),
    ),
  );
}

describe('copyToPostgres', () => {
  it('copies every table row for row into an empty database', async () => {
    const db = source();
    const pool = await connectPostgres(pg.url);
    try {
      const counts = await copyToPostgres(db, pool, 'the test database');
      expect(counts.notices).toBeGreaterThan(10);
      expect(counts.subscriptions).toBe(1);
      expect(counts.acks).toBe(1);
      expect(counts.escalations).toBe(1);
      const tables = Object.keys(counts);
      expect(tables).not.toContain('sqlite_sequence');
      for (const t of POSTGRES_ONLY_TABLES) expect(tables).not.toContain(t);
      for (const table of tables) {
        const there = await pool.query(`SELECT * FROM "${table}"`);
        expect(there.rows.map(comparable).sort(), table).toEqual(sqliteRows(db, table));
      }
      // The next subscription's id comes after the removed one's, never the same.
      const next = await pool.query<{ id: number }>(
        "INSERT INTO subscriptions (rule_json, target, source, created_at) VALUES ('{}', 'console', 'cli', $1) RETURNING id",
        [NOW],
      );
      expect(next.rows[0]!.id).toBe(3);
    } finally {
      db.close();
      await pool.end();
    }
  });

  it('refuses a database in use, and leaves it as it was', async () => {
    const db = source();
    const pool = await connectPostgres(pg.url);
    try {
      await copyToPostgres(db, pool, 'the test database');
      await pool.query('DELETE FROM acks');
      await expect(copyToPostgres(db, pool, 'the test database')).rejects.toThrow(
        /^the PostgreSQL database the test database is not empty \(its \w+ table has rows\): pipewatch copies into an empty database only; give it a new one$/,
      );
      const acks = await pool.query('SELECT count(*)::int AS n FROM acks');
      expect(acks.rows[0].n).toBe(0);
    } finally {
      db.close();
      await pool.end();
    }
  });
});
