/**
 * Output cut short by its reader (`pipewatch … | head -1`): the command ends quietly
 * with exit 0 and stops its work, rather than dying of EPIPE with a stack. Run as users
 * run it, a process of its own whose stdout is a real pipe that its reader closes after
 * the first line; and in-process, to count how much work a command did after its output
 * was gone.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/index.js';
import { toUtcIso } from '../../src/lib/time.js';
import { Store } from '../../src/store/index.js';
import { programCommand } from '../fakes/daemon-process.js';
import { makeNotice } from '../fakes/notice.js';
import { useTempStore } from '../support/temp-store.js';
import { until } from './run-cli.js';

const RULES = `
rules:
  - name: transco-all
    notices: { pipelines: [transco] }
    notify: [{ console: true }]
`;

const temp = useTempStore('pipewatch-closed-data-');

/** A data directory whose store holds `count` new Transco notices of the last hours, and a rules directory. */
function storedNotices(
  count: number,
  now = Date.now(),
): { PIPEWATCH_DATA_DIR: string; PIPEWATCH_RULES_DIR: string } {
  const dataDir = temp.dir;
  const rulesDir = mkdtempSync(join(tmpdir(), 'pipewatch-closed-rules-'));
  writeFileSync(join(rulesDir, 'rules.yaml'), RULES);
  const { store } = temp;
  try {
    const seen = toUtcIso(new Date(now - 3_600_000));
    store.transaction(() => {
      for (let i = 1; i <= count; i++) {
        const posted = toUtcIso(new Date(now - 3_600_000 - i * 1_000));
        const n = makeNotice({
          id: i,
          identifier: `26-${String(i).padStart(4, '0')}`,
          subject: `Capacity Constraint - Station ${i} ${'x'.repeat(40)}`,
          posted_at: posted,
          service_updated_at: posted,
        });
        store.notices.upsert(n, seen, false);
      }
    });
  } finally {
    store.close();
  }
  return { PIPEWATCH_DATA_DIR: dataDir, PIPEWATCH_RULES_DIR: rulesDir };
}

interface CutShort {
  first: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/**
 * Runs `pipewatch <args>` from the sources with stdout a pipe its reader closes once it
 * has the first line, as `| head -1` does.
 */
function firstLineOnly(args: string[], env: Record<string, string>): Promise<CutShort> {
  const cwd = mkdtempSync(join(tmpdir(), 'pipewatch-closed-cwd-'));
  const child = spawn(...programCommand('sources', args), {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (out.includes('\n')) child.stdout.destroy();
  });
  return new Promise((resolve) =>
    child.once('close', (code, signal) =>
      resolve({ first: out.slice(0, out.indexOf('\n')), code, signal, stderr }),
    ),
  );
}

/** A stdout whose reader goes away after `lines` lines: later writes fail as a closed pipe's do. */
class ClosingPipe extends Writable {
  /** Lines written before the reader went. */
  written = 0;
  /** Writes that reached the pipe. */
  attempts = 0;
  /** Writes the command asked for, counted whether or not they reached it. */
  asked = 0;
  /** What they held. */
  text = '';
  constructor(
    private readonly lines: number,
    private readonly code = 'EPIPE',
  ) {
    super();
    const write = this.write.bind(this) as (...args: unknown[]) => boolean;
    this.write = ((...args: unknown[]) => {
      this.asked++;
      this.text += String(args[0]);
      return write(...args);
    }) as Writable['write'];
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: (error?: Error) => void): void {
    this.attempts++;
    if (this.written >= this.lines) {
      done(Object.assign(new Error(`write ${this.code}`), { code: this.code }));
      return;
    }
    this.written += chunk.toString().split('\n').length - 1;
    done();
  }
}

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

describe('output cut short by its reader', () => {
  it('rules test --since 30d | head -1 ends quietly with exit 0', async () => {
    const run = await firstLineOnly(['rules', 'test', '--since', '30d'], storedNotices(3_000));
    expect(run.first).toMatch(/^#1 transco /);
    expect(run.stderr).toBe('');
    expect(run.signal).toBeNull();
    expect(run.code).toBe(0);
  }, 60_000);

  it('api notices --all | head -1 ends quietly with exit 0, without walking every page', async () => {
    // At one request every 4 s, walking the simulator's hundred-odd pages would take
    // minutes: only stopping when the reader goes ends it within the test's time.
    const dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-closed-api-'));
    const run = await firstLineOnly(['api', 'notices', '--all'], {
      PIPEWATCH_DATA_DIR: dataDir,
      PIPEWATCH_API_RATE: '0.25',
      LOG_LEVEL: 'warn',
    });
    expect(run.first).toMatch(/^\s*id\s+posted\s+pipeline\s+type/);
    expect(run.stderr).toBe('');
    expect(run.signal).toBeNull();
    expect(run.code).toBe(0);
  }, 60_000);

  it('stops judging notices once stdout is gone', async () => {
    const env = { ...storedNotices(500), LOG_LEVEL: 'warn' };
    const stdout = new ClosingPipe(3);
    const stderr = new Capture();
    const code = await runCli(['rules', 'test', '--since', '30d'], {
      stdout,
      stderr,
      env,
      cwd: '/nonexistent-pipewatch-cwd',
      signal: new AbortController().signal,
    });
    expect(code).toBe(0);
    expect(stderr.text).toBe('');
    // Two lines a notice, of 500: the write that failed was the last one asked for.
    expect(stdout.written).toBe(3);
    expect(stdout.asked).toBe(4);
  });

  it('a stdout that fails otherwise (a full disk) fails the command, saying so', async () => {
    const env = { ...storedNotices(20), LOG_LEVEL: 'warn' };
    const stdout = new ClosingPipe(1, 'ENOSPC');
    const stderr = new Capture();
    const code = await runCli(['rules', 'test', '--since', '30d'], {
      stdout,
      stderr,
      env,
      cwd: '/nonexistent-pipewatch-cwd',
      signal: new AbortController().signal,
    });
    expect(code).toBe(1);
    expect(stderr.text).toBe('pipewatch: cannot write to stdout: write ENOSPC\n');
    expect(stdout.asked).toBe(2);
  });

  it('run keeps polling when its log stream is gone, until it is told to stop', async () => {
    const env = {
      ...storedNotices(0),
      PIPEWATCH_HTTP_PORT: '0',
      PIPEWATCH_API_RATE: '100',
      LOG_LEVEL: 'info',
    };
    const stop = new AbortController();
    const stderr = new ClosingPipe(0);
    const done = runCli(['run', '--simulator'], {
      stdout: new Capture(),
      stderr,
      env,
      cwd: '/nonexistent-pipewatch-cwd',
      signal: stop.signal,
    });
    // Its first log line already failed; the baseline sync comes after it.
    await until(() => stderr.text.includes('baseline: stored'), { stderr });
    expect(stderr.written).toBe(0);
    stop.abort(new Error('received SIGTERM'));
    expect(await done).toBe(0);
    const store = Store.openReadonly(env.PIPEWATCH_DATA_DIR);
    try {
      expect(store.notices.count()).toBeGreaterThan(0);
    } finally {
      store.close();
    }
  }, 60_000);
});
