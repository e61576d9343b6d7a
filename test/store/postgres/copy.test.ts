/**
 * A SQLite store copied into PostgreSQL: a store filled as pipewatch fills it (a run
 * against the simulator, then people's subscriptions, a silence, an acknowledgement, an
 * escalation) arrives row for row in an empty database; a database in use is refused
 * and left as it was; ids go on past the highest the source gave.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { PoolClient } from 'pg';
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

  it("refuses another application's database, and creates nothing in it", async () => {
    const db = source();
    const pool = await connectPostgres(pg.url);
    try {
      await pool.query('CREATE TABLE invoices (id int); CREATE TABLE customers (id int)');
      await expect(copyToPostgres(db, pool, 'the test database')).rejects.toThrow(
        /^the PostgreSQL database the test database holds tables pipewatch did not make \(customers, invoices\): pipewatch copies into an empty database only; give it a new one$/,
      );
      const { rows } = await pool.query(
        'SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1',
      );
      expect(rows.map((r) => r.tablename)).toEqual(['customers', 'invoices']);
    } finally {
      db.close();
      await pool.end();
    }
  });

  it('reads the source as of one moment: a write during the copy is wholly left out', async () => {
    // A source of its own, as the shared one is for the other tests.
    const dir = mkdtempSync(join(tmpdir(), 'pipewatch-copy-snapshot-'));
    const shared = source();
    await shared.backup(join(dir, 'pipewatch.db'));
    shared.close();
    const db = new Database(join(dir, 'pipewatch.db'), { readonly: true });
    const before = db.prepare('SELECT count(*) AS n FROM subscriptions').get() as { n: number };
    const pool = await connectPostgres(pg.url);
    // Once the first row goes in, a command on the host adds a subscription to the file.
    let added = false;
    const connect = pool.connect.bind(pool) as () => Promise<PoolClient>;
    (pool as { connect: () => Promise<PoolClient> }).connect = async () => {
      const client = await connect();
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      (client as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args) => {
        if (!added && typeof args[0] === 'string' && args[0].startsWith('INSERT INTO')) {
          added = true;
          const host = Store.open(dir);
          try {
            host.subscriptions.add({
              rule: { notices: {}, notify: [{ console: true }] },
              target: 'console',
              source: 'cli',
              channel: null,
              created_by: 'ops',
              created_at: NOW,
              notice_id: null,
              workspace: null,
            });
          } finally {
            host.close();
          }
        }
        return query(...args);
      };
      return client;
    };
    try {
      const counts = await copyToPostgres(db, pool, 'the test database');
      expect(added).toBe(true);
      expect(counts.subscriptions).toBe(before.n);
      const after = db.prepare('SELECT count(*) AS n FROM subscriptions').get() as { n: number };
      expect(after.n).toBe(before.n + 1);
    } finally {
      db.close();
      await pool.end();
    }
  });
});
