/**
 * Outbox rows name the notice version an alert is about: the notice is stored once
 * however many alerts it fires, and each alert is delivered with the notice as it was
 * when it was decided.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { AlertEngine } from '../../src/alerts/engine.js';
import type { AlertPayload } from '../../src/alerts/payload.js';
import { ingestNoticePage } from '../../src/ingest/notice-sync.js';
import { silentLogger } from '../../src/lib/logger.js';
import { toUtcIso } from '../../src/lib/time.js';
import type { NoticeRule } from '../../src/rules/types.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import type { Notice } from '../../src/upstream/schemas.js';
import { makeNotice } from '../fakes/notice.js';
import { ManualClock } from '../support/clock.js';
import { useTempStore } from '../support/temp-store.js';

const TARGETS = 40;
const rule: NoticeRule = {
  kind: 'notices',
  name: 'transco-all',
  at: { file: 'rules/test.yaml', line: 1, col: 1 },
  filter: { pipelines: ['transco'] },
  on: ['new', 'updated'],
  notify: Array.from({ length: TARGETS }, (_, i) => ({ kind: 'slack', channel: `#gas-${i}` })),
};

const FIRST = 'Station 165 is limited to 300 MDth/d for gas day 2026-11-21. '.repeat(30);
const SECOND = 'Station 165 is back to full capacity for gas day 2026-11-21. '.repeat(30);

const temp = useTempStore('pipewatch-versions-');
let engine: AlertEngine;
let clock: ManualClock;

beforeEach(() => {
  clock = new ManualClock('2026-11-20T15:00:00Z');
  engine = new AlertEngine(
    { store: asyncStoreOf(temp.store), clock, logger: silentLogger, maxAlertAgeMs: 86_400_000 },
    [rule],
  );
});

const now = () => toUtcIso(clock.now());

/** Stores a page and decides on it, as the notice sync does. */
async function ingest(notices: Notice[]) {
  await ingestNoticePage(asyncStoreOf(temp.store), notices, {
    seenAt: now(),
    baseline: false,
    alertableAfter: '2026-11-19T15:00:00Z',
    pipelines: new Set(),
    hooks: engine.hooks(),
  });
}

const v1 = makeNotice({ notice: FIRST, html: `<p>${FIRST}</p>`, mobile: `<div>${FIRST}</div>` });
const v2 = { ...v1, notice: SECOND, html: `<p>${SECOND}</p>`, mobile: `<div>${SECOND}</div>` };

function payloads(version: string): AlertPayload[] {
  return temp.store.outbox
    .ready(now(), 1000)
    .rows.filter((r) => r.key.includes(`notice:101:${version}|`))
    .map((r) => r.payload);
}

describe('outbox rows and notice versions', () => {
  it('delivers an alert decided on version 1 with version 1, after the notice became version 2', async () => {
    await ingest([v1]);
    clock.advance(60_000);
    await ingest([v2]);
    expect(temp.store.notices.get(101)?.version).toBe(2);

    const first = payloads('v1');
    expect(first).toHaveLength(TARGETS);
    for (const p of first) expect(p.notice).toEqual(v1);
    const second = payloads('v2');
    expect(second).toHaveLength(TARGETS);
    for (const p of second) expect(p.notice).toEqual(v2);
    // `why` reads the same rows.
    const why = temp.store.outbox.forSubject('notice:101:');
    expect(why.map((r) => r.payload.notice?.notice)).toEqual([
      ...Array(TARGETS).fill(FIRST),
      ...Array(TARGETS).fill(SECOND),
    ]);
  });

  it('stores the text of a notice that fires many alerts once, not once an alert', async () => {
    await ingest([v1]);
    const rows = temp.store.db
      .prepare('SELECT payload, notice_id, notice_version FROM outbox')
      .all() as Array<{ payload: string; notice_id: number; notice_version: number }>;
    expect(rows).toHaveLength(TARGETS);
    for (const r of rows) {
      expect(r.payload).not.toContain('Station 165 is limited');
      expect(r.payload.length).toBeLessThan(400);
      expect([r.notice_id, r.notice_version]).toEqual([101, 1]);
    }
    // The text's one copy: the notice's body, compressed.
    const body = temp.store.db.prepare('SELECT length(body) AS n FROM notices').get() as {
      n: number;
    };
    expect(body.n).toBeLessThan(FIRST.length);
  });

  it('still reads a row that carries its notice in its payload', () => {
    const payload: AlertPayload = {
      version: 1,
      kind: 'notice',
      state: 'new',
      rule: 'old',
      pipeline: { slug: 'transco', name: 'Transco' },
      notice: v1,
      zone: 'America/Chicago',
    };
    temp.store.outbox.enqueue(
      'old|notice:101:v1|console',
      'old',
      { kind: 'console' },
      payload,
      now(),
    );
    expect(temp.store.outbox.due(now())[0]?.payload).toEqual(payload);
  });
});
