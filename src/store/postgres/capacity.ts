/**
 * Capacity cycles and their locations, on PostgreSQL, with the methods of `CapacityStore`
 * (`../capacity.ts`), each answering a promise of what the SQLite one returns: the same
 * content hash, the same one location per id, the same classification and versions.
 *
 * `upsertCycle` is one statement whatever the cycle turns out to be: new, updated or
 * unchanged. A repository holds no client and so opens no transaction of its own, and one
 * statement is atomic on its own, as SQLite's transaction made the upsert; it is also one
 * round trip. The locations (hundreds a cycle) go as one array a column, spread into rows
 * by `unnest`, so the statement's text and its number of parameters do not grow with them.
 */
import type { UtcIso } from '../../lib/time.js';
import type { CapacityCycleInfo, CapacityLocation } from '../../upstream/schemas.js';
import {
  byLocationId,
  type CycleUpsert,
  cycleHash,
  LOCATION_COLUMNS,
  NEWEST_FIRST,
  type OacRow,
  POSTING_RANK,
  STORED_COLUMNS,
  type StoredCycle,
} from '../capacity.js';
import { expectRow } from '../database.js';
import { type Connection, canBeId } from './queryable.js';

/** Each stored location column, the field of `CapacityLocation` it holds, and its array type. */
const LOCATION_ARRAYS = [
  ['id', 'id', 'bigint'],
  ['location', 'location', 'text'],
  ['identifier', 'identifier', 'text'],
  ['flow', 'flow', 'text'],
  ['qti', 'qti', 'text'],
  ['zone', 'zone', 'text'],
  ['dc', 'dc', 'double precision'],
  ['opc', 'opc', 'double precision'],
  ['tsq', 'tsq', 'double precision'],
  ['oac', 'oac', 'double precision'],
  ['it', 'it', 'text'],
  ['all_available', 'all', 'text'],
  ['reason', 'reason', 'text'],
  ['service_created_at', 'service_created_at', 'text'],
  ['service_updated_at', 'service_updated_at', 'text'],
] as const satisfies readonly (readonly [string, keyof CapacityLocation, string])[];

/** The cycle's own parameters, `$1` to `$12`, in this order. */
const CYCLE_VALUES = 12;

const COLUMNS = LOCATION_ARRAYS.map(([column]) => column).join(', ');
const ARRAYS = LOCATION_ARRAYS.map(([, , type], i) => `$${CYCLE_VALUES + 1 + i}::${type}[]`).join(
  ', ',
);
const REPLACED = LOCATION_ARRAYS.filter(([column]) => column !== 'id')
  .map(([column]) => `${column} = excluded.${column}`)
  .join(', ');

/**
 * The upsert, in one statement. `touched`: the cycle is stored with this content hash, so
 * only `last_seen_at` moves. Otherwise `written` inserts it at version 1, or updates it
 * and counts its version up; then its locations are replaced: those no longer sent are
 * deleted and the others inserted or overwritten (rows apart, as one statement needs: it
 * cannot delete a row and insert its key again). The result is one row, the change and
 * the version.
 */
const UPSERT = `WITH touched AS (
    UPDATE capacity_cycles SET last_seen_at = $12 WHERE id = $1::bigint AND content_hash = $11
    RETURNING version
  ), written AS (
    INSERT INTO capacity_cycles (id, pipeline_id, pipeline_slug, pipeline_name, identifier, cycle,
      gas_day, service_created_at, service_updated_at, location_count, content_hash, version,
      first_seen_at, last_seen_at)
    SELECT $1, $2::bigint, $3, $4, $5, $6, $7, $8, $9, $10::bigint, $11, 1, $12, $12
    WHERE NOT EXISTS (SELECT 1 FROM touched)
    ON CONFLICT (id) DO UPDATE SET pipeline_id = excluded.pipeline_id,
      pipeline_slug = excluded.pipeline_slug, pipeline_name = excluded.pipeline_name,
      identifier = excluded.identifier, cycle = excluded.cycle, gas_day = excluded.gas_day,
      service_created_at = excluded.service_created_at,
      service_updated_at = excluded.service_updated_at, location_count = excluded.location_count,
      content_hash = excluded.content_hash, version = capacity_cycles.version + 1,
      last_seen_at = excluded.last_seen_at
    RETURNING version
  ), gone AS (
    DELETE FROM capacity_locations
    WHERE cycle_id = $1 AND EXISTS (SELECT 1 FROM written) AND id <> ALL ($13::bigint[])
  ), put AS (
    INSERT INTO capacity_locations (cycle_id, ${COLUMNS})
    SELECT $1, * FROM unnest(${ARRAYS}) WHERE EXISTS (SELECT 1 FROM written)
    ON CONFLICT (cycle_id, id) DO UPDATE SET ${REPLACED}
  )
  SELECT 'unchanged' AS change, version FROM touched
  UNION ALL
  SELECT CASE WHEN version = 1 THEN 'new' ELSE 'updated' END, version FROM written`;

/** A quantity as SQLite keeps it: NaN (which SQLite stores as NULL) is null, not PostgreSQL's NaN. */
function quantity(value: unknown): unknown {
  return typeof value === 'number' && Number.isNaN(value) ? null : value;
}

