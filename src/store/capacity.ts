/**
 * Capacity cycles and their locations, keyed by the API's cycle id. Every cycle is kept,
 * for history and for "what changed since the last cycle" questions; a cycle the API sends
 * again with different content gets its locations replaced and a new version number.
 * `upsertCycle` decides whether what the API sent is new, an update or nothing new; that
 * decision is what the rest of pipewatch acts on.
 */
import { createHash } from 'node:crypto';
import type { UtcIso } from '../lib/time.js';
import type { CapacityCycleInfo, CapacityLocation } from '../upstream/schemas.js';
import { type Db, statement } from './database.js';

/** What an upsert found; only `new` and `updated` are worth telling anyone about. */
export type CycleChange = 'new' | 'updated' | 'unchanged';

/** The result of storing one cycle: its classification and the version now stored. */
export interface CycleUpsert {
  change: CycleChange;
  /** 1 for a new cycle; counts up with each change. */
  version: number;
}

/**
 * A stored cycle with pipewatch's bookkeeping. The table has no column for the API's
 * `pipeline_url`, so a stored cycle does not carry it; the pipelines table has the URL.
 */
export interface StoredCycle extends Omit<CapacityCycleInfo, 'pipeline_url'> {
  location_count: number;
  content_hash: string;
  version: number;
  first_seen_at: UtcIso;
  last_seen_at: UtcIso;
}

const CYCLE_FIELDS = [
  'id',
  'pipeline_id',
  'pipeline_name',
  'pipeline_slug',
  'pipeline_url',
  'identifier',
  'cycle',
  'gas_day',
  'service_created_at',
  'service_updated_at',
] as const satisfies readonly (keyof CapacityCycleInfo)[];

const LOCATION_FIELDS = [
  'id',
  'location',
  'identifier',
  'flow',
  'qti',
  'zone',
  'dc',
  'opc',
  'tsq',
  'oac',
  'it',
  'all',
  'reason',
  'service_created_at',
  'service_updated_at',
] as const satisfies readonly (keyof CapacityLocation)[];

/**
 * Rank of a cycle within its gas day, in posting order; unknown names rank first. Plain
 * SQL, shared with the PostgreSQL store so both order cycles alike.
 */
export const POSTING_RANK = `CASE cycle WHEN 'timely' THEN 1 WHEN 'evening' THEN 2 WHEN 'id1' THEN 3
  WHEN 'id2' THEN 4 WHEN 'id3' THEN 5 ELSE 0 END`;

/** Newest first: later gas day, then later in posting order, then the higher API id. */
export const NEWEST_FIRST = `gas_day DESC, ${POSTING_RANK} DESC, id DESC`;

/** One cycle's figures at one location, for a chart. */
export interface OacRow {
  gas_day: string;
  cycle: string;
  oac: number | null;
  opc: number | null;
}

/** The columns a `StoredCycle` is read from, on either database. */
export const STORED_COLUMNS = `id, pipeline_id, pipeline_name, pipeline_slug, identifier, cycle, gas_day,
  service_created_at, service_updated_at, location_count, content_hash, version, first_seen_at,
  last_seen_at`;

/** The columns a `CapacityLocation` is read from (`all` under its API name), on either database. */
export const LOCATION_COLUMNS = `id, location, identifier, flow, qti, zone, dc, opc, tsq, oac, it,
  all_available AS "all", reason, service_created_at, service_updated_at`;

/**
 * One location per id, the last one sent winning: the table's key is (cycle, location id),
 * and a cycle's content must not depend on the order the API listed its locations in.
 */
export function byLocationId(locations: readonly CapacityLocation[]): CapacityLocation[] {
  return [...new Map(locations.map((l) => [l.id, l])).values()].sort((a, b) => a.id - b.id);
}

/**
 * The hash that tells one version of a cycle from another: every field of the cycle and of
 * each location, locations in id order. JSON keeps `null`, `""` and numbers apart.
 */
export function cycleHash(
  cycle: CapacityCycleInfo,
  locations: readonly CapacityLocation[],
): string {
  const content = [
    CYCLE_FIELDS.map((f) => cycle[f]),
    byLocationId(locations).map((l) => LOCATION_FIELDS.map((f) => l[f])),
  ];
  return createHash('sha256').update(JSON.stringify(content)).digest('hex').slice(0, 32);
}

