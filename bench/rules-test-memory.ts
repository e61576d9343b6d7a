/**
 * The peak resident memory of `pipewatch rules test --since 30d` over 50,000 stored
 * notices, in text and with `--json`, against the same command over an empty window (the
 * process's own floor). `node --import tsx bench/rules-test-memory.ts` fills a database
 * in a temp dir through the store (notices of realistic size: a 2 KB body and its HTML),
 * then runs each command in a process of its own, in-process through `runCli` with its
 * output counted and dropped, and reads that process's peak RSS (`maxRSS` of
 * `process.resourceUsage()`). Prints one JSON line of figures, in MB.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runCli } from '../src/cli/index.js';
import { Store } from '../src/store/index.js';
import { makeNotice } from '../test/fakes/notice.js';

const NOTICES = 50_000;
const RULES = `rules:
  - name: transco-constraints
    notices: { pipelines: [transco], types: [constraint] }
    notify: [{ console: true }]
`;

if (process.argv[2] === '--child') {
  const [, , , dataDir, rulesDir, ...argv] = process.argv;
  let bytes = 0;
  let counted: string | undefined;
  const stdout = new Writable({
    write(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      counted = /^(\d+) notices posted/m.exec(chunk.toString())?.[1] ?? counted;
      done();
    },
  });
  const code = await runCli(argv, {
    stdout,
    stderr: process.stderr,
    env: { LOG_LEVEL: 'warn', PIPEWATCH_DATA_DIR: dataDir!, PIPEWATCH_RULES_DIR: rulesDir! },
    cwd: dataDir!,
    signal: new AbortController().signal,
  });
  process.stdout.write(
    `${JSON.stringify({ code, bytes, counted: counted ?? null, max_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024) })}\n`,
  );
  process.exit(0);
}

const dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-rules-test-memory-'));
const rulesDir = mkdtempSync(join(tmpdir(), 'pipewatch-rules-test-memory-rules-'));
writeFileSync(join(rulesDir, 'rules.yaml'), RULES);
const store = Store.open(dataDir);
const now = Date.now();
const body = 'Capacity at Station 165 is limited for the gas day. '.repeat(40);
store.transaction(() => {
  for (let i = 0; i < NOTICES; i++) {
    const posted = `${new Date(now - (i + 1) * 50_000).toISOString().slice(0, 19)}Z` as const;
    store.notices.upsert(
      makeNotice({
        id: 1 + i,
        pipeline_slug: i % 3 === 0 ? 'transco' : 'tgp',
        identifier: `M-${i}`,
        notice: body,
        html: `<p>${body}</p>`,
        posted_at: posted,
      }),
      posted,
      false,
    );
  }
});
store.close();

const self = fileURLToPath(import.meta.url);
const run = (argv: string[]) => {
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', self, '--child', dataDir, rulesDir, ...argv],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as {
    code: number;
    bytes: number;
    counted: string | null;
    max_rss_mb: number;
  };
};
const empty = run(['rules', 'test', '--since', '1s']);
const text = run(['rules', 'test', '--since', '30d']);
const json = run(['rules', 'test', '--since', '30d', '--json']);
rmSync(dataDir, { recursive: true, force: true });
rmSync(rulesDir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    notices: NOTICES,
    empty_window_peak_rss_mb: empty.max_rss_mb,
    text_peak_rss_mb: text.max_rss_mb,
    text_counted: text.counted,
    json_peak_rss_mb: json.max_rss_mb,
    json_output_mb: Math.round(json.bytes / 1e6),
  }),
);
