/**
 * Databases of their own for the tests of the PostgreSQL store, on the run's one server
 * (`postgres-server.ts`): each file, or each test, gets a new empty database under a
 * random name, dropped after it, so files running in parallel never see each other.
 *
 *     const pg = usePostgresDatabase();           // one for the file, made in beforeAll
 *     const pg = usePostgresDatabase({ each: true }); // a new one for every test
 *     it('…', async () => { await pg.pool().query('SELECT 1'); });
 *     const url = await pg.another();             // one more, for a test that needs two
 *
 * Pools made by `pool()` are ended before their database is dropped; a connection left
 * open elsewhere does not keep it (DROP DATABASE … WITH (FORCE)).
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, inject } from 'vitest';
import { createDatabaseOn, dropDatabaseOn, TEST_DATABASE_URL } from './postgres-server.js';

export interface PostgresDatabase {
  /** The URL of the database of the running file (or test); read before it, it throws. */
  readonly url: string;
  /** A pool on `url`, made once per database and ended after it. */
  pool(): pg.Pool;
  /** One more new empty database, dropped with the others; its URL. */
  another(): Promise<string>;
}

/** The test server's URL, or an error that says why there is none. */
function serverUrl(): string {
  const url = inject('postgresUrl');
  if (!url) {
    throw new Error(
      `no PostgreSQL server was started for this run: test/support/postgres-server.ts starts one only when a test file to run mentions "postgres"; name it in this file, or set ${TEST_DATABASE_URL}`,
    );
  }
  return url;
}

/** A new empty database on the test server; its URL and name. */
export function createTestDatabase(): Promise<{ url: string; name: string }> {
  return createDatabaseOn(serverUrl());
}

/** Drops a database made by `createTestDatabase`, whoever is still connected to it. */
export function dropTestDatabase(name: string): Promise<void> {
  return dropDatabaseOn(serverUrl(), name);
}

/** Fresh databases for the tests of a file: see the file's comment. */
export function usePostgresDatabase(options: { each?: boolean } = {}): PostgresDatabase {
  let current: { url: string; name: string } | undefined;
  let pool: pg.Pool | undefined;
  const more: string[] = [];

  const setUp = async (): Promise<void> => {
    current = await createTestDatabase();
  };
  const tearDown = async (): Promise<void> => {
    await pool?.end();
    pool = undefined;
    const names = [...more.splice(0), ...(current ? [current.name] : [])];
    current = undefined;
    await Promise.all(names.map(dropTestDatabase));
  };
  if (options.each) {
    beforeEach(setUp);
    afterEach(tearDown);
  } else {
    beforeAll(setUp);
    afterAll(tearDown);
  }

  return {
    get url() {
      if (!current)
        throw new Error('the test database is made in a before hook: read it in a test');
      return current.url;
    },
    pool() {
      pool ??= new pg.Pool({ connectionString: this.url });
      return pool;
    },
    async another() {
      const made = await createTestDatabase();
      more.push(made.name);
      return made.url;
    },
  };
}