/** Reads and writes the `capacity_cycles` and `capacity_locations` tables. */
export class CapacityStore {
  private readonly selectMeta;
  private readonly insertCycle;
  private readonly updateCycle;
  private readonly touch;
  private readonly deleteLocations;
  private readonly insertLocation;
  private readonly selectHas;
  private readonly selectLatest;
  private readonly selectCycles;
  private readonly selectDayCycles;
  private readonly selectLocations;
  private readonly upsertTx;

  constructor(private readonly db: Db) {
    this.selectMeta = db.prepare<[number], { content_hash: string; version: number }>(
      'SELECT content_hash, version FROM capacity_cycles WHERE id = ?',
    );
    this.insertCycle = db.prepare(
      `INSERT INTO capacity_cycles (id, pipeline_id, pipeline_slug, pipeline_name, identifier, cycle,
         gas_day, service_created_at, service_updated_at, location_count, content_hash, version,
         first_seen_at, last_seen_at)
       VALUES (@id, @pipeline_id, @pipeline_slug, @pipeline_name, @identifier, @cycle, @gas_day,
         @service_created_at, @service_updated_at, @location_count, @content_hash, 1, @seen_at,
         @seen_at)`,
    );
    this.updateCycle = db.prepare(
      `UPDATE capacity_cycles SET pipeline_id = @pipeline_id, pipeline_slug = @pipeline_slug,
         pipeline_name = @pipeline_name, identifier = @identifier, cycle = @cycle, gas_day = @gas_day,
         service_created_at = @service_created_at, service_updated_at = @service_updated_at,
         location_count = @location_count, content_hash = @content_hash, version = version + 1,
         last_seen_at = @seen_at
       WHERE id = @id`,
    );
    this.touch = db.prepare('UPDATE capacity_cycles SET last_seen_at = ? WHERE id = ?');
    this.deleteLocations = db.prepare('DELETE FROM capacity_locations WHERE cycle_id = ?');
    this.insertLocation = db.prepare(
      `INSERT INTO capacity_locations (cycle_id, id, location, identifier, flow, qti, zone, dc, opc,
         tsq, oac, it, all_available, reason, service_created_at, service_updated_at)
       VALUES (@cycle_id, @id, @location, @identifier, @flow, @qti, @zone, @dc, @opc, @tsq, @oac,
         @it, @all, @reason, @service_created_at, @service_updated_at)`,
    );
    this.selectHas = db.prepare<[string, string, string], { one: number }>(
      'SELECT 1 AS one FROM capacity_cycles WHERE pipeline_slug = ? AND gas_day = ? AND cycle = ? LIMIT 1',
    );
    this.selectLatest = db.prepare<[string], StoredCycle>(
      `SELECT ${STORED_COLUMNS} FROM capacity_cycles WHERE pipeline_slug = ?
       ORDER BY ${NEWEST_FIRST} LIMIT 1`,
    );
    this.selectCycles = db.prepare<[string], StoredCycle>(
      `SELECT ${STORED_COLUMNS} FROM capacity_cycles WHERE pipeline_slug = ? ORDER BY ${NEWEST_FIRST}`,
    );
    this.selectDayCycles = db.prepare<[string, string], StoredCycle>(
      `SELECT ${STORED_COLUMNS} FROM capacity_cycles WHERE pipeline_slug = ? AND gas_day = ?
       ORDER BY ${NEWEST_FIRST}`,
    );
    this.selectLocations = db.prepare<[number], CapacityLocation>(
      `SELECT ${LOCATION_COLUMNS} FROM capacity_locations WHERE cycle_id = ? ORDER BY id`,
    );
    this.upsertTx = db.transaction(
      (
        cycle: CapacityCycleInfo,
        sent: readonly CapacityLocation[],
        seenAt: UtcIso,
      ): CycleUpsert => {
        const hash = cycleHash(cycle, sent);
        const known = this.selectMeta.get(cycle.id);
        if (known?.content_hash === hash) {
          this.touch.run(seenAt, cycle.id);
          return { change: 'unchanged', version: known.version };
        }
        const locations = byLocationId(sent);
        const row = {
          ...cycle,
          location_count: locations.length,
          content_hash: hash,
          seen_at: seenAt,
        };
        if (known) {
          this.updateCycle.run(row);
          this.deleteLocations.run(cycle.id);
        } else {
          this.insertCycle.run(row);
        }
        for (const l of locations) {
          this.insertLocation.run({ ...l, cycle_id: cycle.id });
        }
        return known
          ? { change: 'updated', version: known.version + 1 }
          : { change: 'new', version: 1 };
      },
    );
  }

