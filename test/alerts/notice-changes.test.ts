import { describe, expect, it } from 'vitest';
import { AlertEngine } from '../../src/alerts/engine.js';
import { noticeChanges, OUTPUT_MAX } from '../../src/alerts/notice-changes.js';
import type { AlertPayload, NoticeChange, TextChange } from '../../src/alerts/payload.js';
import { ingestNoticePage } from '../../src/ingest/notice-sync.js';
import { silentLogger } from '../../src/lib/logger.js';
import type { NoticeRule } from '../../src/rules/types.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import type { Store } from '../../src/store/index.js';
import type { Notice } from '../../src/upstream/schemas.js';
import { makeNotice } from '../fakes/notice.js';
import { ManualClock } from '../support/clock.js';
import { useTempStores } from '../support/temp-store.js';

const BODY =
  'Effective Timely Cycle for gas day November 21, Transco will limit deliveries downstream of Station 165. Secondary out-of-path deliveries will be scheduled at 0%. Contact Gas Control with questions.';

const text = (changes: NoticeChange[]) => changes.find((c): c is TextChange => c.kind === 'text');

describe('what changed in a notice', () => {
  it('says each value and time a reader sees, before and after, and leaves the rest out', () => {
    const before = makeNotice({ notice: BODY, end_at: '2026-11-22T15:00:00Z' });
    const after = makeNotice({
      status: 'Revised',
      notice: BODY,
      html: '<p>new html</p>',
      mobile: 'new mobile',
      end_at: '2026-11-23T15:00:00.000Z',
      service_updated_at: '2026-11-20T17:45:12Z',
    });
    expect(noticeChanges(before, after)).toEqual([
      { kind: 'value', field: 'status', label: 'Status', before: 'Initiate', after: 'Revised' },
      {
        kind: 'time',
        field: 'end_at',
        label: 'Ends',
        before: '2026-11-22T15:00:00Z',
        after: '2026-11-23T15:00:00Z',
      },
    ]);
    // Only what no reader looks at: nothing to say.
    expect(noticeChanges(before, { ...before, html: 'x', service_updated_at: null })).toEqual([]);
    // The same instant written another way did not move.
    expect(noticeChanges(before, { ...before, end_at: '2026-11-22T15:00:00.000Z' })).toEqual([]);
  });

  it('gives the words removed and added with a few words around them', () => {
    const before = makeNotice({ notice: BODY });
    const after = makeNotice({
      notice: `${BODY.replace('at 0%', 'at 50%')}\n\nUpdate: the limit now runs through November 23.`,
    });
    expect(text(noticeChanges(before, after))).toEqual({
      kind: 'text',
      field: 'notice',
      label: 'Text',
      parts: [
        { op: 'same', text: '… will be scheduled at ' },
        { op: 'removed', text: '0' },
        { op: 'added', text: '50' },
        { op: 'same', text: '%. Contact Gas Control with questions. ' },
        { op: 'added', text: 'Update: the limit now runs through November 23.' },
      ],
      added: 9,
      removed: 1,
      complete: true,
    });
    // Spacing alone is no change.
    expect(noticeChanges(before, { ...before, notice: BODY.replace(/ /g, '\n  ') })).toEqual([]);
  });

  it('a placeholder end reads as until further notice, not as a date', () => {
    const before = makeNotice({ end_at: '2026-11-22T15:00:00Z' });
    const after = makeNotice({ end_at: '9000-12-31T00:00:00Z' });
    expect(noticeChanges(before, after)).toEqual([
      {
        kind: 'time',
        field: 'end_at',
        label: 'Ends',
        before: '2026-11-22T15:00:00Z',
        after: null,
        open_ended_after: true,
      },
    ]);
  });

  it('a 200 KB notice costs a bounded diff and makes a bounded change', () => {
    const words = (seed: number) =>
      Array.from({ length: 40_000 }, (_, i) => `w${(i * seed) % 9973}`).join(' ');
    const huge = words(7);
    expect(huge.length).toBeGreaterThan(200_000);
    const cases: Array<[string, Notice, Notice]> = [
      ['a small edit', makeNotice({ notice: huge }), makeNotice({ notice: `x ${huge} y` })],
      [
        'everything different',
        makeNotice({ notice: huge }),
        makeNotice({ notice: words(13), subject: 'S'.repeat(200_000) }),
      ],
      [
        'HTML only',
        makeNotice({ notice: '', html: `<p>${huge}</p>` }),
        makeNotice({ notice: '', html: `<p>${words(13)}</p>` }),
      ],
    ];
    for (const [name, before, after] of cases) {
      const cpu = process.cpuUsage();
      const changes = noticeChanges(before, after);
      const used = process.cpuUsage(cpu);
      // CPU time, not wall time: the machine is shared. Measured at some 10 to 40 ms.
      expect(used.user + used.system, name).toBeLessThan(500_000);
      expect(JSON.stringify(changes).length, name).toBeLessThan(OUTPUT_MAX + 1_500);
      expect(text(changes)?.complete, name).toBe(false);
    }
  });

  it('texts too different to compare word by word say so, with no words', () => {
    const before = makeNotice({ notice: Array.from({ length: 600 }, (_, i) => `a${i}`).join(' ') });
    const after = makeNotice({ notice: Array.from({ length: 600 }, (_, i) => `b${i}`).join(' ') });
    expect(text(noticeChanges(before, after))).toMatchObject({ parts: [], complete: false });
  });

  it('many small changes are cut to what fits, the cut said', () => {
    const many = Array.from({ length: 60 }, (_, i) => `word${i} stays here`).join(' ');
    const before = makeNotice({ notice: many });
    const after = makeNotice({ notice: many.replace(/stays/g, 'moves') });
    const change = text(noticeChanges(before, after));
    expect(change?.removed).toBe(60);
    expect(change?.complete).toBe(false);
    expect(change?.parts.map((p) => p.text).join('').length).toBeLessThanOrEqual(OUTPUT_MAX + 2);
  });
});

