/**
 * The small repositories of what chat and links leave behind, on PostgreSQL, with the
 * methods of their SQLite counterparts (`acks.ts`, `keys.ts`, `interactions.ts`), each
 * answering a promise of what the SQLite one returns.
 */
import type { UtcIso } from '../../lib/time.js';
import type { AckRow } from '../acks.js';
import { expectRow } from '../database.js';
import type { Connection } from './queryable.js';

/** Reads and writes `acks` (see `AckStore`). */
export class PgAckStore {
  constructor(private readonly db: Connection) {}

  /** Records that `by` acknowledged a message, unless someone did first. */
  async acknowledge(
    platform: string,
    channel: string,
    message: string,
    by: string,
    at: UtcIso,
  ): Promise<AckRow & { already: boolean }> {
    const inserted = await this.db().query(
      `INSERT INTO acks (platform, channel, message, by, at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (platform, channel, message) DO NOTHING`,
      [platform, channel, message, by, at],
    );
    if (inserted.rowCount) return { by, at, already: false };
    const row = await this.of(platform, channel, message);
    return {
      ...expectRow(row, `acknowledgement of ${platform} message ${message}`),
      already: true,
    };
  }

  /** Who acknowledged a message, and when; undefined while nobody has. */
  async of(platform: string, channel: string, message: string): Promise<AckRow | undefined> {
    const { rows } = await this.db().query<AckRow>(
      'SELECT by, at FROM acks WHERE platform = $1 AND channel = $2 AND message = $3',
      [platform, channel, message],
    );
    return rows[0];
  }
}

/** Reads and writes `keys` (see `KeyStore`). */
export class PgKeyStore {
  constructor(private readonly db: Connection) {}

  /** The key named `name`, made by `make` and stored when there is none yet; the first write wins. */
  async getOrCreate(name: string, make: () => string, at: UtcIso): Promise<string> {
    const read = async () =>
      (await this.db().query<{ value: string }>('SELECT value FROM keys WHERE name = $1', [name]))
        .rows[0]?.value;
    const known = await read();
    if (known !== undefined) return known;
    await this.db().query(
      'INSERT INTO keys (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING',
      [name, make(), at],
    );
    return expectRow(await read(), `key ${name}`);
  }
}

/** Reads and writes `interactions` (see `InteractionStore`). */
export class PgInteractionStore {
  constructor(private readonly db: Connection) {}

  /** Records that request `id` arrived at `at`; false when it had arrived before. */
  async firstTime(id: string, at: UtcIso, forgetBefore: UtcIso): Promise<boolean> {
    await this.db().query('DELETE FROM interactions WHERE at < $1', [forgetBefore]);
    const inserted = await this.db().query(
      'INSERT INTO interactions (id, at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING',
      [id, at],
    );
    return (inserted.rowCount ?? 0) > 0;
  }
}
