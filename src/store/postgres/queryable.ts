/**
 * Where a PostgreSQL repository's statements run. A repository is given a `Connection`,
 * a function it calls for each statement: the pool, or the client of the transaction
 * open in the caller's context, so that the statements of one transaction all go to one
 * client while every other call takes any connection of the pool. Repositories never
 * hold a client themselves.
 */
import type pg from 'pg';

/** What runs a statement: a pool, or one client. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>>;
}

/** The queryable for the statement about to run. */
export type Connection = () => Queryable;

/** A connection that always runs on `q` (a pool, for a repository used outside transactions). */
export function on(q: Queryable): Connection {
  return () => q;
}

/**
 * Whether `n` can be a row's id (a BIGINT, read back as a number): a safe integer. SQLite
 * finds no row for any other number (1.5, NaN, 1e20, as a chat message may give);
 * PostgreSQL refuses it as a BIGINT parameter, failing the statement. A repository answers
 * "none" for it without asking, as SQLite would.
 */
export function canBeId(n: number): boolean {
  return Number.isSafeInteger(n);
}
