/**
 * The requests from chat platforms answered lately, by key: Discord interactions by id,
 * Slack requests by signature and Slack events by event id (`frontends/replays.ts`). A
 * platform signs each request once; the same signed request arriving again is a replay,
 * refused instead of acted on twice. Keys are kept for as long as a signature's timestamp
 * is accepted, so that one window covers the other, and across restarts.
 */
import type { UtcIso } from '../lib/time.js';
import { type Db, statement } from './database.js';

/** Reads and writes `interactions`. */
export class InteractionStore {
  constructor(private readonly db: Db) {}

  /**
   * Records that the request `id` arrived at `at`; false when it had arrived before.
   * Forgets those that arrived before `forgetBefore`.
   */
  firstTime(id: string, at: UtcIso, forgetBefore: UtcIso): boolean {
    statement(this.db, 'DELETE FROM interactions WHERE at < ?').run(forgetBefore);
    return (
      statement(
        this.db,
        'INSERT INTO interactions (id, at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING',
      ).run(id, at).changes > 0
    );
  }
}
