/**
 * Subscriptions: rules made from chat or the command line rather than written in a rule
 * file. Each keeps its rule as the rule-file item a file would hold (without its name,
 * which is `sub-<id>`), so the one rule schema validates it when it is made and again
 * each time it is loaded; and where it came from, who made it and when, and whether it
 * is paused because its channel went away.
 */

import { z } from 'zod';
import type { UtcIso } from '../lib/time.js';
import { type Db, expectRow, statement } from './database.js';
import { parseStored } from './stored-json.js';

/** Where a subscription was made. */
export type SubscriptionSource = 'slack' | 'discord' | 'cli';

/** A row of `subscriptions`. */
export interface SubscriptionRow {
  id: number;
  /** The rule-file item without `name`: `{ "notices": {…}, "notify": [ … ] }`. */
  rule: Record<string, unknown>;
  /** The key of the one target it sends to (`slack:C0GAS`, `slack_dm:U0ALICE`). */
  target: string;
  source: SubscriptionSource;
  /** The chat channel it belongs to (`slack:C0GAS`); null for a direct reminder or the CLI. */
  channel: string | null;
  /** Who made it: a platform user id, or the CLI's user. */
  created_by: string | null;
  created_at: UtcIso;
  /** A reminder for one notice ("Remind me"): the notice. */
  notice_id: number | null;
  /** Set while paused: its channel is gone. */
  paused_at: UtcIso | null;
  paused_reason: string | null;
}

/** What makes a subscription. */
export type NewSubscription = Omit<SubscriptionRow, 'id' | 'paused_at' | 'paused_reason'> & {
  /** The chat workspace it was made in (`slack:T0GAS`), for the limits per workspace. */
  workspace?: string | null;
};

/** A subscription as its table holds it: its rule as JSON text. */
export interface SubscriptionTableRow extends Omit<SubscriptionRow, 'rule'> {
  rule_json: string;
}

/** The columns a `SubscriptionTableRow` is read from. */
export const SUBSCRIPTION_COLUMNS =
  'id, rule_json, target, source, channel, created_by, created_at, notice_id, paused_at, paused_reason';

/** A rule as stored: a JSON object, which the rule schema judges when it is loaded. */
const storedRule = z.record(z.string(), z.unknown());

/** A subscription read back from its table's row (`StoredDataError` for a rule that is no JSON object). */
export const subscriptionOfRow = (r: SubscriptionTableRow): SubscriptionRow => {
  const { rule_json, ...rest } = r;
  return { ...rest, rule: parseStored(storedRule, rule_json, `the rule of subscription ${r.id}`) };
};

/** Reads and writes `subscriptions`. */
export class SubscriptionStore {
  constructor(private readonly db: Db) {}

  /** Stores a subscription; returns its id. */
  add(s: NewSubscription): number {
    const result = statement(
      this.db,
      `INSERT INTO subscriptions (rule_json, target, source, channel, created_by, created_at, notice_id, workspace)
       VALUES (@rule_json, @target, @source, @channel, @created_by, @created_at, @notice_id, @workspace)`,
    ).run({
      target: s.target,
      source: s.source,
      channel: s.channel,
      created_by: s.created_by,
      created_at: s.created_at,
      notice_id: s.notice_id,
      rule_json: JSON.stringify(s.rule),
      workspace: s.workspace ?? null,
    });
    return Number(result.lastInsertRowid);
  }

  get(id: number): SubscriptionRow | undefined {
    const row = statement<[number], SubscriptionTableRow>(
      this.db,
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE id = ?`,
    ).get(id);
    return row && subscriptionOfRow(row);
  }

  /** Every subscription, oldest first. */
  all(): SubscriptionRow[] {
    return statement<[], SubscriptionTableRow>(
      this.db,
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions ORDER BY id`,
    )
      .all()
      .map(subscriptionOfRow);
  }