  /**
   * Stores a cycle as the API sent it and classifies it: `new` (inserted with its
   * locations), `updated` (content changed: the row gets a new version and its locations
   * are replaced) or `unchanged` (only `last_seen_at` moves). Other cycles are never
   * touched. Atomic on its own; call it inside the transaction of whatever acts on the
   * result, so both land or neither does.
   */
  upsertCycle(
    cycle: CapacityCycleInfo,
    locations: readonly CapacityLocation[],
    seenAt: UtcIso,
  ): CycleUpsert {
    return this.upsertTx(cycle, locations, seenAt);
  }

  /** Whether a named cycle of a gas day is stored: a stored cycle is never fetched again. */
  has(pipelineSlug: string, gasDay: string, cycle: string): boolean {
    return this.selectHas.get(pipelineSlug, gasDay, cycle) !== undefined;
  }

  /** A pipeline's most recent stored cycle: the latest gas day, then the latest posted. */
  latest(pipelineSlug: string): StoredCycle | undefined {
    return this.selectLatest.get(pipelineSlug);
  }

  /** A pipeline's stored cycles (of one gas day when given), newest first, for history. */
  cycles(pipelineSlug: string, gasDay?: string): StoredCycle[] {
    return gasDay === undefined
      ? this.selectCycles.all(pipelineSlug)
      : this.selectDayCycles.all(pipelineSlug, gasDay);
  }

  /** A stored cycle's locations in the API's form (`all`, numeric quantities), by id. */
  locations(cycleId: number): CapacityLocation[] {
    return this.selectLocations.all(cycleId);
  }

  /**
   * The distinct locations (name and identifier) of a pipeline's cycles seen since
   * `since`: what a rule's location entries are checked against.
   */
  locationsSeenSince(
    pipelineSlug: string,
    since: UtcIso,
  ): Array<{ location: string; identifier: string }> {
    return statement<[string, string], { location: string; identifier: string }>(
      this.db,
      `SELECT DISTINCT l.location, l.identifier FROM capacity_cycles c
       JOIN capacity_locations l ON l.cycle_id = c.id
       WHERE c.pipeline_slug = ? AND c.last_seen_at >= ?`,
    ).all(pipelineSlug, since);
  }

  /**
   * One location's OAC and OPC in each stored cycle of the gas days `from` to `to`
   * (inclusive), oldest first, at most `limit` rows (the newest): what its chart is drawn
   * from. The location is named by its identifier, or by its name when it has none, as
   * capacity decisions name it.
   */
  oacHistory(
    pipelineSlug: string,
    location: string,
    from: string,
    to: string,
    limit: number,
  ): OacRow[] {
    return statement<[string, string, string, string, string, number], OacRow>(
      this.db,
      `SELECT c.gas_day, c.cycle, l.oac, l.opc FROM capacity_cycles c
       JOIN capacity_locations l ON l.cycle_id = c.id
       WHERE c.pipeline_slug = ? AND c.gas_day >= ? AND c.gas_day <= ?
         AND (l.identifier = ? OR (l.identifier = '' AND l.location = ?))
       ORDER BY c.gas_day DESC, ${POSTING_RANK} DESC, c.id DESC LIMIT ?`,
    )
      .all(pipelineSlug, from, to, location, location, limit)
      .reverse();
  }

  /** Number of stored cycles. */
  count(): number {
    return (
      statement<[], { n: number }>(this.db, 'SELECT count(*) AS n FROM capacity_cycles').get()?.n ??
      0
    );
  }
}
