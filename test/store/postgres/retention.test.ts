/**
 * Retention behaves the same on SQLite and on PostgreSQL: every table whose rows age
 * loses its old rows, and only those, counted alike; what something still to come needs
 * stays (a pending delivery's notice whole, a reminder's, an escalation's or a Remind
 * me's as a row without its text); children go before their parents; a notice leaves a
 * tombstone. A prune is one transaction, and the vacuum gives space back.
 */
import { describe, expect, it } from 'vitest';
import type { UtcIso } from '../../../src/lib/time.js';
import { POSTGRES_ONLY_TABLES } from '../../../src/store/postgres/migrations.js';
import { on } from '../../../src/store/postgres/queryable.js';
import { PgRetentionStore, PRUNED_TABLES } from '../../../src/store/postgres/retention.js';
import type { PruneCounts } from '../../../src/store/retention.js';
import { insertRow, noticeRow, type Opened, STORES, sql } from '../../support/both-stores.js';

const CUTOFF = '2026-01-01T00:00:00Z' as UtcIso;
const NOW = '2026-07-01T00:00:00Z' as UtcIso;
const OLD = '2025-06-01T00:00:00Z';
const NEW = '2026-06-01T00:00:00Z';

function retention(o: Opened) {
  return o.kind === 'sqlite' ? o.store.retention : new PgRetentionStore(on(o.pool));
}

/**
 * The tables retention does not prune, and what bounds each instead (docs/operations.md,
 * Storage). A new table must be pruned or named here.
 */
const BOUNDED: Record<string, string> = {
  notice_tombstones: 'some 30 bytes for each notice ever stored, by design',
  interactions: 'kept only while a signature timestamp is accepted',
  outages: 'one row per feed or target while its outage lasts',
  pipelines: 'what the API has',
  catalog: 'what the API has',
  notice_words: 'what the API has',
  sync_state: 'one row per feed',
  keys: 'one row per key',
  revisions: 'one row per counter',
};

async function tables(o: Opened): Promise<string[]> {
  const rows = await sql<{ name: string }>(
    o,
    o.kind === 'sqlite'
      ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
      : "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'",
  );
  return rows.map((r) => r.name).filter((name) => !POSTGRES_ONLY_TABLES.includes(name));
}

function notice(o: Opened, id: number, over: Record<string, unknown> = {}) {
  return insertRow(o, 'notices', noticeRow(id, { last_seen_at: OLD, ...over }));
}

function reminder(
  o: Opened,
  rule: string,
  noticeId: number,
  offset: number,
  status: string,
  at = NEW,
) {
  return insertRow(o, 'reminders', {
    rule,
    notice_id: noticeId,
    offset_ms: offset,
    field: 'response_at',
    deadline_at: at,
    due_at: at,
    status,
    updated_at: at,
  });
}

function subscription(o: Opened, id: number, createdAt: string, noticeId: number | null) {
  return insertRow(o, 'subscriptions', {
    id,
    rule_json: '{}',
    target: 'slack_dm:U0ALICE',
    source: 'slack',
    created_at: createdAt,
    notice_id: noticeId,
  });
}

function silence(
  o: Opened,
  id: number,
  over: { ends_at: string | null; summarized_at?: string; lifted_at?: string },
) {
  return insertRow(o, 'silences', {
    id,
    matchers_json: '[]',
    starts_at: OLD,
    created_by: 'slack:U0ALICE',
    created_at: OLD,
    ...over,
  });
}

function held(o: Opened, id: number, silenceId: number, at: string) {
  return insertRow(o, 'held', {
    id,
    key: `held-${id}`,
    silence_id: silenceId,
    rule: 'r',
    target: 'console',
    target_json: '{}',
    alert_json: '{}',
    at,
  });
}

function outbox(
  o: Opened,
  id: number,
  status: string,
  createdAt: string,
  noticeId: number | null = null,
) {
  return insertRow(o, 'outbox', {
    id,
    subject: `notice:${id}`,
    rule: 'r',
    target: 'console',
    target_json: '{}',
    payload: '{}',
    status,
    next_attempt_at: createdAt,
    created_at: createdAt,
    notice_id: noticeId,
  });
}

