/**
 * Notices by the pipeline's own notice number: what a superseding notice's text names
 * is found among that pipeline's other notices only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/index.js';
import { makeNotice } from '../fakes/notice.js';

let dataDir: string;
let store: Store;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-notices-'));
  store = Store.open(dataDir);
});

afterEach(() => {
  store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('notice store', () => {
  it("finds a pipeline's other notices by identifier", () => {
    const seen = '2026-11-20T15:00:00Z';
    store.notices.upsert(makeNotice({ id: 101, identifier: '26-0412' }), seen, false);
    store.notices.upsert(makeNotice({ id: 102, identifier: '26-0412' }), seen, false);
    store.notices.upsert(makeNotice({ id: 103, identifier: '26-0419' }), seen, false);
    store.notices.upsert(
      makeNotice({ id: 201, identifier: '26-0412', pipeline_slug: 'tennessee' }),
      seen,
      false,
    );
    expect(store.notices.idsByIdentifier('transco', '26-0412', 102)).toEqual([101]);
    expect(store.notices.idsByIdentifier('transco', '26-0412', 999).sort((a, b) => a - b)).toEqual([
      101, 102,
    ]);
    expect(store.notices.idsByIdentifier('tennessee', '26-0419', 999)).toEqual([]);
  });
});
