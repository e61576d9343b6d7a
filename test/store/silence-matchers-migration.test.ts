/**
 * The migration that gives silence matchers their operators, on a database written
 * before it: each silence keeps holding back exactly what it did (an empty list still
 * nothing, no list anything), and one damaged before stays as it was, for reading it to
 * say so. Found by name, so that it does not depend on its number.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alertLabels } from '../../src/alerts/silence-matchers.js';
import { silenceMatches } from '../../src/alerts/silences.js';
import { type Target, targetKey } from '../../src/domain/targets.js';
import { DATABASE_FILE, openDatabase } from '../../src/store/database.js';
import { Store } from '../../src/store/index.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { StoredDataError } from '../../src/store/stored-json.js';
import { useTempDir } from '../support/temp-store.js';

const NAME = 'silence matchers as written, with their operators';

const temp = useTempDir('pipewatch-migration-silence-matchers-');

/** What a silence stored before matched, as pipewatch then judged it. */
function oldMatches(
  m: { pipelines?: string[]; targets?: string[]; rules?: string[] },
  rule: string,
  pipeline: string,
  target: Target,
): boolean {
  return (
    (!m.rules || m.rules.includes(rule)) &&
    (!m.pipelines || m.pipelines.includes(pipeline)) &&
    (!m.targets || m.targets.includes(targetKey(target)))
  );
}

describe('migration: silence matchers with operators', () => {
  it('turns each list into = matchers that hold back what the lists did', () => {
    const at = MIGRATIONS.findIndex((m) => m.name === NAME);
    expect(at).toBeGreaterThan(0);
    const db = openDatabase(join(temp.dir, DATABASE_FILE), MIGRATIONS.slice(0, at));
    const old = [
      { pipelines: ['transco', 'tgp'], targets: ['slack:C0GAS', 'slack:#gas'] },
      { rules: ['sub-1'] },
      { targets: ['email:ops@example.com'], rules: ['a', 'b'] },
      {},
      { pipelines: [] },
      { targets: ['webhook:https://hooks.example.com/T0/secret'], pipelines: ['anr'] },
    ];
    const add = db.prepare(
      `INSERT INTO silences (matchers_json, starts_at, ends_at, created_by, comment, created_at)
       VALUES (?, '2026-11-20T14:00:00Z', NULL, 'cli:ops', NULL, '2026-11-20T14:00:00Z')`,
    );
    for (const m of old) add.run(JSON.stringify(m));
    const damaged = Number(add.run('{"pipelines":"transco"}').lastInsertRowid);
    db.close();

    const store = Store.open(temp.dir);
    try {
      const rows = old.map((_, i) => store.silences.get(i + 1)!);
      expect(rows[0]!.matchers).toEqual([
        { key: 'pipeline', op: '=', value: 'transco' },
        { key: 'pipeline', op: '=', value: 'tgp' },
        { key: 'target', op: '=', value: 'slack:C0GAS' },
        { key: 'target', op: '=', value: 'slack:#gas' },
      ]);
      expect(rows[3]!.matchers).toEqual([]);
      const targets: Target[] = [
        { kind: 'slack', channel: 'C0GAS' },
        { kind: 'slack', channel: '#gas' },
        { kind: 'slack', channel: 'C0OPS' },
        { kind: 'email', to: ['ops@example.com'] },
        { kind: 'webhook', url: 'https://hooks.example.com/T0/secret' },
      ];
      let held = 0;
      let judged = 0;
      for (const [i, m] of old.entries())
        for (const rule of ['sub-1', 'a', 'b', 'c'])
          for (const pipeline of ['transco', 'tgp', 'anr'])
            for (const target of targets) {
              const was = oldMatches(m, rule, pipeline, target);
              held += was ? 1 : 0;
              judged++;
              expect(
                silenceMatches(rows[i]!, alertLabels(rule, pipeline, target)),
                `${JSON.stringify(m)} ${rule} ${pipeline} ${targetKey(target)}`,
              ).toBe(was);
            }
      expect(held).toBeGreaterThan(judged / 10);
      expect(held).toBeLessThan(judged / 2);
      expect(() => store.silences.get(damaged)).toThrow(StoredDataError);
    } finally {
      store.close();
    }
  });
});