async function cycle(o: Opened, id: number, seenAt: string, locations: number) {
  await insertRow(o, 'capacity_cycles', {
    id,
    pipeline_id: 3,
    pipeline_slug: 'transco',
    pipeline_name: 'Transco',
    identifier: 'TIMELY',
    cycle: 'timely',
    gas_day: seenAt.slice(0, 10),
    location_count: locations,
    content_hash: `cycle-${id}`,
    first_seen_at: seenAt,
    last_seen_at: seenAt,
  });
  for (let i = 0; i < locations; i++)
    await insertRow(o, 'capacity_locations', {
      cycle_id: id,
      id: i,
      location: `POINT ${i}`,
      identifier: '',
      flow: 'D',
      qti: '',
      zone: '',
      it: 'N',
      all_available: 'Y',
      reason: '',
    });
}

/**
 * For every table retention prunes, rows older than the cutoff that go and rows that
 * stay: recent ones, and old ones something still to come needs.
 */
async function seed(o: Opened): Promise<void> {
  // Notices: 101, 107 and 108 go to tombstones (108 once its Remind me is gone); 102, 105,
  // 106 and 109 are named by what is to come and keep their rows, 102, 105 and 106
  // losing their text (109's is pruned already); 104 has a pending delivery and stays
  // whole; 103 was seen recently.
  await notice(o, 101, { content_hash: 'A1B2C3D4E5F60718293A4B5C6D7E8F90' });
  await notice(o, 102);
  await notice(o, 103, { last_seen_at: NEW, version: 2 });
  await notice(o, 104);
  await notice(o, 105);
  await notice(o, 106, { response_at: '2026-03-01T12:00:00Z' });
  await notice(o, 107, { content_hash: 'hash-107', version: 2 });
  await notice(o, 108, { response_at: '2025-07-01T12:00:00Z' });
  await notice(o, 109, { pruned_at: OLD, notice: '' });
  await insertRow(o, 'notice_tombstones', { id: 107, content_hash: Buffer.from('x'), version: 1 });
  const history = (noticeId: number, version: number, at: string) =>
    insertRow(o, 'notice_history', {
      notice_id: noticeId,
      version,
      changed_at: at,
      changed_fields: '[]',
      previous: '{}',
    });
  await history(103, 1, OLD);
  await history(103, 2, NEW);
  await history(104, 1, OLD);
  await history(107, 1, OLD);
  await history(102, 1, OLD);

  // Subscriptions: a rule (1) stays, a Remind me whose deadline is ahead (2) stays; one
  // whose notice is gone (3) and one whose deadline passed (4) go, and 3's reminder and
  // capacity state with it.
  await subscription(o, 1, OLD, null);
  await subscription(o, 2, OLD, 106);
  await subscription(o, 3, OLD, 900);
  await subscription(o, 4, OLD, 108);

  // Reminders: done before the cutoff, and one of a subscription that no longer exists, go.
  await reminder(o, 'deadlines', 101, 1, 'sent', OLD);
  await reminder(o, 'deadlines', 102, 1, 'scheduled');
  await reminder(o, 'deadlines', 103, 2, 'sent');
  await reminder(o, 'deadlines', 109, 1, 'scheduled');
  await reminder(o, 'sub-999', 103, 3, 'scheduled');
  await reminder(o, 'sub-1', 103, 4, 'scheduled');
  await reminder(o, 'sub-2', 106, 1, 'scheduled');
  // A rule file's rule may be named so: not a subscription's.
  await reminder(o, 'sub-station', 103, 5, 'scheduled');
  await reminder(o, 'sub-3', 900, 1, 'scheduled');

  await insertRow(o, 'escalations', {
    rule: 'fm',
    notice_id: 103,
    alerted_at: OLD,
    status: 'escalated',
    decided_at: OLD,
  });
  await insertRow(o, 'escalations', {
    rule: 'fm',
    notice_id: 105,
    alerted_at: OLD,
    status: 'pending',
  });
  await insertRow(o, 'escalations', {
    rule: 'fm',
    notice_id: 104,
    alerted_at: NEW,
    status: 'acknowledged',
    decided_at: NEW,
  });

  await outbox(o, 1, 'sent', OLD);
  await outbox(o, 2, 'dead', OLD);
  await outbox(o, 3, 'pending', OLD, 104);
  await outbox(o, 4, 'sent', NEW);

  for (const at of [OLD, NEW]) {
    await insertRow(o, 'audit', {
      at,
      rule: 'r',
      event: 'notice-new',
      subject: 'notice:1',
      decision: 'alert',
      reason: at,
    });
    await insertRow(o, 'acks', {
      platform: 'slack',
      channel: 'C0GAS',
      message: at,
      by: 'U0ALICE',
      at,
    });
    await insertRow(o, 'threads', {
      target: 'slack:C0GAS',
      subject: at,
      ref: '{}',
      created_at: at,
    });
  }
  for (const [rule, location, at] of [
    ['oac', 'OLD', OLD],
    ['oac', 'NEW', NEW],
    ['sub-3', 'NEW', NEW],
  ] as const) {
    await insertRow(o, 'capacity_state', {
      rule,
      pipeline_slug: 'transco',
      location,
      state: 'ok',
      since: at,
      last_cycle: at,
    });
  }
  await cycle(o, 1, OLD, 2);
  await cycle(o, 2, NEW, 1);

  // Silences: 1 ended and was summed up before the cutoff, its held alert goes first,
  // then it; 2 never ends, its old held alert goes; 3 is in force; 4 holds an alert held
  // after the cutoff; 5 was lifted before it; 6 was never summed up.
  await silence(o, 1, { ends_at: OLD, summarized_at: OLD });
  await silence(o, 2, { ends_at: null });
  await silence(o, 3, { ends_at: NEW, summarized_at: NEW });
  await silence(o, 4, { ends_at: OLD, summarized_at: OLD });
  await silence(o, 5, { ends_at: NEW, lifted_at: OLD, summarized_at: OLD });
  await silence(o, 6, { ends_at: OLD });
  await held(o, 1, 1, OLD);
  await held(o, 2, 2, OLD);
  await held(o, 3, 3, OLD);
  await held(o, 4, 4, NEW);
}

