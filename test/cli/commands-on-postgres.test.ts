/**
 * The commands that read or change what `run` stored, with PIPEWATCH_DATABASE_URL naming
 * a PostgreSQL database: they read and write it, not a SQLite file in the data directory
 * (which stays empty); a database no pipewatch has migrated is said to be missing, as a
 * missing file is, a dry run leaves a database of another schema version as it is, and a
 * URL that cannot be one is a configuration error.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AsyncStore } from '../../src/store/async-store.js';
import { DATABASE_FILE } from '../../src/store/index.js';
import { type OpenedStore, openStore } from '../../src/store/open.js';
import { connectPostgres } from '../../src/store/postgres/connect.js';
import {
  migratePostgres,
  POSTGRES_SCHEMA_VERSION,
  postgresSchemaVersion,
} from '../../src/store/postgres/migrate.js';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { heartbeat } from '../../src/store/postgres/replicas.js';
import { makeNotice } from '../fakes/notice.js';
import { latestCycle } from '../fakes/pipelines.js';
import { InstantClock } from '../support/clock.js';
import { createTestDatabase, dropTestDatabase } from '../support/postgres.js';
import { cli } from './run-cli.js';
import { FILE_RULES, rulesDir } from './subscription-fixture.js';

const NOW = new Date('2026-11-20T16:00:00Z');
const SEEN = '2026-11-20T15:00:00Z';
const at = { clock: new InstantClock(NOW) };

const databases: string[] = [];
let url: string;
let dataDir: string;
let opened: OpenedStore;
let store: AsyncStore;
let env: Record<string, string>;

/** A pipeline as the API lists it. */
function pipeline(id: number, slug: string) {
  return {
    id,
    name: slug,
    slug,
    url: '',
    tsp_name: slug,
    tsp_id: String(id),
    service_created_at: SEEN,
    service_updated_at: SEEN,
  };
}

beforeAll(async () => {
  const made = await createTestDatabase();
  databases.push(made.name);
  url = made.url;
  // The daemon's data directory, without a database: a command reading SQLite finds none.
  dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-pg-commands-'));
  opened = await openStore({ dataDir: mkdtempSync(join(tmpdir(), 'unused-')), databaseUrl: url });
  store = opened.store;
  await store.pipelines.upsert(pipeline(1, 'transco'), SEEN);
  await store.pipelines.upsert(pipeline(2, 'texas-eastern'), SEEN);
  await store.capacity.upsertCycle(...latestCycle('transco', [['STATION 85', '85']], SEEN), SEEN);
  await store.notices.upsert(
    makeNotice({ id: 8812, identifier: '26-0412', posted_at: SEEN }),
    SEEN,
    false,
  );
  await store.audit.record({
    at: SEEN,
    rule: 'transco-constraints',
    event: 'notice-new',
    subject: 'notice:8812',
    notice_id: 8812,
    decision: 'suppressed',
    reason: 'quiet hours on PostgreSQL',
  });
  env = {
    PIPEWATCH_DATA_DIR: dataDir,
    PIPEWATCH_DATABASE_URL: url,
    PIPEWATCH_RULES_DIR: rulesDir(FILE_RULES),
  };
});

afterAll(async () => {
  await opened?.close();
  await Promise.all(databases.map(dropTestDatabase));
  // Nothing was written beside the PostgreSQL database.
  if (dataDir) expect(readdirSync(dataDir)).toEqual([]);
});

