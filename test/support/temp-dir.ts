/**
 * Vitest global setup: a test run keeps its temporary files under one directory of its
 * own (TMPDIR, which the test processes inherit and `os.tmpdir()` reads), removed when the
 * run ends. Tests make thousands of data directories a run, and a test that fails or
 * times out leaves its own behind.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const before = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-tests-'));
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(dir, { recursive: true, force: true });
  };
}
