/**
 * The migration that makes a removed subscription take its reminders and capacity state
 * with it, on a database written before it: what the subscriptions removed before left
 * behind goes (the 160,000 reminders left scheduled), what the others and the rule files
 * have stays. Found by name, so that it does not depend on its number.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE, openDatabase } from '../../src/store/database.js';
import { Store } from '../../src/store/index.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { useTempDir } from '../support/temp-store.js';

const NAME = 'reminders go with their subscription; what retention keeps of a removed notice';

const temp = useTempDir('pipewatch-migration-forget-');

describe('migration: reminders go with their subscription', () => {
  it('removes the reminders and capacity state of subscriptions removed before it', () => {
    const at = MIGRATIONS.findIndex((m) => m.name === NAME);
    expect(at).toBeGreaterThan(0);
    const db = openDatabase(join(temp.dir, DATABASE_FILE), MIGRATIONS.slice(0, at));
    const subscribe = db.prepare(
      `INSERT INTO subscriptions (rule_json, target, source, created_at)
       VALUES ('{}', 'slack_dm:U0ALICE', 'slack', '2026-11-20T15:00:00Z')`,
    );
    const kept = Number(subscribe.run().lastInsertRowid);
    const removed = Number(subscribe.run().lastInsertRowid);
    db.prepare('DELETE FROM subscriptions WHERE id = ?').run(removed);
    const remind = db.prepare(
      `INSERT INTO reminders (rule, notice_id, offset_ms, field, deadline_at, due_at, status, updated_at)
       VALUES (?, 7, 7200000, 'response_at', '2026-12-01T12:00:00Z', '2026-12-01T10:00:00Z', ?, '2026-11-20T15:00:00Z')`,
    );
    const state = db.prepare(
      `INSERT INTO capacity_state (rule, pipeline_slug, location, state, since, last_cycle)
       VALUES (?, 'transco', 'STATION 85', 'ok', '2026-11-20T15:00:00Z', '2026-11-20T15:00:00Z')`,
    );
    for (const rule of [`sub-${kept}`, `sub-${removed}`, 'deadlines']) {
      remind.run(rule, 'scheduled');
      state.run(rule);
    }
    remind.run(`sub-${removed}-not-a-subscription`, 'sent');
    db.close();

    const store = Store.open(temp.dir);
    expect(store.reminders.all().map((r) => r.rule)).toEqual([
      `sub-${kept}`,
      'deadlines',
      `sub-${removed}-not-a-subscription`,
    ]);
    const rules = store.db.prepare('SELECT rule FROM capacity_state ORDER BY rule').all();
    expect(rules).toEqual([{ rule: 'deadlines' }, { rule: `sub-${kept}` }]);
    store.close();
  });
});
