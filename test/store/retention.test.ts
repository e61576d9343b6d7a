/**
 * PIPEWATCH_RETENTION: old notice texts pruned where the row must stay, so nothing alerts
 * twice; old deliveries, history, audit, capacity and held alerts removed; the file
 * shrinks after the incremental vacuum. (The other tables: `retention-tables.test.ts`.)
 */
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { NoticeEvent } from '../../src/ingest/events.js';
import { ingestNoticePage } from '../../src/ingest/notice-sync.js';
import { pruneOld } from '../../src/ingest/retention.js';
import { silentLogger } from '../../src/lib/logger.js';
import { toUtcIso } from '../../src/lib/time.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import { DATABASE_FILE } from '../../src/store/index.js';
import type { Notice } from '../../src/upstream/schemas.js';
import { makeNotice } from '../fakes/notice.js';
import { ManualClock } from '../support/clock.js';
import { listMatchers } from '../support/silence-matchers.js';
import { useTempStore } from '../support/temp-store.js';

const DAY = 86_400_000;
const RETENTION = 180 * DAY;

const temp = useTempStore('pipewatch-retention-');
let clock: ManualClock;

beforeEach(() => {
  clock = new ManualClock('2026-01-01T12:00:00Z');
});

const now = () => toUtcIso(clock.now());

/** Ingests a page as the notice sync does; returns the events it raised. */
async function ingest(notices: Notice[]): Promise<NoticeEvent[]> {
  const events: NoticeEvent[] = [];
  await ingestNoticePage(asyncStoreOf(temp.store), notices, {
    seenAt: now(),
    baseline: false,
    alertableAfter: '2020-01-01T00:00:00Z',
    pipelines: new Set(),
    hooks: {
      notices: async (e) => {
        events.push(...e);
      },
    },
  });
  return events;
}

/** A notice with a text that does not compress, so that its pages are really freed. */
function bulky(id: number): Notice {
  const text = randomBytes(6000).toString('base64');
  return makeNotice({ id, identifier: `26-${id}`, notice: text, html: text, mobile: text });
}

const prune = () =>
  pruneOld({ store: asyncStoreOf(temp.store), clock, logger: silentLogger }, RETENTION);
const fileSize = () => statSync(join(temp.dir, DATABASE_FILE)).size;

describe('retention', () => {
  it('prunes the text of a notice not seen for the retention that a reminder still names, keeps its row, and never alerts on it again', async () => {
    const old = makeNotice({ id: 101, notice: 'Station 165 limited.', url: 'https://x.test/101' });
    expect((await ingest([old])).map((e) => e.change)).toEqual(['new']);
    // A reminder still to be sent keeps the notice's row (without it, only a tombstone stays).
    temp.store.reminders.plan(
      {
        rule: 'deadlines',
        notice_id: 101,
        offset_ms: 7_200_000,
        field: 'response_at',
        deadline_at: '2027-06-01T12:00:00Z',
        due_at: '2027-06-01T10:00:00Z',
        status: 'scheduled',
        reason: null,
      },
      now(),
    );
    clock.advance(200 * DAY);
    const fresh = makeNotice({ id: 102, notice: 'Station 85 limited.' });
    await ingest([fresh]);

    await prune();
    const pruned = temp.store.notices.get(101)!;
    expect(pruned.text_pruned_at).toBe(now());
    expect(pruned.notice).toMatch(
      /^\[text pruned 2026-07-20 by PIPEWATCH_RETENTION; the pipeline shows it at https:\/\/x\.test\/101\]$/,
    );
    expect(pruned).toMatchObject({
      id: 101,
      pipeline_slug: 'transco',
      version: 1,
      subject: old.subject,
    });
    expect(temp.store.notices.get(102)?.notice).toBe('Station 85 limited.');
    expect(temp.store.notices.get(102)?.text_pruned_at).toBeNull();

    // Seen again as it was: not new, and its text comes back.
    expect(await ingest([old])).toEqual([]);
    expect(temp.store.notices.get(101)?.notice).toBe('Station 165 limited.');

    // Pruned again, then changed: an update (version 2), never a second "new".
    clock.advance(200 * DAY);
    await prune();
    const events = await ingest([{ ...old, status: 'Terminate' }]);
    expect(events.map((e) => [e.change, e.version])).toEqual([['updated', 2]]);
  });

  it('shrinks the file once the prune is vacuumed', async () => {
    for (let page = 0; page < 10; page++)
      await ingest(Array.from({ length: 20 }, (_, i) => bulky(1000 + page * 20 + i)));
    temp.store.db.pragma('wal_checkpoint(TRUNCATE)');
    const before = fileSize();
    clock.advance(RETENTION + DAY);
    await prune();
    expect(fileSize()).toBeLessThan(before / 4);
    expect(temp.store.notices.count()).toBe(0);
    expect(temp.store.notices.wasPruned(1000)).toBe(true);
  });

  it('removes old delivered alerts, history, audit and held alerts; keeps pending deliveries and their notice', async () => {
    const n = makeNotice({ id: 101, notice: 'First.' });
    await ingest([n]);
    await ingest([{ ...n, notice: 'Second.' }]);
    const target = { kind: 'console' } as const;
    temp.store.outbox.enqueue('notice:101:v1', 'r', target, '{"notice":null}', now(), {
      id: 101,
      version: 1,
    });
    temp.store.outbox.enqueue('notice:101:v2', 'r', target, '{}', now());
    temp.store.outbox.markSent([2], now(), 'ok');
    temp.store.audit.record({
      at: now(),
      rule: 'r',
      event: 'notice-new',
      subject: 'notice:101',
      notice_id: 101,
      decision: 'alert',
      reason: 'matched',
    });
    const silence = temp.store.silences.add({
      matchers: listMatchers({ targets: ['console'] }),
      starts_at: now(),
      ends_at: null,
      created_by: 'unsubscribe',
      comment: null,
      created_at: now(),
    });
    temp.store.silences.hold('r|notice:101:v2|console', {
      silence_id: silence,
      rule: 'r',
      target,
      targetKey: 'console',
      alert: {},
      at: now(),
    });

    clock.advance(RETENTION + DAY);
    await prune();
    expect(temp.store.outbox.counts()).toEqual({ pending: 1, sent: 0, dead: 0 });
    expect(temp.store.audit.forNotice(101)).toEqual([]);
    expect(temp.store.silences.isHeld('r|notice:101:v2|console')).toBe(false);
    // The pending delivery still reads its version, text and all.
    expect(temp.store.outbox.due(now())[0]?.payload).toEqual({ notice: n });
    expect(temp.store.notices.history(101)).toHaveLength(1);
  });
});
