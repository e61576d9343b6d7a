/**
 * The PostgreSQL store's connections: one `pg.Pool` from a `postgres://` or
 * `postgresql://` URL, checked by a first connection before anything relies on it, so a
 * wrong URL, a server that is down or refuses pipewatch is said at start, in words that
 * name the fix. Errors are `DatabaseError`s (code `DATABASE`), the URL in them shown with
 * its password as `[redacted]` (`config/smtp-url.ts`'s rules, which any URL with
 * credentials shares).
 *
 * The settings, and why:
 * - `max` 10 connections a pool. The store decides one thing at a time, as it did on
 *   SQLite's one connection; the rest are for a standby's HTTP handlers and chat
 *   commands. Three replicas and their leases stay far under PostgreSQL's default 100.
 * - `connectionTimeoutMillis` 5 s: an unreachable host (packets dropped) fails in
 *   seconds, not after the system's TCP timeout of minutes. It bounds a wait for a free
 *   connection of the pool too.
 * - TCP keepalive after 10 s idle: a connection whose peer vanished (host lost, a NAT
 *   that forgot it) is found dead and replaced instead of hanging a query.
 * - `idle_in_transaction_session_timeout` 60 s, on the server: a replica cut off in the
 *   middle of a transaction does not hold its row locks for the others until TCP gives
 *   up. A leader's transactions are allowed far less, the lease's margin (`Fence.idleMs`):
 *   a successor waits for no lock of a paused leader once its lease has run out.
 * - `application_name` `pipewatch`, so `pg_stat_activity` says who is connected.
 * - 64-bit integers (`BIGINT`, the type of every integer column, as SQLite's are) are
 *   read as numbers, as better-sqlite3 reads them; one beyond 2^53 fails its query rather
 *   than coming back rounded.
 */
import pg from 'pg';
import { postgresUrlProblem, shownPostgresUrl } from '../../config/smtp-url.js';
import { errorCode, errorMessage } from '../../lib/error-text.js';
import { redactor } from '../../lib/redact.js';
import { DatabaseError } from '../database.js';

/** The oldest server version pipewatch supports (PRODUCT.md: 14 or later). */
export const MIN_SERVER_VERSION = 140000;

/** See the file's comment. */
export const POOL_SIZE = 10;
export const CONNECT_TIMEOUT_MS = 5_000;
export const KEEPALIVE_IDLE_MS = 10_000;
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;

/** The PostgreSQL type id of `int8`. */
const INT8 = 20;

/** A BIGINT as a JavaScript number, or a failed query when it cannot be one exactly. */
function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) {
    throw new DatabaseError(
      `the database holds the integer ${text}, too large for pipewatch to read exactly (above 2^53)`,
    );
  }
  return n;
}

const types: pg.CustomTypesConfig = {
  getTypeParser: ((id: number, format?: 'text' | 'binary') =>
    id === INT8 && format !== 'binary'
      ? parseInt8
      : pg.types.getTypeParser(id, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** The URL's checks and how it is shown are the configuration's (`config/smtp-url.ts`). */
export { postgresUrlProblem, shownPostgresUrl };

/** What opening a pool may be told. */
export interface PoolOptions {
  /** Connections at most; default `POOL_SIZE`. The leader lease takes a pool of 1. */
  max?: number;
  /** How long a connection may take to open; default `CONNECT_TIMEOUT_MS`. */
  connectTimeoutMs?: number;
  /**
   * Hears of a connection that failed while idle in the pool (the server restarted, the
   * network dropped it); the pool replaces it at its next use. Default: nothing.
   */
  onError?: (error: DatabaseError) => void;
}

/** A pool on `url`, not yet connected; a `DatabaseError` when the URL cannot be one. */
export function createPool(url: string, options: PoolOptions = {}): pg.Pool {
  const problem = postgresUrlProblem(url);
  if (problem !== undefined) {
    throw new DatabaseError(`the PostgreSQL URL ${shownPostgresUrl(url)} ${problem}`);
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? POOL_SIZE,
    connectionTimeoutMillis: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    application_name: 'pipewatch',
    types,
  });
  // Without a listener, an idle connection's error would end the process.
  pool.on('error', (error) => options.onError?.(postgresError(url, error)));
  return pool;
}

/**
 * Opens a pool on `url` and checks it with a first connection: the server answers, lets
 * pipewatch in, and is PostgreSQL 14 or later. Every failure is a `DatabaseError` that
 * names it and what to do.
 */
export async function connectPostgres(url: string, options: PoolOptions = {}): Promise<pg.Pool> {
  const pool = createPool(url, options);
  try {
    const { rows } = await pool.query<{ v: string }>(
      "SELECT current_setting('server_version_num') AS v",
    );
    const version = Number(rows[0]?.v);
    if (!(version >= MIN_SERVER_VERSION)) {
      throw new DatabaseError(
        `the PostgreSQL server at ${shownPostgresUrl(url)} is version ${rows[0]?.v ?? 'unknown'}; pipewatch needs 14 or later: upgrade it or use another server`,
      );
    }
  } catch (error) {
    await pool.end().catch(() => {});
    throw error instanceof DatabaseError ? error : postgresError(url, error);
  }
  return pool;
}

/** The server's and the network's error codes that say more than their message. */
function advice(error: unknown, url: URL): string | undefined {
  const code = errorCode(error);
  const where = `${url.hostname}:${url.port || '5432'}`;
  const user = decodeURIComponent(url.username) || 'the default user';
  const database = decodeURIComponent(url.pathname.slice(1)) || 'the default database';
  switch (code) {
    case 'ECONNREFUSED':
      return `nothing accepts connections at ${where}: is PostgreSQL running, and listening on that address and port?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host ${url.hostname} is not found: check the host name in the URL`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${where} cannot be reached: check the host, the port and any firewall between`;
    case 'ECONNRESET':
    case 'EPIPE':
      return `${where} closed the connection: is it a PostgreSQL server, and does it accept this host (pg_hba.conf, TLS)?`;
    case '28P01':
    case '28000':
      return `the server refused user ${user}: check the user name and password in the URL, and the server's pg_hba.conf`;
    case '3D000':
      return `the database ${database} does not exist: create it (CREATE DATABASE), or name another in the URL`;
    case '42501':
      return `user ${user} lacks a privilege pipewatch needs (it creates and changes its tables): grant it, or use the owner of the database`;
    case '53300':
      return 'the server has no connection left for pipewatch (max_connections): raise it, or lower what other clients hold';
    case '57P03':
      return 'the server is starting up or shutting down: try again in a moment';
    default:
      return undefined;
  }
}

/**
 * A `DatabaseError` for a failure to reach or use the server at `url`, with what to do
 * where the failure says it, and nothing of the password, whatever the driver wrote.
 */
export function postgresError(url: string, error: unknown): DatabaseError {
  if (error instanceof DatabaseError) return error;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {}
  const password = parsed ? parsed.password : '';
  const redact = redactor([password, safeDecode(password)]);
  // A refused connection to a name of two addresses is an AggregateError with no message.
  const said = errorMessage(error) || errorCode(error) || 'unknown error';
  const text = /timeout/i.test(said)
    ? `no answer from ${parsed?.hostname ?? 'the server'} in time: check the host, the port and any firewall between`
    : parsed && advice(error, parsed);
  const detail = text ? `${said}; ${text}` : said;
  return new DatabaseError(
    redact(`the PostgreSQL server at ${shownPostgresUrl(url)} cannot be used: ${detail}`),
    { cause: error },
  );
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