const EXPECTED: PruneCounts = {
  subscriptions: 2,
  reminders: 2,
  escalations: 1,
  notices: 3,
  notice_texts: 3,
  notice_history: 1,
  outbox: 2,
  audit: 1,
  capacity_cycles: 1,
  held: 2,
  capacity_state: 1,
  silences: 2,
  acks: 1,
  threads: 1,
};

/** What is left in each pruned table, as keys. */
async function left(o: Opened): Promise<Record<string, unknown>> {
  const column = async (query: string) => (await sql<{ k: unknown }>(o, query)).map((r) => r.k);
  const hex = o.kind === 'sqlite' ? 'lower(hex(content_hash))' : "encode(content_hash, 'hex')";
  return {
    notices: await sql(
      o,
      "SELECT id, pruned_at, notice = '' AS pruned FROM notices ORDER BY id",
    ).then((rows) => rows.map((r) => [r.id, r.pruned_at, Boolean(r.pruned)])),
    tombstones: await sql(
      o,
      `SELECT id, ${hex} AS hash, version FROM notice_tombstones ORDER BY id`,
    ),
    notice_history: await column(
      "SELECT notice_id || '.' || version AS k FROM notice_history ORDER BY k",
    ),
    subscriptions: await column('SELECT id AS k FROM subscriptions ORDER BY id'),
    reminders: await column("SELECT rule || '.' || notice_id AS k FROM reminders ORDER BY k"),
    escalations: await column('SELECT notice_id AS k FROM escalations ORDER BY notice_id'),
    outbox: await column('SELECT id AS k FROM outbox ORDER BY id'),
    audit: await column('SELECT at AS k FROM audit ORDER BY at'),
    capacity_cycles: await column('SELECT id AS k FROM capacity_cycles ORDER BY id'),
    capacity_locations: await column(
      'SELECT cycle_id AS k FROM capacity_locations ORDER BY cycle_id',
    ),
    held: await column('SELECT id AS k FROM held ORDER BY id'),
    capacity_state: await column(
      "SELECT rule || '.' || location AS k FROM capacity_state ORDER BY k",
    ),
    silences: await column('SELECT id AS k FROM silences ORDER BY id'),
    acks: await column('SELECT at AS k FROM acks ORDER BY at'),
    threads: await column('SELECT created_at AS k FROM threads ORDER BY created_at'),
  };
}

