/**
 * What every chat command looks up (a person's reminders by target, the counts against
 * the chat limits by person and by workspace) is found through an index, not a scan of
 * tables that hold thousands of subscriptions and silences on a busy install.
 */
import { describe, expect, it } from 'vitest';
import { useTempStore } from '../support/temp-store.js';

const temp = useTempStore('pipewatch-chat-lookups-');

function plan(sql: string): string {
  const rows = temp.store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('x') as Array<{
    detail: string;
  }>;
  return rows.map((r) => r.detail).join('\n');
}

describe('chat lookups', () => {
  it.each([
    ['SELECT * FROM subscriptions WHERE target = ? ORDER BY id', 'subscriptions_target'],
    [
      'SELECT COUNT(*) FROM subscriptions WHERE workspace = ? AND channel IS NOT NULL',
      'subscriptions_workspace',
    ],
    [
      'SELECT COUNT(*) FROM silences WHERE created_by = ? AND lifted_at IS NULL',
      'silences_created_by',
    ],
    [
      'SELECT COUNT(*) FROM silences WHERE workspace = ? AND lifted_at IS NULL',
      'silences_workspace',
    ],
  ])('%s searches %s', (sql, index) => {
    expect(plan(sql)).toMatch(new RegExp(`^SEARCH \\w+ USING (COVERING )?INDEX ${index} `));
  });
});