/** Reads and writes `capacity_cycles` and `capacity_locations` (see `CapacityStore`). */
export class PgCapacityStore {
  constructor(private readonly db: Connection) {}

  /**
   * Stores a cycle as the API sent it and classifies it (see `CapacityStore.upsertCycle`):
   * one statement, so atomic on its own; inside the transaction of whatever acts on the
   * result, both land or neither does.
   */
  async upsertCycle(
    cycle: CapacityCycleInfo,
    locations: readonly CapacityLocation[],
    seenAt: UtcIso,
  ): Promise<CycleUpsert> {
    const hash = cycleHash(cycle, locations);
    const rows = byLocationId(locations);
    const { rows: result } = await this.db().query<CycleUpsert>(UPSERT, [
      cycle.id,
      cycle.pipeline_id,
      cycle.pipeline_slug,
      cycle.pipeline_name,
      cycle.identifier,
      cycle.cycle,
      cycle.gas_day,
      cycle.service_created_at,
      cycle.service_updated_at,
      rows.length,
      hash,
      seenAt,
      ...LOCATION_ARRAYS.map(([, field]) => rows.map((l) => quantity(l[field]))),
    ]);
    return expectRow(result[0], `outcome of the upsert of capacity cycle ${cycle.id}`);
  }

  /** Whether a named cycle of a gas day is stored: a stored cycle is never fetched again. */
  async has(pipelineSlug: string, gasDay: string, cycle: string): Promise<boolean> {
    const { rowCount } = await this.db().query(
      'SELECT 1 FROM capacity_cycles WHERE pipeline_slug = $1 AND gas_day = $2 AND cycle = $3 LIMIT 1',
      [pipelineSlug, gasDay, cycle],
    );
    return (rowCount ?? 0) > 0;
  }

  /** A pipeline's most recent stored cycle: the latest gas day, then the latest posted. */
  async latest(pipelineSlug: string): Promise<StoredCycle | undefined> {
    const { rows } = await this.db().query<StoredCycle>(
      `SELECT ${STORED_COLUMNS} FROM capacity_cycles WHERE pipeline_slug = $1
       ORDER BY ${NEWEST_FIRST} LIMIT 1`,
      [pipelineSlug],
    );
    return rows[0];
  }

  /** A pipeline's stored cycles (of one gas day when given), newest first, for history. */
  async cycles(pipelineSlug: string, gasDay?: string): Promise<StoredCycle[]> {
    const { rows } = await this.db().query<StoredCycle>(
      `SELECT ${STORED_COLUMNS} FROM capacity_cycles
       WHERE pipeline_slug = $1 AND ($2::text IS NULL OR gas_day = $2)
       ORDER BY ${NEWEST_FIRST}`,
      [pipelineSlug, gasDay ?? null],
    );
    return rows;
  }

  /** A stored cycle's locations in the API's form (`all`, numeric quantities), by id. */
  async locations(cycleId: number): Promise<CapacityLocation[]> {
    if (!canBeId(cycleId)) return [];
    const { rows } = await this.db().query<CapacityLocation>(
      `SELECT ${LOCATION_COLUMNS} FROM capacity_locations WHERE cycle_id = $1 ORDER BY id`,
      [cycleId],
    );
    return rows;
  }

  /**
   * The distinct locations (name and identifier) of a pipeline's cycles seen since
   * `since`: what a rule's location entries are checked against. By name, then
   * identifier, where SQLite gives them in the order it met them; nothing depends on it.
   */
  async locationsSeenSince(
    pipelineSlug: string,
    since: UtcIso,
  ): Promise<Array<{ location: string; identifier: string }>> {
    const { rows } = await this.db().query<{ location: string; identifier: string }>(
      `SELECT DISTINCT l.location, l.identifier FROM capacity_cycles c
       JOIN capacity_locations l ON l.cycle_id = c.id
       WHERE c.pipeline_slug = $1 AND c.last_seen_at >= $2
       ORDER BY l.location, l.identifier`,
      [pipelineSlug, since],
    );
    return rows;
  }

  /**
   * One location's OAC and OPC in each stored cycle of the gas days `from` to `to`
   * (inclusive), oldest first, at most `limit` rows (the newest; a negative `limit` is
   * none, as SQLite's LIMIT takes it). See `CapacityStore.oacHistory`.
   */
  async oacHistory(
    pipelineSlug: string,
    location: string,
    from: string,
    to: string,
    limit: number,
  ): Promise<OacRow[]> {
    const { rows } = await this.db().query<OacRow>(
      `SELECT c.gas_day, c.cycle, l.oac, l.opc FROM capacity_cycles c
       JOIN capacity_locations l ON l.cycle_id = c.id
       WHERE c.pipeline_slug = $1 AND c.gas_day >= $2 AND c.gas_day <= $3
         AND (l.identifier = $4 OR (l.identifier = '' AND l.location = $4))
       ORDER BY c.gas_day DESC, ${POSTING_RANK} DESC, c.id DESC LIMIT $5`,
      [pipelineSlug, from, to, location, limit < 0 ? null : limit],
    );
    return rows.reverse();
  }

  /** Number of stored cycles. */
  async count(): Promise<number> {
    const { rows } = await this.db().query<{ n: number }>(
      'SELECT count(*) AS n FROM capacity_cycles',
    );
    return rows[0]?.n ?? 0;
  }
}
