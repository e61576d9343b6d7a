/**
 * `pipewatch chart`: a PNG of a stored location's OAC written to a file, a did-you-mean
 * for a pipeline or location that is not stored, no PNG bytes on a terminal, and the
 * lines of the rule that names the location unless others are given.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/index.js';
import { location } from '../fakes/alerts.js';
import { transcoCycle } from '../fakes/capacity-event.js';
import { useTempStore } from '../support/temp-store.js';
import { cli } from './run-cli.js';

const temp = useTempStore('chart-cli');
const NOW = '2026-11-21T14:05:00Z';

function stored(): Record<string, string> {
  for (const gasDay of ['2026-11-20', '2026-11-21']) {
    const event = transcoCycle({ cycle: 'timely', gasDay, seenAt: NOW, locations: [location()] });
    temp.store.capacity.upsertCycle(event.cycle, event.locations, NOW);
  }
  temp.store.close();
  return { PIPEWATCH_DATA_DIR: temp.dir };
}

describe('pipewatch chart', () => {
  it('writes the chart of a stored location to the file -o names', async () => {
    const env = stored();
    const out = join(temp.dir, 'oac.png');
    const run = await cli(['chart', 'transco', '1001234', '--threshold', '50000', '-o', out], env);
    expect(run.stderr).toContain(`wrote ${out} (2 cycles`);
    expect(run.code).toBe(0);
    expect(readFileSync(out).subarray(1, 4).toString()).toBe('PNG');
  });

  it('names a location that is not stored, with the one it was likely meant to be', async () => {
    const run = await cli(['chart', 'transco', 'STATION 58', '-o', '/dev/null'], stored());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("no location STATION 58 in transco's stored capacity");
    expect(run.stderr).toContain('STATION 85');
  });

  it('refuses an unknown pipeline before drawing anything', async () => {
    const run = await cli(['chart', 'transcoo', '1001234', '-o', '/dev/null'], stored());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('pipeline transcoo is not tracked');
  });
});

describe('pipewatch chart, its lines', () => {
  /** A rules directory with a capacity rule naming STATION 85, and one for another location. */
  function rulesDir(): string {
    const dir = join(temp.dir, 'rules');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'gas.yaml'),
      [
        'rules:',
        '  - name: elsewhere',
        '    capacity: { pipelines: [transco], locations: [STATION 90], oac_below: 1000 }',
        '    notify: [{ console: true }]',
        '  - name: station-85-watch',
        '    capacity: { pipelines: [transco], locations: [station 85], oac_below: 50000, clear_above: 70000 }',
        '    notify: [{ console: true }]',
        '',
      ].join('\n'),
    );
    return dir;
  }

  it('draws the threshold and clear level of the rule naming the location, and says so', async () => {
    rulesDir();
    const env = { ...stored(), PIPEWATCH_RULES_DIR: 'rules' };
    const at = { cwd: temp.dir };
    const fromRule = join(temp.dir, 'rule.png');
    const given = join(temp.dir, 'given.png');
    const none = join(temp.dir, 'none.png');
    const run = await cli(['chart', 'transco', '1001234', '-o', fromRule], env, at);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      'pipewatch chart: lines of rule station-85-watch (rules/gas.yaml:5:5): below 50,000 Dth, clear above 70,000 Dth',
    );
    const explicit = ['--threshold', '50000', '--clear', '70000', '-o', given];
    const byHand = await cli(['chart', 'transco', '1001234', ...explicit], env, at);
    expect(byHand.stderr).not.toContain('lines of rule');
    const noRules = { ...env, PIPEWATCH_RULES_DIR: 'no-rules' };
    const without = await cli(['chart', 'transco', '1001234', '-o', none], noRules, at);
    expect(without.stderr).not.toContain('lines of rule');
    // The same lines as given by hand: the same picture, byte for byte; none without.
    expect(readFileSync(fromRule).equals(readFileSync(given))).toBe(true);
    expect(readFileSync(fromRule).equals(readFileSync(none))).toBe(false);
  });

  it('says in --help where the lines come from', async () => {
    const run = await cli(['chart', '--help']);
    expect(run.stdout).toContain('the first capacity rule in PIPEWATCH_RULES_DIR whose locations');
  });

  it('refuses to write PNG bytes to a terminal, in one line naming -o and a pipe', async () => {
    const env = stored();
    let written = '';
    const terminal = Object.assign(
      new Writable({
        write(chunk, _enc, done) {
          written += String(chunk);
          done();
        },
      }),
      { isTTY: true },
    );
    let stderr = '';
    const errors = new Writable({
      write(chunk, _enc, done) {
        stderr += String(chunk);
        done();
      },
    });
    const code = await runCli(['chart', 'transco', '1001234'], {
      stdout: terminal,
      stderr: errors,
      env: { LOG_LEVEL: 'warn', ...env },
      cwd: temp.dir,
      signal: new AbortController().signal,
    });
    expect(code).toBe(2);
    expect(written).toBe('');
    expect(stderr.trim().split('\n')).toEqual([
      'pipewatch: not writing PNG bytes to a terminal: give -o file.png, or send stdout to a pipe or a file',
    ]);
  });
});
