/**
 * The PostgreSQL migrations: replicas starting at once on a new database apply the schema
 * once and all start; a schema newer than this pipewatch is refused; a migration that
 * fails leaves the database as it was; a database part way up is brought the rest.
 */
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { DatabaseError } from '../../../src/store/database.js';
import { connectPostgres } from '../../../src/store/postgres/connect.js';
import { migratePostgres, postgresSchemaVersion } from '../../../src/store/postgres/migrate.js';
import { POSTGRES_MIGRATIONS } from '../../../src/store/postgres/migrations.js';
import { usePostgresDatabase } from '../../support/postgres.js';

const LATEST = POSTGRES_MIGRATIONS.at(-1)!.version;

describe('PostgreSQL migrations', () => {
  const db = usePostgresDatabase({ each: true });
  const pools: pg.Pool[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.end()));
  });
  const open = async (): Promise<pg.Pool> => {
    const pool = await connectPostgres(db.url);
    pools.push(pool);
    return pool;
  };
  const recorded = async (pool: pg.Pool) =>
    (await pool.query('SELECT version FROM schema_migrations ORDER BY version')).rows.map(
      (r) => r.version,
    );

  it('are applied once when three replicas start at once, and all three start', async () => {
    const replicas = await Promise.all([open(), open(), open()]);
    const outcomes = await Promise.all(replicas.map((pool) => migratePostgres(pool, 'test')));
    const all = POSTGRES_MIGRATIONS.map((m) => m.version);
    expect(outcomes.map((o) => o.applied).sort((a, b) => b.length - a.length)).toEqual([
      all,
      [],
      [],
    ]);
    for (const outcome of outcomes) expect(outcome.to).toBe(LATEST);
    expect(await recorded(replicas[0]!)).toEqual(all);
  });

  it('read schema version 0 on a database never migrated, creating nothing', async () => {
    const pool = await open();
    expect(await postgresSchemaVersion(pool)).toBe(0);
    const { rows } = await pool.query(
      "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'",
    );
    expect(rows[0].n).toBe(0);
  });

  it('do nothing on a database already up to date', async () => {
    const pool = await open();
    await migratePostgres(pool, 'test');
    expect(await migratePostgres(pool, 'test')).toEqual({ from: LATEST, to: LATEST, applied: [] });
  });

  it('bring a database part way up the rest of the way', async () => {
    const pool = await open();
    const first = await migratePostgres(pool, 'test', POSTGRES_MIGRATIONS.slice(0, 1));
    expect(first).toEqual({ from: 0, to: 1, applied: [1] });
    const rest = await migratePostgres(pool, 'test');
    expect(rest.from).toBe(1);
    expect(rest.applied).toEqual(POSTGRES_MIGRATIONS.slice(1).map((m) => m.version));
  });

  it('refuse a database whose schema is newer than this pipewatch knows, changing nothing', async () => {
    const pool = await open();
    await migratePostgres(pool, 'test');
    await pool.query(
      "INSERT INTO schema_migrations (version, name) VALUES ($1, 'from the future')",
      [LATEST + 1],
    );
    const error = await migratePostgres(pool, 'postgres://pipewatch:[redacted]@db…').catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DatabaseError);
    expect((error as DatabaseError).code).toBe('DATABASE');
    expect((error as DatabaseError).message).toBe(
      `the PostgreSQL database postgres://pipewatch:[redacted]@db… has schema version ${LATEST + 1}, newer than this pipewatch understands (${LATEST}); upgrade pipewatch (every replica that uses it) or use another database`,
    );
    expect(await postgresSchemaVersion(pool)).toBe(LATEST + 1);
  });

  it('leave the database as it was when one of them fails', async () => {
    const pool = await open();
    await migratePostgres(pool, 'test', POSTGRES_MIGRATIONS.slice(0, 1));
    const broken = [
      ...POSTGRES_MIGRATIONS,
      {
        version: LATEST + 1,
        name: 'a broken one',
        sqlite: 0,
        sql: 'CREATE TABLE half_done (x int); SELECT no_such_function()',
      },
    ];
    await expect(migratePostgres(pool, 'test', broken)).rejects.toThrow(
      new RegExp(
        `could not be migrated to version ${LATEST + 1} \\(a broken one\\), and is left as it was: function no_such_function\\(\\) does not exist`,
      ),
    );
    expect(await postgresSchemaVersion(pool)).toBe(1);
    const { rows } = await pool.query(
      "SELECT to_regclass('half_done') AS half, to_regclass('leader_lease') AS lease",
    );
    expect(rows[0]).toEqual({ half: null, lease: null });
  });
});
