/**
 * Where a PostgreSQL repository's statements run. A repository is given a `Connection`,
 * a function it calls for each statement: the pool, or the client of the transaction
 * open in the caller's context, so that the statements of one transaction all go to one
 * client while every other call takes any connection of the pool. Repositories never
 * hold a client themselves.
 */
import type pg from 'pg';
import { DatabaseError } from '../database.js';

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
  const safe = withoutNul(q);
  return () => safe;
}

/** What stands for U+0000, which PostgreSQL text cannot hold: the replacement character. */
export const NUL_STAND_IN = '\uFFFD';

/**
 * A text PostgreSQL can store. It refuses U+0000 in text (SQLite keeps it), and in JSON
 * text cast to jsonb refuses the escape `\u0000` too; upstream text (a notice, a pipeline
 * name), an error message or a comment may hold either, and a write refused for it would
 * lose the whole row, or fail a sync. Each becomes U+FFFD (as its escape in the second
 * case): the one character changes, nothing else is lost.
 */
export function storableText(text: string): string {
  if (!text.includes('\0') && !text.includes('\\u0000')) return text;
  return text.replaceAll('\0', NUL_STAND_IN).replaceAll('\\u0000', '\\ufffd');
}

function storable(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storable);
  return value;
}

/** `q`, every text parameter made storable (`storableText`). */
export function withoutNul(q: Queryable): Queryable {
  return {
    query: (text, values) => q.query(text, values?.map(storable)),
  };
}

/**
 * `q` (a pool, or a transaction's client), each statement waiting `timeoutMs` at most
 * for its answer (none: as long as it takes). A statement the server never answers (a
 * network that silently lost the connection, a server gone without a word) would
 * otherwise wait until TCP gives up, a quarter of an hour, holding up whatever awaits
 * it; it fails instead, and its connection, whose answer may still come, is not used
 * again (the pool drops a client released with an error).
 */
export function bounded(q: pg.Pool | pg.ClientBase, timeoutMs: number | undefined): Queryable {
  if (timeoutMs === undefined) return q;
  return {
    query: async <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => {
      try {
        return await q.query<R>({ text, values, query_timeout: timeoutMs } as pg.QueryConfig);
      } catch (error) {
        if (!(error instanceof Error) || error.message !== 'Query read timeout') throw error;
        throw new DatabaseError(
          `the database did not answer within ${timeoutMs} ms: the statement was abandoned, and its connection will not be used again`,
          { cause: error },
        );
      }
    },
  };
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
