/**
 * The PostgreSQL harness itself: the run's server answers, and two users of
 * `usePostgresDatabase` (two files running side by side) each have a database of their
 * own, which the other never sees, dropped after them.
 */
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { usePostgresDatabase } from './postgres.js';

async function tablesOf(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
    );
    return rows.map((r) => r.table_name);
  } finally {
    await client.end();
  }
}

async function databaseExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: inject('postgresUrl') });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return rows.length > 0;
  } finally {
    await client.end();
  }
}

const nameOf = (url: string): string => new URL(url).pathname.slice(1);

describe('the PostgreSQL server of the test run', () => {
  const first = usePostgresDatabase();
  const second = usePostgresDatabase();

  it('runs queries', async () => {
    const { rows } = await first
      .pool()
      .query<{ n: number; v: string }>(
        "SELECT 1 + 1 AS n, current_setting('server_version_num') AS v",
      );
    expect(rows[0]?.n).toBe(2);
    expect(Number(rows[0]?.v)).toBeGreaterThanOrEqual(140000);
  });

  it('gives each user an empty database that the other does not see', async () => {
    expect(nameOf(first.url)).not.toBe(nameOf(second.url));
    expect(await tablesOf(first.url)).toEqual([]);
    expect(await tablesOf(second.url)).toEqual([]);
    await first.pool().query('CREATE TABLE only_in_first (x int)');
    await second.pool().query('CREATE TABLE only_in_second (x int)');
    expect(await tablesOf(first.url)).toEqual(['only_in_first']);
    expect(await tablesOf(second.url)).toEqual(['only_in_second']);
  });
});

describe('a database made for each test', () => {
  const each = usePostgresDatabase({ each: true });
  const seen: string[] = [];

  it('is new for the first test', async () => {
    seen.push(nameOf(each.url));
    await each.pool().query('CREATE TABLE left_behind (x int)');
    const another = await each.another();
    seen.push(nameOf(another));
  });

  it('is new again for the next, the last ones dropped', async () => {
    expect(seen).toHaveLength(2);
    expect(seen).not.toContain(nameOf(each.url));
    expect(await tablesOf(each.url)).toEqual([]);
    for (const name of seen) expect(await databaseExists(name)).toBe(false);
  });
});
