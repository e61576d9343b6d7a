/**
 * JSON the store keeps in a column, damaged in the real SQLite file (cut short, or of a
 * shape pipewatch never writes there) and read back: an error naming the row, the column
 * and what is wrong, where a cast used to let the damage through to fail far away; and
 * the alerts a silence held back, summed up when it ends, counting the one that cannot
 * be read and listing the others.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AlertEngine } from '../../src/alerts/engine.js';
import { heldAlert } from '../../src/alerts/silences.js';
import type { Target } from '../../src/domain/targets.js';
import { silentLogger } from '../../src/lib/logger.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import { StoredDataError } from '../../src/store/stored-json.js';
import { noticeAlert } from '../fakes/alerts.js';
import { ManualClock } from '../support/clock.js';
import { listMatchers } from '../support/silence-matchers.js';
import { useTempStore } from '../support/temp-store.js';

const temp = useTempStore('pipewatch-stored-json-');
const NOW = '2026-11-20T15:00:00Z';
const GAS: Target = { kind: 'slack', channel: '#gas' };

/** Runs `sql` on the store's own database, as a damaged disk or a hand might. */
const damage = (sql: string, ...params: unknown[]) => temp.store.db.prepare(sql).run(...params);

function addSilence(endsAt: string | null = '2026-11-20T16:00:00Z'): number {
  return temp.store.silences.add({
    matchers: listMatchers({ pipelines: ['transco'] }),
    starts_at: '2026-11-20T14:00:00Z',
    ends_at: endsAt,
    created_by: 'slack:U0ALICE',
    comment: null,
    created_at: '2026-11-20T14:00:00Z',
  });
}

describe('a value damaged in its column', () => {
  it("a silence's matchers of another shape: an error naming the silence and the field", () => {
    const id = addSilence();
    damage(
      'UPDATE silences SET matchers_json = ? WHERE id = ?',
      '[{"key":"pipelines","op":"=","value":"transco"}]',
      id,
    );
    expect(() => temp.store.silences.active(NOW)).toThrow(StoredDataError);
    expect(() => temp.store.silences.active(NOW)).toThrow(
      `the database holds the matchers of silence ${id}, which is not what pipewatch stores there: [0].key: `,
    );
  });

  it("a subscription's rule cut short: an error naming the subscription", () => {
    const id = temp.store.subscriptions.add({
      rule: { notices: { pipelines: ['transco'] }, notify: [{ slack: '#gas' }] },
      target: 'slack:#gas',
      source: 'slack',
      channel: 'slack:#gas',
      created_by: 'U0ALICE',
      created_at: NOW,
      notice_id: null,
    });
    damage('UPDATE subscriptions SET rule_json = substr(rule_json, 1, 12) WHERE id = ?', id);
    expect(() => temp.store.subscriptions.all()).toThrow(
      `the database holds the rule of subscription ${id}, which is not JSON (`,
    );
  });

  it('a thread reference that is not an object of strings: an error naming it', () => {
    temp.store.threads.set('slack:#gas', 'notice:101', { channel: 'C0GAS', ts: '1.2' });
    damage(`UPDATE threads SET ref = '{"channel":"C0GAS","ts":1.2}'`);
    expect(() => temp.store.threads.get('slack:#gas', 'notice:101')).toThrow(
      'the database holds the thread reference of notice:101 at slack:#gas, which is not what pipewatch stores there: ts: ',
    );
  });

  it("a feed's cursor of another shape: an error naming the feed", () => {
    temp.store.syncState.setCursor('notices', { syncs: 3 });
    expect(temp.store.syncState.cursor('notices', z.object({ syncs: z.number() }))).toEqual({
      syncs: 3,
    });
    damage(`UPDATE sync_state SET cursor = '{"syncs":"three"}'`);
    expect(() => temp.store.syncState.cursor('notices', z.object({ syncs: z.number() }))).toThrow(
      'the database holds the cursor of notices, which is not what pipewatch stores',
    );
  });
});

describe('the alerts a silence held back', () => {
  it('one that cannot be read back is counted in the summary, the others listed', async () => {
    const clock = new ManualClock(NOW);
    const engine = new AlertEngine(
      { store: asyncStoreOf(temp.store), clock, logger: silentLogger, maxAlertAgeMs: 86_400_000 },
      [],
    );
    const id = addSilence('2026-11-20T15:30:00Z');
    for (const n of [1, 2, 3]) {
      const alert = noticeAlert({ id: n, subject: `Notice ${n}` });
      temp.store.silences.hold(`rule|notice:${n}:v1|slack:#gas`, {
        silence_id: id,
        rule: 'rule',
        target: GAS,
        targetKey: 'slack:#gas',
        alert: heldAlert(alert.payload, NOW),
        at: NOW,
      });
    }
    damage(`UPDATE held SET alert_json = substr(alert_json, 1, 20) WHERE key LIKE '%notice:1:%'`);
    damage(
      `UPDATE held SET alert_json = json_remove(alert_json, '$.title') WHERE key LIKE '%:2:%'`,
    );
    clock.set('2026-11-20T16:00:00Z');
    expect((await engine.runReminders()).summaries).toBe(1);
    const [summary] = temp.store.outbox.due('2030-01-01T00:00:00Z');
    expect(summary?.payload.silence).toMatchObject({ held: 3 });
    expect(summary?.payload.silence?.alerts.map((a) => a.notice_id)).toEqual([3]);
  });
});