describe('on PostgreSQL', () => {
  it('subs add stores a subscription in the database, and subs list shows it', async () => {
    const add = await cli(
      ['subs', 'add', 'slack:#gas', 'subscribe', 'transco', 'type:constraint'],
      env,
      at,
    );
    expect(add.stderr).not.toMatch(/no database/);
    expect(add.code).toBe(0);
    expect(add.stdout).toMatch(/^sub-\d+: .*transco.* → slack:#gas$/m);
    // A location is checked against the capacity stored there.
    const oac = await cli(
      ['subs', 'add', 'email:ops@example.com', 'oac', 'transco', 'Station 85', 'below:50,000'],
      env,
      at,
    );
    expect(oac.code).toBe(0);
    const wrong = await cli(
      ['subs', 'add', 'email:ops@example.com', 'oac', 'transco', 'Station 58', 'below:50,000'],
      env,
      at,
    );
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/Station 58/);
    expect((await store.subscriptions.all()).map((s) => s.target)).toEqual([
      'slack:#gas',
      'email:ops@example.com',
    ]);
    const list = await cli(['subs', 'list'], env, at);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      /^ *1 +notices +transco; type constraint.* +slack:#gas +.* active$/m,
    );
    expect(list.stdout).toMatch(/^ *2 +capacity +transco station 85; OAC below 50000 .* active$/m);
  });

  it('silence add stores a silence, and silence list shows it', async () => {
    const add = await cli(['silence', 'add', 'pipeline=transco', '--for', '2h'], env, at);
    expect(add.code).toBe(0);
    expect(add.stdout).toMatch(/^silence \d+: pipeline=transco until 2026-11-20T18:00:00Z/);
    expect(await store.silences.list()).toHaveLength(1);
    const list = await cli(['silence', 'list'], env, at);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^ *\d+ +pipeline=transco +.* active +0 /m);
  });

  it('status reports what the database holds', async () => {
    const run = await cli(['status'], env, at);
    expect(run.stderr).not.toMatch(/no database/);
    expect(run.stdout).toContain('stored: 2 pipelines, 1 notice, 1 capacity cycle');
    expect(run.stdout).toMatch(/^subscriptions: \d+, silences in force: \d+$/m);
  });

  it('status lists the replicas seen, and is unhealthy while none leads', async () => {
    const pool = opened.pool!;
    await pool.query('TRUNCATE replicas');
    await heartbeat(pool, { id: 'db1/4242/9f3c2a1b', host: 'db1', pid: 4242 }, 'standby');
    const none = await cli(['status'], env, at);
    expect(none.stdout).toMatch(/^replicas seen in the last 5m:$/m);
    expect(none.stdout).toMatch(/^ *db1\/4242\/9f3c2a1b +db1 +4242 +standby +0s ago /m);
    expect(none.stdout).toContain(
      'no replica has led in the last 15s: nothing polls, decides or sends',
    );
    expect(none.code).toBe(1);

    await heartbeat(pool, { id: 'db2/77/0c0ffee0', host: 'db2', pid: 77 }, 'leader');
    const led = await cli(['status', '--json'], env, at);
    const report = JSON.parse(led.stdout);
    expect(report.replicas.map((r: { id: string; role: string }) => [r.id, r.role]).sort()).toEqual(
      [
        ['db1/4242/9f3c2a1b', 'standby'],
        ['db2/77/0c0ffee0', 'leader'],
      ],
    );
    expect((await cli(['status'], env, at)).stdout).not.toContain('no replica has led');
    await pool.query('TRUNCATE replicas');
  });

  it('why explains a notice stored there, with its decisions', async () => {
    const run = await cli(['why', 'transco:26-0412'], env, at);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('notice #8812 transco: Capacity Constraint - Station 165');
    expect(run.stdout).toMatch(
      /transco-constraints\s+notice-new\s+suppressed\s+quiet hours on PostgreSQL/,
    );
    expect(run.stdout).toContain('Verdicts of the rules as they stand now:');
  });

  it('rules test judges the notices stored there; rules validate checks against its pipelines', async () => {
    const run = await cli(['rules', 'test', '--since', '1d'], env, at);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('#8812');
    expect(run.stdout).toMatch(/transco-constraints/);
    const validate = await cli(['rules', 'validate'], env, at);
    expect(validate.code).toBe(0);
    expect(validate.stderr).not.toContain('pipeline slugs were not checked');
  });

  it('a database no pipewatch has migrated is missing, and nothing is created in it', async () => {
    const empty = await createTestDatabase();
    databases.push(empty.name);
    const run = await cli(['subs', 'list'], { ...env, PIPEWATCH_DATABASE_URL: empty.url }, at);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^pipewatch: no pipewatch database at postgres:\/\/\S+; start 'pipewatch run' on it first \(or check PIPEWATCH_DATABASE_URL\)$/m,
    );
    expect(run.stderr).not.toContain(new URL(empty.url).password || '\0');
    expect(existsSync(join(dataDir, DATABASE_FILE))).toBe(false);
    const pool = await connectPostgres(empty.url);
    try {
      expect(await postgresSchemaVersion(pool)).toBe(0);
    } finally {
      await pool.end();
    }
  });

  it('the dry runs refuse a database of an older schema rather than migrate it', async () => {
    const older = await createTestDatabase();
    databases.push(older.name);
    const behind = POSTGRES_SCHEMA_VERSION - 1;
    const pool = await connectPostgres(older.url);
    try {
      await migratePostgres(pool, 'older', POSTGRES_MIGRATIONS.slice(0, -1));
      const olderEnv = { ...env, PIPEWATCH_DATABASE_URL: older.url };
      for (const args of [
        ['rules', 'test', '--since', '1d'],
        ['rules', 'validate'],
      ]) {
        const run = await cli(args, olderEnv, at);
        expect(run.code, args.join(' ')).not.toBe(0);
        expect(run.stderr).toContain(
          `has schema version ${behind}, this pipewatch uses ${POSTGRES_SCHEMA_VERSION}; start 'pipewatch run' of this release on it to migrate it first`,
        );
      }
      expect(await postgresSchemaVersion(pool)).toBe(behind);
    } finally {
      await pool.end();
    }
  });

  it('a URL that is not PostgreSQL is a configuration error', async () => {
    const run = await cli(
      ['status'],
      { ...env, PIPEWATCH_DATABASE_URL: 'mysql://db/pipewatch' },
      at,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('PIPEWATCH_DATABASE_URL');
  });
});
