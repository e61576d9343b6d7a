/**
 * A short command loads only what it uses: `--help` and `status` start in a fraction of
 * a second because the chat platforms' clients, the mailer, the HTTP client and the
 * daemon are imported by the commands that run them, when they run. Each command runs as
 * a process with module hooks that list every package it loaded.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { useTempStore } from '../support/temp-store.js';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const PRELOAD = fileURLToPath(new URL('./loaded-packages.mjs', import.meta.url));

/** What only the daemon and the sending commands need. */
const HEAVY = [
  'discord.js',
  '@discordjs/rest',
  '@slack/bolt',
  'nodemailer',
  'undici',
  'prom-client',
  'sanitize-html',
  'html-to-text',
];

/** What only the commands that read the database or the rule files need. */
const STORE_AND_RULES = ['better-sqlite3', 'yaml', 're2js'];

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Runs pipewatch with `args` and returns its exit status and the packages it loaded. */
function packagesLoaded(args: string[], env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-loading-'));
  dirs.push(dir);
  const list = join(dir, 'packages');
  const child = spawnSync(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), '--import', PRELOAD, MAIN, ...args],
    {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? dir,
        LOADED_PACKAGES_FILE: list,
        ...env,
      },
      encoding: 'utf8',
    },
  );
  const names = new Set(readFileSync(list, 'utf8').split('\n').filter(Boolean));
  return { status: child.status, stdout: child.stdout, stderr: child.stderr, names };
}

describe('loading', () => {
  const temp = useTempStore('pipewatch-loading-data-');

  it('--help loads no chat client, mailer, HTTP client or metrics', () => {
    const run = packagesLoaded(['--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Usage: pipewatch');
    expect(run.names).toContain('commander');
    expect(HEAVY.filter((p) => run.names.has(p))).toEqual([]);
  });

  it("--help loads neither the database driver nor the rule files' parsers", () => {
    const run = packagesLoaded(['--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Usage: pipewatch');
    expect(STORE_AND_RULES.filter((p) => run.names.has(p))).toEqual([]);
  });

  it('status loads none of them either', () => {
    const dataDir = temp.dir;
    temp.store.close();
    const run = packagesLoaded(['status'], {
      PIPEWATCH_DATA_DIR: dataDir,
      PIPEWATCH_RULES_DIR: fileURLToPath(new URL('../../rules', import.meta.url)),
    });
    expect(run.stdout).toContain('last success');
    expect(run.names).toContain('better-sqlite3');
    expect(HEAVY.filter((p) => run.names.has(p))).toEqual([]);
  });
});
