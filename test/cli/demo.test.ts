import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clearDemoData } from '../../src/cli/demo.js';
import { holdRunLock } from '../../src/store/run-lock.js';
import { type DemoProcess, STORIES, startDemo } from '../fakes/demo-process.js';
import { cli } from './run-cli.js';

let demo: DemoProcess | undefined;
afterEach(async () => {
  await demo?.stop();
  demo = undefined;
});

/**
 * The message under the first `ALERT` line matching `header` whose message has `about`
 * in it: the indented lines that follow it, blank ones included, up to the next line
 * that is not indented.
 */
function block(stdout: string, header: RegExp, about = /(?:)/): string[] {
  const lines = stdout.split('\n');
  let start = -1;
  for (;;) {
    start = lines.findIndex((l, i) => i > start && header.test(l));
    if (start === -1) return [];
    const end = lines.findIndex((l, i) => i > start && l !== '' && !l.startsWith('    '));
    const found = lines.slice(start, end === -1 ? undefined : end);
    if (about.test(found.join('\n'))) return found;
  }
}

describe('pipewatch demo as a process', () => {
  it('tells the three stories through the engine, each as it would look on its platform', async () => {
    // What the simulator posts depends on the hour of the gas day, so the demo is started
    // at one: 13:00 Central, between the ID1 and the next day's timely cycles.
    demo = startDemo({}, ['--at', '2026-11-24T19:00:00Z']);
    const seen = await demo.stories;
    const out = demo.stdout();
    expect(out).toMatch(/^pipewatch demo: watching the built-in simulator/m);
    expect(out).toMatch(/^\[demo\] baseline stored \d+ notices quietly/m);

    // A constraint posted after the baseline, as Slack would show it in the channel.
    const channel = block(out, STORIES.channel).join('\n');
    expect(channel).toMatch(/^ {4}Transco: Capacity Constraint$/m);
    expect(channel).toMatch(/^ {4}Capacity Constraint - /m);
    expect(channel).toMatch(/^ {4}\[Open notice\]$/m);
    // A reminder of the flow order that needs a response within 90 minutes: at once,
    // saying how long is left, as a Slack DM.
    // Notices the baseline found with a response still ahead are reminded too, so the
    // story's DM may come after the first one.
    const storyDm = /^ {4}⏰ Texas Eastern Transmission: Response due in 1 h [0-9]+ min$/m;
    await demo.printed(storyDm);
    const reminder = block(demo.stdout(), STORIES.reminder, storyDm).join('\n');
    expect(reminder).toMatch(
      /^ {4}⏰ Texas Eastern Transmission: Response due in 1 h [0-9]+ min$/m,
    );
    expect(reminder).toMatch(/^ {4}OPERATIONAL FLOW ORDER - IMBALANCE$/m);
    // OAC at Station 85 below the example rule's 50,000, as an email with its table.
    const email = block(out, STORIES.email).join('\n');
    expect(email).toMatch(/^ {4}Subject: \[Transco\] Low OAC at STATION 85 — \w+ cycle, gas day /m);
    expect(email).toMatch(/^ {4}STATION 85 +1000085 +D .* 50,000 Dth$/m);
    // Each message stands apart from the log and event lines around it.
    for (const pattern of Object.values(STORIES)) {
      const lines = out.split('\n');
      expect(lines[lines.findIndex((l) => pattern.test(l)) - 1]).toBe('');
    }

    expect(Object.keys(seen).sort()).toEqual(['channel', 'email', 'reminder']);
    expect(await demo.stop()).toBe(0);
    demo = undefined;
  }, 120_000);
});

describe('pipewatch demo --at', () => {
  it('refuses an instant without its zone, saying what it takes, and starts nothing', async () => {
    for (const at of ['tomorrow', '2026-11-24T19:00:00']) {
      const run = await cli(['demo', '--at', at]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        "option '--at <instant>' argument '" +
          at +
          "' is invalid. must be an instant with its zone, such as 2026-11-24T19:00:00Z",
      );
      expect(run.stdout).not.toMatch(/pipewatch demo: watching/);
    }
  });
});

describe('pipewatch demo and the data/demo folder it starts afresh', () => {
  const folder = (files: Record<string, string>) => {
    const cwd = mkdtempSync(join(tmpdir(), 'pipewatch-demo-data-'));
    mkdirSync(join(cwd, 'data', 'demo'), { recursive: true });
    for (const [name, text] of Object.entries(files))
      writeFileSync(join(cwd, 'data', 'demo', name), text);
    return cwd;
  };

  it('replaces the last demo database', async () => {
    const cwd = folder({ 'pipewatch.db': 'old', 'pipewatch.db-wal': '', 'pipewatch.db-shm': '' });
    await clearDemoData(join(cwd, 'data', 'demo'), cwd);
    expect(existsSync(join(cwd, 'data', 'demo'))).toBe(false);
    // Nothing there yet is no reason to stop.
    await clearDemoData(join(cwd, 'data', 'demo'), cwd);
  });

  it('keeps the database of a demo still running there, and says so', async () => {
    const cwd = folder({ 'pipewatch.db': 'running' });
    const dir = join(cwd, 'data', 'demo');
    const running = holdRunLock(dir, '2026-11-20T15:00:00Z');
    try {
      await expect(clearDemoData(dir, cwd)).rejects.toThrow(
        /^another pipewatch run \(pid \d+ on .*\) is using the database in /,
      );
      expect(readdirSync(dir).sort()).toEqual(['pipewatch.db', 'pipewatch.lock']);
    } finally {
      running.release();
    }
    await clearDemoData(dir, cwd);
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses one holding files it did not write, naming them, and deletes nothing', async () => {
    const cwd = folder({ 'pipewatch.db': 'old', 'notes.txt': 'mine', 'a\nb.csv': '' });
    const run = await cli(['demo'], {}, { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'pipewatch: data/demo holds files the demo did not write (a\\nb.csv, notes.txt): the demo starts from a fresh database there and would delete them; move them, or run the demo in another folder\n',
    );
    expect(readdirSync(join(cwd, 'data', 'demo')).sort()).toEqual([
      'a\nb.csv',
      'notes.txt',
      'pipewatch.db',
    ]);
    expect(run.stdout).not.toMatch(/pipewatch demo: watching/);
  });
});
