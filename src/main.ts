#!/usr/bin/env -S node --max-semi-space-size=1 --v8-pool-size=1 --optimize-for-size --liftoff-only
/**
 * Entry point of the `pipewatch` executable: wires the process (streams, environment,
 * signals) to the command line and exits with its status.
 *
 * The first line starts node with V8 sized for a daemon that spends its life waiting:
 *
 * - `--max-semi-space-size=1`: a young generation of 1 MiB a half instead of up to 16.
 *   V8 grows it to the most during the first sync and never gives it back: some 12 MiB
 *   resident for as long as the daemon runs.
 * - `--v8-pool-size=1`: one V8 worker thread instead of one a core. Each has its own
 *   malloc arena, which keeps what a compile or a marking once took in it.
 * - `--optimize-for-size`: V8's own trade of speed for memory.
 * - `--liftoff-only`: WebAssembly runs as its baseline compiler (Liftoff) makes it, and is
 *   not compiled again by the optimising one. The only WebAssembly is undici's HTTP parser
 *   (llhttp), hot during the first sync: optimising its large parse function took some
 *   30 MiB for the moment, the peak of the daemon's whole start (114 → 81 MiB). Reading
 *   responses is no slower for it: a 0.8 MB response over loopback, 200 times, took 2.0
 *   to 2.7 ms each with it and 2.6 to 2.8 without (the parser only scans a body).
 *
 * Together they take an idle daemon from about 84 MiB resident to about 77 once settled
 * (from about 100 to 80 in the seconds after a sync), and its peak at start from about 132
 * to about 81 (`npm run bench idle_rss`: `node_` against the rest). Work in bulk runs
 * slower, mostly for `--optimize-for-size`, which grows the heap in smaller steps:
 * storing a backlog some 5% (`npm run bench ingest` under these flags), loading 10,000
 * rules 0.6 s → 0.8 s with its peak 137 → 86 MB (`npm run bench rules`), the whole
 * `rules validate` of them 0.8 s → 0.9 s. `--no-opt` would save 3 MiB more for a fifth
 * of the ingest's speed.
 *
 * `env -S` splits the line into words (coreutils 8.30 and later, macOS, FreeBSD); where
 * `env` cannot, or to start node otherwise, `node dist/main.js` runs pipewatch without
 * them.
 */
import { runCli } from './cli/index.js';

const controller = new AbortController();
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(130);
    stopping = true;
    controller.abort(new Error(`received ${signal}`));
  });
}

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
});
process.exitCode = code;
