/**
 * `pipewatch rules test --since` over more stored notices than any one read used to
 * return: every notice of the window is judged, listed where it has something to show
 * and counted, in text and in `--json`, and none from before the window.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UtcIso } from '../../src/lib/time.js';
import { makeNotice } from '../fakes/notice.js';
import { storePipelines } from '../fakes/pipelines.js';
import { useTempStore } from '../support/temp-store.js';
import { cli } from './run-cli.js';
import { at, tempDir } from './stored-fixture.js';

const NOW = new Date('2026-11-20T15:00:00Z');
/** More than the 10,000 rows a read of the window once stopped at. */
const IN_WINDOW = 10_050;
/** One notice in three is a Transco constraint; the newest of those alert within 24 h. */
const isConstraint = (i: number) => i % 3 === 0;
const minutesAgo = (m: number) =>
  `${new Date(NOW.getTime() - m * 60_000).toISOString().slice(0, 19)}Z` as UtcIso;

const RULES = `
rules:
  - name: transco-constraints
    notices: { pipelines: [transco], types: [constraint] }
    notify: [{ console: true }]
`;

const temp = useTempStore('pipewatch-window-data-', { shared: true });
let env: Record<string, string>;
let dirs: string[] = [];

beforeAll(() => {
  const dataDir = temp.dir;
  const { store } = temp;
  storePipelines(store, ['transco', 'tgp'], minutesAgo(60 * 24 * 40));
  store.transaction(() => {
    // Every 4 minutes back from now: 10,050 notices span 28 days, inside a 30-day window.
    for (let i = 0; i < IN_WINDOW; i++) {
      const constraint = isConstraint(i);
      store.notices.upsert(
        makeNotice({
          id: 100_000 + i,
          pipeline_slug: constraint ? 'transco' : 'tgp',
          type: constraint ? 'Capacity Constraint' : 'Planned Maintenance',
          identifier: `W-${i}`,
          posted_at: minutesAgo(4 * i + 1),
        }),
        minutesAgo(4 * i),
        false,
      );
    }
    // Posted 31 days ago: outside the window.
    for (let i = 0; i < 5; i++)
      store.notices.upsert(
        makeNotice({ id: 900_000 + i, posted_at: minutesAgo(31 * 1440 + i) }),
        minutesAgo(31 * 1440),
        false,
      );
  });
  store.close();
  const rulesDir = tempDir('pipewatch-window-rules-', { 'rules.yaml': RULES });
  dirs = [rulesDir];
  env = { PIPEWATCH_DATA_DIR: dataDir, PIPEWATCH_RULES_DIR: rulesDir };
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Report {
  since: string;
  notices: Array<{ id: number; verdicts: Array<{ rule: string; outcome: string }> }>;
  summary: Array<{ rule: string; outcomes: Record<string, number> }>;
}

describe('rules test --since over more than 10,000 stored notices', () => {
  it('counts every notice of the window and judges each one', async () => {
    const run = await cli(['rules', 'test', '--since', '30d'], env, at(NOW));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`\n${IN_WINDOW} notices posted in the last 30d, at `);
    const line = run.stdout.split('\n').findLast((l) => l.startsWith('  transco-constraints: '))!;
    const counted = [...line.matchAll(/ (\d+)(?: \(|$| ·)/g)].reduce((n, m) => n + Number(m[1]), 0);
    expect(counted).toBe(IN_WINDOW);
    // The oldest notice of the window is judged too: a matching one, 28 days old.
    const oldest = IN_WINDOW - 1 - ((IN_WINDOW - 1) % 3);
    const json = JSON.parse(
      (await cli(['rules', 'test', '--since', '30d', '--json'], env, at(NOW))).stdout,
    ) as Report;
    expect(json.notices.find((n) => n.id === 100_000 + oldest)?.verdicts).toEqual([
      expect.objectContaining({ rule: 'transco-constraints', outcome: 'too-old' }),
    ]);
  });

  it('--json lists every notice of the window once, newest first, as one JSON document', async () => {
    const run = await cli(['rules', 'test', '--since', '30d', '--json'], env, at(NOW));
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    expect(run.stdout).toBe(`${JSON.stringify(report, null, 2)}\n`);
    expect(report.since).toBe('30d');
    expect(report.notices).toHaveLength(IN_WINDOW);
    expect(report.notices.map((n) => n.id)).toEqual(
      Array.from({ length: IN_WINDOW }, (_, i) => 100_000 + i),
    );
    const outcomes = report.summary.find((s) => s.rule === 'transco-constraints')!.outcomes;
    expect(Object.values(outcomes).reduce((a, b) => a + b, 0)).toBe(IN_WINDOW);
  });

  it('--json over a window with no notice is still one JSON document', async () => {
    const later = new Date(NOW.getTime() + 86_400_000);
    const run = await cli(['rules', 'test', '--since', '1h', '--json'], env, at(later));
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    expect(run.stdout).toBe(`${JSON.stringify(report, null, 2)}\n`);
    expect(report.notices).toEqual([]);
  });
});
