/**
 * `pipewatch store copy --to postgres://…` through the command line, against the test
 * PostgreSQL server: a SQLite store arrives in an empty database with a summary of what
 * was copied and what to do next; everything that stops it (a database in use, a bad
 * URL, no SQLite store, a server that does not answer, a daemon still on the file) is
 * one line, with the URL's password never shown, and leaves the target as it was.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/store/index.js';
import { holdRunLock } from '../../src/store/run-lock.js';
import { freePort } from '../support/free-port.js';
import { usePostgresDatabase } from '../support/postgres.js';
import { cli } from './run-cli.js';
import { dataDirWith, SUBSCRIPTIONS, withNotify } from './subscription-fixture.js';

const NOW = '2026-11-25T12:00:00Z';

const target = usePostgresDatabase({ each: true });

/** A data directory whose SQLite store holds pipelines, subscriptions and an ack. */
function sqliteStore(): string {
  const dir = dataDirWith({
    pipelines: ['transco', 'texas-eastern'],
    subscriptions: SUBSCRIPTIONS.map(withNotify),
  });
  const store = Store.open(dir);
  try {
    store.acks.acknowledge('slack', 'C0GAS12345', '1732111200.000100', 'U0ALICE', NOW);
  } finally {
    store.close();
  }
  return dir;
}

/** The password of a URL, as typed. */
const passwordOf = (url: string) => decodeURIComponent(new URL(url).password);

/** `url` with its password shown as the command shows it. */
function shown(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.username}:[redacted]@${u.host}${u.pathname}`;
}

/** Rows in `table` of the database at `url`; `undefined` when there is no such table. */
async function rowsIn(url: string, table: string): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const exists = await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [table]);
    if (exists.rows[0]?.t === null) return undefined;
    const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${table}"`);
    return rows[0]?.n;
  } finally {
    await client.end();
  }
}

/** The lines a command wrote to one stream. */
const lines = (text: string) => text.split('\n').filter((l) => l !== '');

describe('pipewatch store copy', () => {
  it('copies the SQLite store into an empty database and says what it copied and what next', async () => {
    const dir = sqliteStore();
    const run = await cli(['store', 'copy', '--to', target.url], { PIPEWATCH_DATA_DIR: dir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const [first] = lines(run.stdout);
    expect(first).toMatch(
      new RegExp(
        `^copied \\d+ rows in \\d+ tables from ${join(dir, 'pipewatch.db')} into ${literal(shown(target.url))}$`,
      ),
    );
    const counted = new Map(
      [...run.stdout.matchAll(/^(\w+) +(\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]),
    );
    expect(counted.get('subscriptions')).toBe(SUBSCRIPTIONS.length);
    expect(counted.get('acks')).toBe(1);
    expect(counted.get('pipelines')).toBe(2);
    for (const [table, n] of counted) expect(await rowsIn(target.url, table), table).toBe(n);
    const total = [...counted.values()].reduce((a, b) => a + b, 0);
    expect(first).toContain(`copied ${total} rows`);
    expect(run.stdout).toMatch(/^next: set PIPEWATCH_DATABASE_URL to this URL.*start them/m);
    expect(run.stdout).not.toContain(passwordOf(target.url));
  });

  it('refuses a database in use in one line, exit status 1, and leaves it as it was', async () => {
    const dir = sqliteStore();
    const env = { PIPEWATCH_DATA_DIR: dir };
    expect((await cli(['store', 'copy', '--to', target.url], env)).code).toBe(0);
    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    await client.query('DELETE FROM subscriptions WHERE id > 1');
    await client.end();

    const again = await cli(['store', 'copy', '--to', target.url], env);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(lines(again.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^pipewatch: the PostgreSQL database ${literal(shown(target.url))} is not empty \\(its \\w+ table has rows\\): pipewatch copies into an empty database only; give it a new one$`,
        ),
      ),
    ]);
    expect(await rowsIn(target.url, 'subscriptions')).toBe(1);
    expect(await rowsIn(target.url, 'acks')).toBe(1);
  });

  it('refuses a --to that is not a PostgreSQL URL as bad usage, exit status 2, in one line', async () => {
    const dir = sqliteStore();
    for (const [url, said] of [
      ['mysql://pipewatch:s3cret-pw@db/pipewatch', 'must be a postgres:// or postgresql:// URL'],
      ['postgres://pipewatch:s3cret/pw@db:5432/pipewatch', 'must be percent-encoded'],
      ['db.example.com:5432', 'must be a postgres:// or postgresql:// URL'],
    ] as const) {
      const run = await cli(['store', 'copy', '--to', url], { PIPEWATCH_DATA_DIR: dir });
      expect(run.code, url).toBe(2);
      expect(lines(run.stderr), url).toEqual([
        expect.stringMatching(new RegExp(`^pipewatch: --to .*${said}`)),
      ]);
      expect(run.stderr, url).not.toMatch(/s3cret/);
    }
  });

  it('says in one line, exit status 1, that there is no SQLite store, and writes nothing there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipewatch-copy-none-'));
    const run = await cli(['store', 'copy', '--to', target.url], { PIPEWATCH_DATA_DIR: dir });
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual([
      `pipewatch: no SQLite database at ${join(dir, 'pipewatch.db')} to copy; set PIPEWATCH_DATA_DIR to the directory that holds pipewatch.db`,
    ]);
    expect(readdirSync(dir)).toEqual([]);
    expect(await rowsIn(target.url, 'notices')).toBeUndefined();
  });

  it('asks in one line for a SQLite store of an earlier release to be migrated first', async () => {
    const dir = sqliteStore();
    const db = new Database(join(dir, 'pipewatch.db'));
    const version = db.pragma('user_version', { simple: true }) as number;
    db.pragma(`user_version = ${version - 1}`);
    db.close();
    const run = await cli(['store', 'copy', '--to', target.url], { PIPEWATCH_DATA_DIR: dir });
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual([
      `pipewatch: ${join(dir, 'pipewatch.db')} has schema version ${version - 1}, this pipewatch uses ${version}; run 'pipewatch run --once' to migrate it first`,
    ]);
    expect(await rowsIn(target.url, 'notices')).toBeUndefined();
  });

  it('fails in one line naming the URL without its password when no server answers', async () => {
    const dir = sqliteStore();
    const port = await freePort();
    const url = `postgres://pipewatch:s3cret-pw@127.0.0.1:${port}/pipewatch`;
    const run = await cli(['store', 'copy', '--to', url], { PIPEWATCH_DATA_DIR: dir });
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^pipewatch: the PostgreSQL server at postgres://pipewatch:\\[redacted\\]@127\\.0\\.0\\.1:${port}/pipewatch cannot be used: .*nothing accepts connections at 127\\.0\\.0\\.1:${port}`,
        ),
      ),
    ]);
    expect(run.stderr).not.toContain('s3cret');
  });

  it('refuses to copy while a pipewatch run holds the SQLite store, and copies nothing', async () => {
    const dir = sqliteStore();
    const lock = holdRunLock(dir, NOW);
    try {
      const run = await cli(['store', 'copy', '--to', target.url], { PIPEWATCH_DATA_DIR: dir });
      expect(run.code).toBe(1);
      expect(lines(run.stderr)).toEqual([
        expect.stringMatching(/^pipewatch: another pipewatch run \(pid \d+ on .*\) is using/),
      ]);
    } finally {
      lock.release();
    }
    expect(await rowsIn(target.url, 'notices')).toBeUndefined();
    expect(existsSync(join(dir, 'pipewatch.db'))).toBe(true);
  });
});

/** `text` as a regular expression matching it literally. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