const stores = useTempStores('pipewatch-changes-');
let store: Store;

const rule: NoticeRule = {
  kind: 'notices',
  name: 'transco-all',
  at: { file: 'rules/test.yaml', line: 1, col: 1 },
  filter: { pipelines: ['transco'] },
  not: { types: ['computer system status'] },
  on: ['new', 'updated'],
  notify: [{ kind: 'console' }],
};

/** Stores and decides `notices` as a sync does, with the engine on a store of its own. */
async function sync(engine: AlertEngine, notices: Notice[], seenAt: string) {
  await ingestNoticePage(asyncStoreOf(store), notices, {
    seenAt,
    baseline: false,
    alertableAfter: '2026-11-19T00:00:00Z',
    pipelines: new Set(),
    hooks: engine.hooks(),
  });
}

function setup() {
  ({ store } = stores.open());
  return new AlertEngine(
    {
      store: asyncStoreOf(store),
      clock: new ManualClock('2026-11-20T15:00:00Z'),
      logger: silentLogger,
      maxAlertAgeMs: 86_400_000,
    },
    [rule],
  );
}

const payloadOf = (id: number, version = 1): AlertPayload | undefined =>
  store.outbox.forSubject(`notice:${id}:v${version}`)[0]?.payload as AlertPayload | undefined;

describe('an alert on a changed notice', () => {
  it('an update carries its changes against the version it replaced, and the API names still', async () => {
    const engine = setup();
    const first = makeNotice({ id: 7, notice: BODY });
    await sync(engine, [first], '2026-11-20T15:00:00Z');
    await sync(
      engine,
      [{ ...first, status: 'Revised', notice: `${BODY} Revised.`, service_updated_at: null }],
      '2026-11-20T16:00:00Z',
    );
    const p = payloadOf(7, 2);
    expect(p?.changed).toEqual(['status', 'notice', 'service_updated_at']);
    expect(p?.changes?.map((c) => c.label)).toEqual(['Status', 'Text']);
    expect(text(p?.changes ?? [])?.parts.at(-1)).toEqual({ op: 'added', text: 'Revised.' });
    expect(p?.supersedes).toBeUndefined();
  });

  it('a new notice that supersedes a stored one links to it and is compared with it', async () => {
    const engine = setup();
    const old = makeNotice({
      id: 8,
      identifier: '26-0412',
      url: 'https://example.com/n/8',
      notice: BODY,
      end_at: '2026-11-22T15:00:00Z',
    });
    await sync(engine, [old], '2026-11-20T15:00:00Z');
    const successor = makeNotice({
      id: 9,
      identifier: '26-0413',
      posted_at: '2026-11-20T15:30:00Z',
      status: 'Supersede',
      notice: `This notice supersedes Notice ID 26-0412. ${BODY}`,
      end_at: '2026-11-23T15:00:00Z',
    });
    // Another pipeline's notice of that number is not it.
    await sync(engine, [{ ...old, id: 10, pipeline_slug: 'tetco' }], '2026-11-20T15:10:00Z');
    await sync(engine, [successor], '2026-11-20T16:00:00Z');
    const p = payloadOf(9);
    expect(p?.state).toBe('new');
    expect(p?.supersedes).toEqual({
      id: 8,
      identifier: '26-0412',
      subject: old.subject,
      url: 'https://example.com/n/8',
    });
    // Its own number and posting time differ by nature: not listed.
    expect(p?.changes?.map((c) => c.label)).toEqual(['Status', 'Ends', 'Text']);
    expect(text(p?.changes ?? [])?.parts[0]).toEqual({
      op: 'added',
      text: 'This notice supersedes Notice ID 26-0412. ',
    });
  });

  it('a new notice naming one that is not stored has neither', async () => {
    const engine = setup();
    await sync(
      engine,
      [makeNotice({ id: 11, notice: 'This notice supersedes Notice ID 26-0001.' })],
      '2026-11-20T15:00:00Z',
    );
    const p = payloadOf(11);
    expect(p?.state).toBe('new');
    expect(p?.supersedes).toBeUndefined();
    expect(p?.changes).toBeUndefined();
  });

  it('the superseded notice is looked for among the latest notices only, not all of them', async () => {
    const engine = setup();
    const at = (i: number) => `2026-11-20T1${i}:00:00Z`;
    const notices = [0, 1, 2, 3].map((i) =>
      makeNotice({ id: 20 + i, identifier: `26-0${i}`, posted_at: at(i) }),
    );
    await sync(engine, notices, '2026-11-20T15:00:00Z');
    const find = (identifier: string, window: number) =>
      store.notices.supersededBy('transco', identifier, 99, at(5), window);
    expect(find('26-03', 2)).toBe(23);
    expect(find('26-02', 2)).toBe(22);
    expect(find('26-01', 2)).toBeUndefined();
    expect(find('26-01', 5)).toBe(21);
    expect(find('26-00', 5)).toBe(20);
  });
});
