/**
 * Connecting to PostgreSQL: a URL that cannot be one, a server that refuses, does not
 * answer or does not know the user or the database, each gives a `DATABASE` error that
 * names the problem and the fix, and never the password; a connection is pipewatch's
 * (application_name) and reads 64-bit integers as numbers, never rounded.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DatabaseError } from '../../../src/store/database.js';
import { connectPostgres, createPool } from '../../../src/store/postgres/connect.js';
import { freePort } from '../../support/free-port.js';
import { usePostgresDatabase } from '../../support/postgres.js';

const SECRET = 's3cr3t-Pa55';

/** The error `connectPostgres(url)` fails with. */
async function failure(url: string, options = {}): Promise<DatabaseError> {
  const error = await connectPostgres(url, options).then(
    (pool) => {
      void pool.end();
      throw new Error('connected');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DatabaseError);
  const dbError = error as DatabaseError;
  expect(dbError.code).toBe('DATABASE');
  expect(dbError.message).not.toContain(SECRET);
  expect(dbError.message).not.toContain(encodeURIComponent(SECRET));
  return dbError;
}

describe('a PostgreSQL URL pipewatch cannot use', () => {
  it('is refused before any connection when it is not a PostgreSQL URL', () => {
    for (const url of ['mysql://u@db/x', 'db.example.com:5432/x', 'postgres://', '']) {
      expect(() => createPool(url)).toThrow(DatabaseError);
      expect(() => createPool(url)).toThrow(/must be a postgres:\/\/ or postgresql:\/\/ URL/);
    }
  });

  it('is refused, its password hidden, when a reserved character cuts it short', async () => {
    const error = await failure(`postgresql://pipewatch:${SECRET}#x@db.example.com/pipewatch`);
    expect(error.message).toMatch(/percent-encoded \(\/ as %2F, # as %23/);
    expect(error.message).toContain('[redacted]');
  });
});

describe('a PostgreSQL server pipewatch cannot use', () => {
  const db = usePostgresDatabase();
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  });

  /** The test database's URL with another user, password, database or port. */
  const variant = (change: (url: URL) => void): string => {
    const url = new URL(db.url);
    change(url);
    return url.toString();
  };

  it('says nothing listens when the port refuses', async () => {
    const port = await freePort();
    const error = await failure(`postgres://pipewatch:${SECRET}@127.0.0.1:${port}/pipewatch`);
    expect(error.message).toContain(
      `nothing accepts connections at 127.0.0.1:${port}: is PostgreSQL running`,
    );
    expect(error.message).toContain(`postgres://pipewatch:[redacted]@127.0.0.1:${port}`);
  });

  it('gives up in the connect timeout on a host that never answers', async () => {
    const server = createServer((socket) => sockets.push(socket));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const started = performance.now();
    const error = await failure(`postgres://pipewatch:${SECRET}@127.0.0.1:${port}/pipewatch`, {
      connectTimeoutMs: 300,
    });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(error.message).toMatch(/no answer from 127\.0\.0\.1 in time: check the host, the port/);
  });

  it('names the user when the password is wrong', async () => {
    const error = await failure(
      variant((u) => {
        u.password = SECRET;
      }),
    );
    expect(error.message).toMatch(
      /the server refused user postgres: check the user name and password in the URL/,
    );
  });

  it('names the database when it does not exist', async () => {
    const error = await failure(
      variant((u) => {
        u.pathname = '/no_such_database';
      }),
    );
    expect(error.message).toContain(
      'the database no_such_database does not exist: create it (CREATE DATABASE)',
    );
  });
});

describe('a connection pipewatch opens', () => {
  const db = usePostgresDatabase();

  it('says it is pipewatch, ends a transaction left idle, and reads 64-bit integers as numbers, never rounded', async () => {
    const pool = await connectPostgres(db.url);
    try {
      const { rows } = await pool.query(
        `SELECT current_setting('application_name') AS app,
           current_setting('idle_in_transaction_session_timeout') AS idle,
           9007199254740991::bigint AS big`,
      );
      expect(rows[0]).toEqual({ app: 'pipewatch', idle: '1min', big: Number.MAX_SAFE_INTEGER });
      await expect(pool.query('SELECT 9007199254740993::bigint AS n')).rejects.toThrow(
        /the integer 9007199254740993, too large for pipewatch to read exactly/,
      );
      // The pool is still good after that.
      expect((await pool.query('SELECT 1::bigint AS n')).rows[0]).toEqual({ n: 1 });
    } finally {
      await pool.end();
    }
  });
});
