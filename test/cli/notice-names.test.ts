/**
 * A notice named as people name it, in `why` and `rules test --notice`: by the API's id
 * or by the pipeline's own identifier that every alert shows (`26-0524`), which may
 * repeat across pipelines and even within one: then the candidates are listed, each with
 * how to name it alone, and nothing is guessed.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseNoticeRef } from '../../src/cli/ids.js';
import type { Notice } from '../../src/upstream/schemas.js';
import { makeNotice } from '../fakes/notice.js';
import { InstantClock } from '../support/clock.js';
import { useTempStore } from '../support/temp-store.js';
import { cli } from './run-cli.js';

const NOW = new Date('2026-11-20T15:00:00Z');
const at = { clock: new InstantClock(NOW) };

const NOTICES: Array<Partial<Notice>> = [
  // One identifier on two pipelines.
  { id: 11, pipeline_slug: 'transco', identifier: '26-0524', subject: 'Constraint at Station 165' },
  {
    id: 12,
    pipeline_slug: 'texas-eastern',
    pipeline_name: 'Texas Eastern',
    identifier: '26-0524',
    subject: 'OFO - response required',
    posted_at: '2026-11-20T13:00:00Z',
  },
  // One identifier used twice by one pipeline.
  { id: 21, pipeline_slug: 'transco', identifier: '26-0600', subject: 'Maintenance, first' },
  { id: 22, pipeline_slug: 'transco', identifier: '26-0600', subject: 'Maintenance, again' },
  // An identifier that is another notice's API id.
  { id: 31, pipeline_slug: 'iroquois', identifier: '8812', subject: 'Iroquois running number' },
  { id: 8812, pipeline_slug: 'transco', identifier: '26-0777', subject: 'Notice 8812 by its id' },
  // Unique.
  { id: 41, pipeline_slug: 'transco', identifier: 'TGP-1234', subject: 'Alone' },
];

const temp = useTempStore('pipewatch-names-data-', { shared: true });
let env: Record<string, string>;

beforeAll(() => {
  const dataDir = temp.dir;
  const rulesDir = mkdtempSync(join(tmpdir(), 'pipewatch-names-rules-'));
  writeFileSync(
    join(rulesDir, 'rules.yaml'),
    'rules:\n  - name: transco-all\n    notices: { pipelines: [transco] }\n    notify: [{ console: true }]\n',
  );
  const { store } = temp;
  try {
    store.transaction(() => {
      for (const n of NOTICES) store.notices.upsert(makeNotice(n), '2026-11-20T14:01:00Z', false);
      // Last seen long ago: retention removed it, all but its tombstone.
      store.notices.upsert(
        makeNotice({ id: 51, identifier: '25-0001' }),
        '2025-01-01T00:00:00Z',
        false,
      );
    });
    store.retention.prune('2026-01-01T00:00:00Z', '2026-11-20T14:01:00Z');
  } finally {
    store.close();
  }
  env = { PIPEWATCH_DATA_DIR: dataDir, PIPEWATCH_RULES_DIR: rulesDir };
});

describe('parseNoticeRef', () => {
  it.each([
    ['8812', { text: '8812', id: 8812, identifier: '8812' }],
    ['#8812', { text: '#8812', id: 8812 }],
    [' 26-0524 ', { text: '26-0524', identifier: '26-0524' }],
    ['Transco:26-0524', { text: 'Transco:26-0524', identifier: '26-0524', pipeline: 'transco' }],
  ])('%j', (text, ref) => {
    expect(parseNoticeRef(text)).toEqual(ref);
  });

  it.each(['', '   ', '#', '#abc', 'a\u001b[2Jb', 'x'.repeat(201)])('refuses %j', (text) => {
    expect(parseNoticeRef(text)).toBeUndefined();
  });
});

describe('why, by identifier', () => {
  it('explains the notice its identifier names', async () => {
    const run = await cli(['why', 'tgp-1234'], env, at);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^notice #41 transco: Alone\n/);
  });

  it('lists the candidates when pipelines share the identifier, and explains none', async () => {
    const run = await cli(['why', '26-0524'], env, at);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    const lines = run.stderr.split('\n');
    expect(lines[0]).toBe(
      "pipewatch: 26-0524 names 2 stored notices; name one as shown in the first column (pipeline:identifier, or '#' and its API id):",
    );
    expect(lines[1]).toMatch(/^\s+name it\s+id\s+pipeline\s+identifier\s+posted\s+subject$/);
    // Latest first, each with its pipeline, identifier, posted time and subject.
    expect(lines[3]).toMatch(
      /^\s+transco:26-0524\s+11\s+transco\s+26-0524\s+2026-11-20T14:00:00Z\s+Constraint at Station 165$/,
    );
    expect(lines[4]).toMatch(
      /^\s+texas-eastern:26-0524\s+12\s+texas-eastern\s+26-0524\s+2026-11-20T13:00:00Z\s+OFO - response required$/,
    );
  });

  it('takes pipeline:identifier, as the candidates are named', async () => {
    const run = await cli(['why', 'texas-eastern:26-0524'], env, at);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^notice #12 texas-eastern: OFO - response required\n/);
  });

  it("names by '#id' the notices a pipeline numbered alike", async () => {
    for (const name of ['26-0600', 'transco:26-0600']) {
      const run = await cli(['why', name], env, at);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/\n\s+'#22'\s+22\s+transco\s+26-0600 .*Maintenance, again\n/);
      expect(run.stderr).toMatch(/\n\s+'#21'\s+21\s+transco\s+26-0600 .*Maintenance, first\n/);
    }
    const run = await cli(['why', '#22'], env, at);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^notice #22 transco: Maintenance, again\n/);
  });

  it('lists both when a number is one notice’s API id and another’s identifier', async () => {
    const run = await cli(['why', '8812'], env, at);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/\n\s+'#8812'\s+8812\s+transco\s+26-0777 .*Notice 8812 by its id\n/);
    expect(run.stderr).toMatch(
      /\n\s+iroquois:8812\s+31\s+iroquois\s+8812 .*Iroquois running number\n/,
    );
    expect((await cli(['why', '#8812'], env, at)).stdout).toMatch(/^notice #8812 transco:/);
    expect((await cli(['why', 'iroquois:8812'], env, at)).stdout).toMatch(/^notice #31 iroquois:/);
  });

  it('still takes a plain API id', async () => {
    const run = await cli(['why', '41', '--json'], env, at);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).notice).toMatchObject({ id: 41, identifier: 'TGP-1234' });
  });

  it('says when nothing is stored under the name, exit 1', async () => {
    const run = await cli(['why', 'transco:26-9999'], env, at);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toBe(
      'pipewatch: notice transco:26-9999 is not stored (it may be older than the baseline, or not synced yet)\n',
    );
  });

  it('says when retention removed the notice named by its id, exit 1', async () => {
    const run = await cli(['why', '#51'], env, at);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toBe(
      'pipewatch: notice #51 is no longer stored: PIPEWATCH_RETENTION removed it, unseen for that long (its id, content hash and version are kept, so it does not alert again)\n',
    );
  });

  it('refuses what cannot name a notice, exit 2', async () => {
    const run = await cli(['why', '#abc'], env, at);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /must name a notice: its API id \(8812, '#8812'\) or its pipeline's identifier/,
    );
  });
});

describe('rules test --notice, by identifier', () => {
  it('judges the notice its identifier names', async () => {
    const run = await cli(['rules', 'test', '--notice', 'texas-eastern:26-0524'], env, at);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^#12 texas-eastern /);
  });

  it('lists the candidates of a shared identifier, exit 2', async () => {
    const run = await cli(['rules', 'test', '--notice', '26-0524'], env, at);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^pipewatch: 26-0524 names 2 stored notices;/);
  });
});