  /** The ids of the subscriptions in force (not paused), oldest first. */
  idsInForce(): number[] {
    return statement<[], { id: number }>(
      this.db,
      'SELECT id FROM subscriptions WHERE paused_at IS NULL ORDER BY id',
    )
      .all()
      .map((r) => r.id);
  }

  /** The subscriptions of a chat channel (`slack:C0GAS`), oldest first. */
  byChannel(channel: string): SubscriptionRow[] {
    return statement<[string], SubscriptionTableRow>(
      this.db,
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE channel = ? ORDER BY id`,
    )
      .all(channel)
      .map(subscriptionOfRow);
  }

  /** The subscriptions sending to one target (`slack_dm:U0ALICE`), oldest first. */
  byTarget(target: string): SubscriptionRow[] {
    return statement<[string], SubscriptionTableRow>(
      this.db,
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE target = ? ORDER BY id`,
    )
      .all(target)
      .map(subscriptionOfRow);
  }

  /** How many subscriptions a channel has. */
  countByChannel(channel: string): number {
    return (
      statement<[string], { n: number }>(
        this.db,
        'SELECT COUNT(*) AS n FROM subscriptions WHERE channel = ?',
      ).get(channel)?.n ?? 0
    );
  }

  /** How many channel subscriptions were made in a chat workspace (`slack:T0GAS`). */
  countInWorkspace(workspace: string): number {
    return (
      statement<[string], { n: number }>(
        this.db,
        'SELECT COUNT(*) AS n FROM subscriptions WHERE workspace = ? AND channel IS NOT NULL',
      ).get(workspace)?.n ?? 0
    );
  }

  /**
   * How many reminders (subscriptions sent to a person, not to a channel) of one person's
   * target (`slack_dm:U0ALICE`) or of a chat workspace are still to come: a reminder for
   * one notice ("Remind me") whose response deadline has passed, or whose notice is no
   * longer stored, has nothing left to remind of and does not count.
   */
  countReminders(of: { target: string } | { workspace: string }, now: UtcIso): number {
    const [column, value] = 'target' in of ? ['target', of.target] : ['workspace', of.workspace];
    return (
      statement<[string, string], { n: number }>(
        this.db,
        `SELECT COUNT(*) AS n FROM subscriptions s WHERE ${column} = ? AND channel IS NULL
         AND (notice_id IS NULL OR EXISTS (SELECT 1 FROM notices n
           WHERE n.id = s.notice_id AND n.response_at > ?))`,
      ).get(value, now)?.n ?? 0
    );
  }

  /** Removes one; returns whether it existed. */
  remove(id: number): boolean {
    return statement(this.db, 'DELETE FROM subscriptions WHERE id = ?').run(id).changes > 0;
  }

  /** Pauses a channel's subscriptions that are not paused yet; returns how many. */
  pauseChannel(channel: string, reason: string, now: UtcIso): number {
    return statement(
      this.db,
      `UPDATE subscriptions SET paused_at = ?, paused_reason = ?
       WHERE channel = ? AND paused_at IS NULL`,
    ).run(now, reason, channel).changes;
  }

  /** Resumes a channel's paused subscriptions; returns how many. */
  resumeChannel(channel: string): number {
    return statement(
      this.db,
      `UPDATE subscriptions SET paused_at = NULL, paused_reason = NULL
       WHERE channel = ? AND paused_at IS NOT NULL`,
    ).run(channel).changes;
  }

  /** A number that changes with every change to any subscription, by any process. */
  revision(): number {
    const row = statement<[], { n: number }>(
      this.db,
      "SELECT n FROM revisions WHERE name = 'subscriptions'",
    ).get();
    return expectRow(row, 'revision counter of subscriptions').n;
  }

  /** How many subscriptions there are, and how many of them are paused. */
  counts(): { total: number; paused: number } {
    return (
      statement<[], { total: number; paused: number }>(
        this.db,
        `SELECT COUNT(*) AS total, COUNT(paused_at) AS paused FROM subscriptions`,
      ).get() ?? { total: 0, paused: 0 }
    );
  }
}
