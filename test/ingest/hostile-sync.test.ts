/**
 * Syncs against an API that sends a record too deep or too large, or a page too large:
 * the record is skipped and counted, the rest stored; the page fails its sync with a
 * coded error the operator can read, while the other feeds go on.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Metrics } from '../../src/http/metrics.js';
import { syncCapacity } from '../../src/ingest/capacity-sync.js';
import {
  type NoticeSyncOptions,
  noticeSyncDefaults,
  syncNotices,
} from '../../src/ingest/notice-sync.js';
import { silentLogger } from '../../src/lib/logger.js';
import { Store } from '../../src/store/index.js';
import { cli } from '../cli/run-cli.js';
import { type Harness, harness, premium } from './harness.js';

const options: NoticeSyncOptions = {
  ...noticeSyncDefaults,
  maxAlertAgeMs: 86_400_000,
  baselinePages: 3,
};
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function setup() {
  h = await harness();
  const metrics = new Metrics({ processMetrics: false });
  const deps = {
    client: h.client,
    store: h.async,
    clock: h.clock,
    logger: silentLogger,
    hooks: h.hooks,
    metrics,
  };
  const skippedCounts = async () => {
    const { values } = await metrics.skippedRecords.get();
    return Object.fromEntries(values.map((v) => [v.labels.feed, v.value]));
  };
  return { h, deps, skippedCounts };
}

describe('a hostile record', () => {
  it('nested 100,000 levels deep is skipped and counted; the sync stores the rest', async () => {
    const { h, deps, skippedCounts } = await setup();
    h.sim.control.injectFault({ kind: 'deep-record', depth: 100_000, path: '/ip/notices' });
    const result = await syncNotices(deps, options);
    expect(result).toMatchObject({ pages: 3, skipped: 1, new: 59 });
    expect(h.store.notices.count()).toBe(59);
    expect(await skippedCounts()).toEqual({ notices: 1 });
    // The next poll stores it, the API being sane again.
    await syncNotices(deps, { ...options, minPages: 3 });
    expect(h.store.notices.count()).toBe(60);
  });

  it('holding a text over its limit is skipped and counted, and nothing of it is stored', async () => {
    const { h, deps, skippedCounts } = await setup();
    h.sim.control.injectFault({ kind: 'large-body', bytes: 5_000_000, path: '/ip/notices' });
    h.sim.control.injectFault({ kind: 'large-body', bytes: 3_000_000, path: '/ip/capacity' });
    const result = await syncNotices(deps, options);
    expect(result).toMatchObject({ skipped: 1, new: 59 });
    const longest = h.store.db
      .prepare<[], { n: number }>('SELECT MAX(LENGTH(body)) AS n FROM notices')
      .get();
    expect(longest?.n).toBeLessThan(100_000);
    await syncCapacity(deps, { pipelines: ['transco'] });
    expect(await skippedCounts()).toEqual({ notices: 1, capacity: 1 });
  });
});

describe('a page over PIPEWATCH_API_MAX_BODY', () => {
  it('fails the notices sync with UPSTREAM_BODY_TOO_LARGE; the other feeds run', async () => {
    h = await harness();
    h.sim.control.injectFault({
      kind: 'large-body',
      bytes: 10_000_000,
      path: '/ip/notices',
      count: 10,
    });
    const dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-max-body-'));
    const run = await cli(['run', '--once'], {
      PIPEWATCH_API_URL: h.sim.url,
      PIPEWATCH_API_USER: premium.username,
      PIPEWATCH_API_KEY: premium.key,
      PIPEWATCH_API_RATE: '100',
      PIPEWATCH_API_MAX_BODY: '1MB',
      PIPEWATCH_DATA_DIR: dataDir,
      PIPEWATCH_RULES_DIR: mkdtempSync(join(tmpdir(), 'pipewatch-rules-')),
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^pipelines: ok\ncatalog: ok\n/);
    expect(run.stdout).toMatch(
      /^notices: failed: response body is larger than the 1 MB pipewatch reads \(PIPEWATCH_API_MAX_BODY\)/m,
    );
    const store = Store.open(dataDir);
    try {
      expect(store.syncState.get('notices')).toMatchObject({
        last_error_code: 'UPSTREAM_BODY_TOO_LARGE',
        consecutive_failures: 1,
      });
      expect(store.notices.count()).toBe(0);
    } finally {
      store.close();
    }
  });
});
