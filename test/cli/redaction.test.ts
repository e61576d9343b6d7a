/**
 * Secrets never leave the process: an API that echoes the key it refused, and platforms
 * that quote the token in their errors, get it into no log line, no `status`, no row of
 * the database. Each check reads the database file whole, as anyone with the file could.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InstantClock } from '../../src/lib/clock.js';
import { type ScriptedApi, startScriptedApi } from '../fakes/scripted-api.js';
import { cli } from './run-cli.js';

const KEY = 'k3y-that-must-not-leak-0123456789';
const USER = 'scheduler1';
const BASIC = Buffer.from(`${USER}:${KEY}`).toString('base64');
const clock = () => new InstantClock(new Date('2026-11-20T15:00:00Z'));

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** Everything the database holds, as text: the main file and its write-ahead log. */
function databaseText(dir: string): string {
  const read = (name: string) => {
    try {
      return readFileSync(join(dir, name)).toString('latin1');
    } catch {
      return '';
    }
  };
  return read('pipewatch.db') + read('pipewatch.db-wal');
}

describe('an API that echoes the key it refused', () => {
  it('gets it into no output, status or database row', async () => {
    api = await startScriptedApi((req) => ({
      status: req.url.pathname.includes('/catalog/') ? 200 : 401,
      body: req.url.pathname.includes('/catalog/')
        ? { status: 'success', messages: [], meta: {}, data: {} }
        : {
            status: 'error',
            messages: [
              `The API user ${USER} or key ${KEY} does not appear to be valid.`,
              `Received Authorization: Basic ${BASIC}`,
            ],
            meta: {},
            data: {},
          },
    }));
    const dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-redaction-'));
    const env = {
      PIPEWATCH_API_URL: api.url,
      PIPEWATCH_API_USER: USER,
      PIPEWATCH_API_KEY: KEY,
      PIPEWATCH_DATA_DIR: dataDir,
      PIPEWATCH_RULES_DIR: mkdtempSync(join(tmpdir(), 'pipewatch-rules-')),
      LOG_LEVEL: 'debug',
    };
    const run = await cli(['run', '--once'], env, { clock: clock() });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/does not appear to be valid/);
    const status = await cli(['status', '--json'], env, { clock: clock() });
    expect(status.stdout).toMatch(/does not appear to be valid/);
    for (const text of [
      run.stdout,
      run.stderr,
      status.stdout,
      status.stderr,
      databaseText(dataDir),
    ]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(BASIC);
    }
  });
});