describe.each(STORES)('%s (postgres and sqlite alike)', (_, open) => {
  it('every table has its rows that age pruned by retention, or is bounded by design', async () => {
    const o = await open();
    const pruned = new Set<string>(PRUNED_TABLES);
    const unaccounted = (await tables(o)).filter((t) => !pruned.has(t) && !(t in BOUNDED));
    expect(unaccounted).toEqual([]);
    for (const key of Object.keys(EXPECTED)) {
      if (key !== 'notice_texts') expect(pruned, key).toContain(key);
    }
  });

  it('prunes from every table what is older than the cutoff, and only that, counted alike', async () => {
    const o = await open();
    await seed(o);
    const counts = await retention(o).prune(CUTOFF, NOW);
    expect(counts).toEqual(EXPECTED);
    // Every table retention prunes had rows to prune.
    for (const [table, n] of Object.entries(counts)) expect(n, table).toBeGreaterThan(0);
    expect(await left(o)).toEqual({
      notices: [
        [102, NOW, true],
        [103, null, false],
        [104, null, false],
        [105, NOW, true],
        [106, NOW, true],
        [109, OLD, true],
      ],
      tombstones: [
        { id: 101, hash: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', version: 1 },
        { id: 107, hash: Buffer.from('hash-107').toString('hex'), version: 2 },
        { id: 108, hash: Buffer.from('hash-108').toString('hex'), version: 1 },
      ],
      // 102's went with its text, 107's with its row.
      notice_history: ['103.2', '104.1'],
      subscriptions: [1, 2],
      reminders: [
        'deadlines.102',
        'deadlines.103',
        'deadlines.109',
        'sub-1.103',
        'sub-2.106',
        'sub-station.103',
      ],
      escalations: [104, 105],
      outbox: [3, 4],
      audit: [NEW],
      capacity_cycles: [2],
      capacity_locations: [2],
      held: [3, 4],
      capacity_state: ['oac.NEW'],
      silences: [2, 3, 4, 6],
      acks: [NEW],
      threads: [NEW],
    });
    // A second prune finds nothing more.
    const again = await retention(o).prune(CUTOFF, NOW);
    expect(Object.values(again).every((n) => n === 0)).toBe(true);
  });

  it('prunes all or nothing: a statement that fails leaves every table as it was', async () => {
    const o = await open();
    await seed(o);
    const before = await left(o);
    // The last statement (threads) is refused.
    if (o.kind === 'sqlite')
      await sql(
        o,
        "CREATE TEMP TRIGGER refuse BEFORE DELETE ON threads BEGIN SELECT RAISE(ABORT, 'refused'); END",
      );
    else {
      await sql(
        o,
        `CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN RAISE EXCEPTION 'refused'; END $$`,
      );
      await sql(
        o,
        'CREATE TRIGGER refuse BEFORE DELETE ON threads FOR EACH ROW EXECUTE FUNCTION refuse()',
      );
    }
    try {
      await expect((async () => retention(o).prune(CUTOFF, NOW))()).rejects.toThrow(/refused/);
      expect(await left(o)).toEqual(before);
    } finally {
      if (o.kind === 'sqlite') await sql(o, 'DROP TRIGGER refuse');
      else await sql(o, 'DROP FUNCTION refuse CASCADE');
    }
  });

  it('gives the space of what it pruned back', async () => {
    const o = await open();
    await sql(
      o,
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
       INSERT INTO audit (at, rule, event, subject, notice_id, decision, reason)
       SELECT ?, 'r', 'notice-new', 'notice:' || i, i, 'alert', ? FROM n`,
      [OLD, 'Station 165 limited; '.repeat(50)],
    );
    const r = retention(o);
    expect((await r.prune(CUTOFF, NOW)).audit).toBe(3000);
    expect(await r.vacuum()).toBeGreaterThan(100);
    expect(await r.vacuum()).toBe(0);
  });
});

describe('on PostgreSQL', () => {
  const [, open] = STORES.find(([name]) => name === 'postgres') ?? [];

  it('a prune inside a transaction is part of it, and rolled back with it', async () => {
    const o = await open!();
    if (o.kind !== 'postgres') throw new Error('postgres expected');
    await seed(o);
    const before = await left(o);
    const client = await o.pool.connect();
    try {
      await client.query('BEGIN');
      expect(await new PgRetentionStore(on(client)).prune(CUTOFF, NOW)).toEqual(EXPECTED);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(await left(o)).toEqual(before);
  });

  it('takes any text as an instant without running it', async () => {
    const o = await open!();
    if (o.kind !== 'postgres') throw new Error('postgres expected');
    await seed(o);
    const r = new PgRetentionStore(on(o.pool));
    const hostile = "2027'; DROP TABLE audit; --\\' @now" as UtcIso;
    // Compared as text, it sorts after every instant: everything old enough goes.
    expect((await r.prune(hostile, NOW)).audit).toBe(2);
    expect(await sql(o, 'SELECT count(*) AS n FROM audit')).toEqual([{ n: 0 }]);
  });
});
