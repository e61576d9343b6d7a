/**
 * Subscriptions on PostgreSQL, with the methods of `SubscriptionStore` (`../subscriptions.ts`),
 * each answering a promise of what the SQLite one returns. The revision counter is bumped
 * by the schema's triggers, on every row inserted, updated or deleted, as on SQLite.
 */
import type { UtcIso } from '../../lib/time.js';
import { expectRow } from '../database.js';
import {
  type NewSubscription,
  SUBSCRIPTION_COLUMNS,
  type SubscriptionRow,
  type SubscriptionTableRow,
  subscriptionOfRow,
} from '../subscriptions.js';
import { type Connection, canBeId } from './queryable.js';

/** The `n` of a `COUNT(*) AS n` statement. */
async function countOf(db: Connection, sql: string, values: unknown[]): Promise<number> {
  const { rows } = await db().query<{ n: number }>(sql, values);
  return rows[0]?.n ?? 0;
}

/** Reads and writes `subscriptions` (see `SubscriptionStore`). */
export class PgSubscriptionStore {
  constructor(private readonly db: Connection) {}

  /** Stores a subscription; returns its id. */
  async add(s: NewSubscription): Promise<number> {
    const { rows } = await this.db().query<{ id: number }>(
      `INSERT INTO subscriptions (rule_json, target, source, channel, created_by, created_at, notice_id, workspace)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
      [
        JSON.stringify(s.rule),
        s.target,
        s.source,
        s.channel,
        s.created_by,
        s.created_at,
        s.notice_id,
        s.workspace ?? null,
      ],
    );
    return expectRow(rows[0], 'id of the new subscription').id;
  }

  async get(id: number): Promise<SubscriptionRow | undefined> {
    if (!canBeId(id)) return undefined;
    const { rows } = await this.db().query<SubscriptionTableRow>(
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE id = $1`,
      [id],
    );
    return rows[0] && subscriptionOfRow(rows[0]);
  }

  /** Every subscription, oldest first. */
  async all(): Promise<SubscriptionRow[]> {
    const { rows } = await this.db().query<SubscriptionTableRow>(
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions ORDER BY id`,
    );
    return rows.map(subscriptionOfRow);
  }

  /** The ids of the subscriptions in force (not paused), oldest first. */
  async idsInForce(): Promise<number[]> {
    const { rows } = await this.db().query<{ id: number }>(
      'SELECT id FROM subscriptions WHERE paused_at IS NULL ORDER BY id',
    );
    return rows.map((r) => r.id);
  }

  /** The subscriptions of a chat channel (`slack:C0GAS`), oldest first. */
  async byChannel(channel: string): Promise<SubscriptionRow[]> {
    const { rows } = await this.db().query<SubscriptionTableRow>(
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE channel = $1 ORDER BY id`,
      [channel],
    );
    return rows.map(subscriptionOfRow);
  }

  /** The subscriptions sending to one target (`slack_dm:U0ALICE`), oldest first. */
  async byTarget(target: string): Promise<SubscriptionRow[]> {
    const { rows } = await this.db().query<SubscriptionTableRow>(
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE target = $1 ORDER BY id`,
      [target],
    );
    return rows.map(subscriptionOfRow);
  }

  /** How many subscriptions a channel has. */
  async countByChannel(channel: string): Promise<number> {
    return countOf(this.db, 'SELECT COUNT(*) AS n FROM subscriptions WHERE channel = $1', [
      channel,
    ]);
  }

  /** How many channel subscriptions were made in a chat workspace (`slack:T0GAS`). */
  async countInWorkspace(workspace: string): Promise<number> {
    return countOf(
      this.db,
      'SELECT COUNT(*) AS n FROM subscriptions WHERE workspace = $1 AND channel IS NOT NULL',
      [workspace],
    );
  }

  /**
   * How many reminders of one person's target or of a chat workspace are still to come
   * (see `SubscriptionStore.countReminders`).
   */
  async countReminders(
    of: { target: string } | { workspace: string },
    now: UtcIso,
  ): Promise<number> {
    const [column, value] = 'target' in of ? ['target', of.target] : ['workspace', of.workspace];
    return countOf(
      this.db,
      `SELECT COUNT(*) AS n FROM subscriptions s WHERE ${column} = $1 AND channel IS NULL
       AND (notice_id IS NULL OR EXISTS (SELECT 1 FROM notices n
         WHERE n.id = s.notice_id AND n.response_at > $2))`,
      [value, now],
    );
  }

  /** Removes one; returns whether it existed. */
  async remove(id: number): Promise<boolean> {
    if (!canBeId(id)) return false;
    const result = await this.db().query('DELETE FROM subscriptions WHERE id = $1', [id]);
    return (result.rowCount ?? 0) > 0;
  }

  /** Pauses a channel's subscriptions that are not paused yet; returns how many. */
  async pauseChannel(channel: string, reason: string, now: UtcIso): Promise<number> {
    const result = await this.db().query(
      `UPDATE subscriptions SET paused_at = $1, paused_reason = $2
       WHERE channel = $3 AND paused_at IS NULL`,
      [now, reason, channel],
    );
    return result.rowCount ?? 0;
  }

  /** Resumes a channel's paused subscriptions; returns how many. */
  async resumeChannel(channel: string): Promise<number> {
    const result = await this.db().query(
      `UPDATE subscriptions SET paused_at = NULL, paused_reason = NULL
       WHERE channel = $1 AND paused_at IS NOT NULL`,
      [channel],
    );
    return result.rowCount ?? 0;
  }

  /** A number that changes with every change to any subscription, by any process or replica. */
  async revision(): Promise<number> {
    const { rows } = await this.db().query<{ n: number }>(
      "SELECT n FROM revisions WHERE name = 'subscriptions'",
    );
    return expectRow(rows[0], 'revision counter of subscriptions').n;
  }

  /** How many subscriptions there are, and how many of them are paused. */
  async counts(): Promise<{ total: number; paused: number }> {
    const { rows } = await this.db().query<{ total: number; paused: number }>(
      'SELECT COUNT(*) AS total, COUNT(paused_at) AS paused FROM subscriptions',
    );
    return rows[0] ?? { total: 0, paused: 0 };
  }
}
