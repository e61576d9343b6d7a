/**
 * Migration 10 on a database written before it: each delivery's key splits into its
 * rule, subject and target, and reads back the same (webhook delivery ids, email
 * Message-IDs and Discord nonces are made from it); what was decided stays decided; a
 * key that does not split is kept whole; and deliveries are found by subject through the
 * index that keeps them unique.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deliveryId } from '../../src/channels/webhook/render.js';
import type { Target } from '../../src/domain/targets.js';
import { DATABASE_FILE, openDatabase } from '../../src/store/database.js';
import { Store } from '../../src/store/index.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { useTempDir } from '../support/temp-store.js';

const temp = useTempDir('pipewatch-migration-10-');

const AT = '2026-11-20T15:00:00Z';
const GAS: Target = { kind: 'slack', channel: '#gas' };
const HOOK: Target = { kind: 'webhook', url: 'https://hooks.example.com/a|b' };

/** Rows as pipewatch wrote them before migration 10, keyed rule|subject|target. */
const OLD_ROWS = [
  {
    key: 'constraints|notice:101:v1|slack:#gas',
    rule: 'constraints',
    target: 'slack:#gas',
    target_json: JSON.stringify(GAS),
    status: 'sent',
  },
  {
    // A target with '|' in it, and a subject with ':' and spaces.
    key: 'oac|capacity:transco:STATION 85|webhook:https://hooks.example.com/a|b',
    rule: 'oac',
    target: 'webhook:https://hooks.example.com/a|b',
    target_json: JSON.stringify(HOOK),
    status: 'pending',
  },
  {
    // Not rule|subject|target: only a hand-edited database has one.
    key: 'k',
    rule: 'rule',
    target: 'webhook:x',
    target_json: '{"kind":"webhook","url":"x"}',
    status: 'dead',
  },
];

function writeOldDatabase() {
  const db = openDatabase(join(temp.dir, DATABASE_FILE), MIGRATIONS.slice(0, 9));
  const insert = db.prepare(
    `INSERT INTO outbox (key, rule, target, target_json, payload, status, next_attempt_at, created_at)
     VALUES (@key, @rule, @target, @target_json, '{"kind":"notice"}', @status, @at, @at)`,
  );
  for (const row of OLD_ROWS) insert.run({ ...row, at: AT });
  db.close();
}

describe('migration 10', () => {
  it('keeps every key pipewatch made, so their delivery ids, and what was decided', () => {
    writeOldDatabase();
    const store = Store.open(temp.dir);
    try {
      const rows = store.outbox.forSubject('');
      const made = OLD_ROWS.slice(0, 2).map((r) => r.key);
      expect(rows.map((r) => r.key)).toEqual([...made, 'rule|k|webhook:x']);
      expect(rows.slice(0, 2).map((r) => deliveryId(r.key))).toEqual(made.map(deliveryId));
      expect(rows.map((r) => r.subject)).toEqual([
        'notice:101:v1',
        'capacity:transco:STATION 85',
        'k',
      ]);
      // Decided before the migration, decided still.
      expect(store.outbox.enqueue('notice:101:v1', 'constraints', GAS, '{}', AT)).toBe(false);
      expect(store.outbox.has('capacity:transco:STATION 85', 'oac', HOOK)).toBe(true);
      expect(store.outbox.enqueue('capacity:transco:STATION 85', 'oac', HOOK, '{}', AT)).toBe(
        false,
      );
      expect(store.outbox.enqueue('notice:102:v1', 'constraints', GAS, '{}', AT)).toBe(true);
    } finally {
      store.close();
    }
  });

  it('finds deliveries by subject through the unique index, not a scan', () => {
    const store = Store.open(temp.dir);
    try {
      const plan = store.db
        .prepare(
          "EXPLAIN QUERY PLAN SELECT * FROM outbox WHERE subject >= 'notice:1:' AND subject < 'notice:1;' ORDER BY id",
        )
        .all() as Array<{ detail: string }>;
      expect(plan.map((p) => p.detail).join('\n')).toMatch(
        /SEARCH outbox USING INDEX sqlite_autoindex_outbox_1 \(subject>\? AND subject<\?\)/,
      );
      const indexes = store.db
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'outbox'")
        .all();
      expect(indexes).toEqual([{ name: 'sqlite_autoindex_outbox_1' }, { name: 'outbox_due' }]);
    } finally {
      store.close();
    }
  });

  it('gives a subject prefix exactly the subjects that start with it', () => {
    const store = Store.open(temp.dir);
    try {
      const subjects = [
        'notice:1:v1',
        'notice:1:v2',
        'notice:10:v1',
        'notice:1;',
        'notice:1',
        'capacity:gulf_south:x',
        'capacity:gulfXsouth:x',
        'capacity:100%:x',
        'é\u{10FFFF}a',
        'é\u{10FFFF}',
        'ê',
        '\uD7FFx',
        '\uE000',
      ];
      for (const s of subjects) store.outbox.enqueue(s, 'r', GAS, '{}', AT);
      const find = (prefix: string) => store.outbox.forSubject(prefix).map((r) => r.subject);
      expect(find('notice:1:')).toEqual(['notice:1:v1', 'notice:1:v2']);
      expect(find('capacity:gulf_south:')).toEqual(['capacity:gulf_south:x']);
      expect(find('capacity:100%')).toEqual(['capacity:100%:x']);
      expect(find('é\u{10FFFF}')).toEqual(['é\u{10FFFF}a', 'é\u{10FFFF}']);
      expect(find('\uD7FF')).toEqual(['\uD7FFx']);
      expect(find('')).toHaveLength(subjects.length);
    } finally {
      store.close();
    }
  });
});
