/**
 * The replicas sharing a PostgreSQL database, as each last reported itself: for
 * `pipewatch status`, which lists those seen in the last 5 minutes with their role and
 * last heartbeat. Each replica's lease (`lease.ts`) reports it at every turn, on the
 * database's clock; one stopped cleanly leaves the list, and one not heard of for a day
 * is forgotten.
 */
import type pg from 'pg';

/** What a replica is: the leader, which polls, decides and sends, or a standby. */
export type Role = 'leader' | 'standby';

/** Who a replica is: its id (the lease's holder), host and process. */
export interface ReplicaIdentity {
  id: string;
  host: string;
  pid: number;
}

/** A replica as `pipewatch status` lists it. */
export interface Replica extends ReplicaIdentity {
  role: Role;
  startedAt: Date;
  lastSeenAt: Date;
  /** How long ago it was last heard of, on the database's clock (the replicas' may differ). */
  silentMs: number;
}

/** How long a replica not heard of is listed; PRODUCT.md: the last 5 minutes. */
export const REPLICAS_SEEN_MS = 5 * 60_000;

/**
 * Records that `replica` is alive in `role`, now; waiting `timeoutMs` at most for the
 * answer (the lease's bound: a heartbeat never answered must not hold up the lease).
 */
export async function heartbeat(
  pool: pg.Pool,
  replica: ReplicaIdentity,
  role: Role,
  timeoutMs?: number,
): Promise<void> {
  await pool.query({
    text: `WITH forgotten AS (DELETE FROM replicas WHERE last_seen_at < now() - interval '1 day')
     INSERT INTO replicas (id, host, pid, role, started_at, last_seen_at)
     VALUES ($1, $2, $3, $4, now(), now())
     ON CONFLICT (id) DO UPDATE SET role = excluded.role, last_seen_at = now()`,
    values: [replica.id, replica.host, replica.pid, role],
    ...(timeoutMs === undefined ? {} : { query_timeout: timeoutMs }),
  } as pg.QueryConfig);
}

/** Takes a replica that stops off the list, waiting `timeoutMs` at most. */
export async function removeReplica(pool: pg.Pool, id: string, timeoutMs?: number): Promise<void> {
  await pool.query({
    text: 'DELETE FROM replicas WHERE id = $1',
    values: [id],
    ...(timeoutMs === undefined ? {} : { query_timeout: timeoutMs }),
  } as pg.QueryConfig);
}

/** The replicas heard of within `withinMs`, the most recently heard first. */
export async function listReplicas(
  pool: pg.Pool,
  withinMs: number = REPLICAS_SEEN_MS,
): Promise<Replica[]> {
  const { rows } = await pool.query<{
    id: string;
    host: string;
    pid: number;
    role: Role;
    started_at: Date;
    last_seen_at: Date;
    silent_ms: number;
  }>(
    `SELECT id, host, pid, role, started_at, last_seen_at,
       greatest(0, round(extract(epoch FROM now() - last_seen_at) * 1000))::bigint AS silent_ms
     FROM replicas
     WHERE last_seen_at >= now() - $1 * interval '1 millisecond'
     ORDER BY last_seen_at DESC, id`,
    [withinMs],
  );
  return rows.map((r) => ({
    id: r.id,
    host: r.host,
    pid: r.pid,
    role: r.role,
    startedAt: r.started_at,
    lastSeenAt: r.last_seen_at,
    silentMs: r.silent_ms,
  }));
}
