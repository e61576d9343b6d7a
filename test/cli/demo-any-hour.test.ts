/**
 * The demo tells its three stories whatever the hour: the daemon `pipewatch demo` wires
 * (`openDemo`), started at instants all over a gas day, on weekends and on both daylight
 * saving days, runs its baseline, then two acts of the storyline, each followed by one
 * pass of every feed and the outbox (what the running demo does within seconds). After
 * the first act a Slack channel gets the constraint, a DM the flow order's reminder and
 * email the drop at Station 85; after the second, email its recovery. Time is a manual
 * clock: nothing waits.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CliContext } from '../../src/cli/context.js';
import { openDemo } from '../../src/cli/demo.js';
import { Storyline } from '../../src/simulator/storyline.js';
import { STORIES } from '../fakes/demo-process.js';
import { ManualClock } from '../support/clock.js';

/** Real milliseconds between two passes: five simulated minutes at the demo's speed. */
const PASS_MS = 5_000;

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/** The alert blocks printed since `from`, as their first lines. */
function alertsSince(out: string, from: number): string[] {
  return out
    .slice(from)
    .split('\n')
    .filter((l) => l.startsWith('ALERT '));
}

/** Plays the demo at `at`; returns what each act brought, as alert lines and email subjects. */
async function playAt(at: string) {
  const cwd = mkdtempSync(join(tmpdir(), 'pipewatch-demo-hour-'));
  const clock = new ManualClock(at);
  const stdout = new Capture();
  const stderr = new Capture();
  const ctx = new CliContext({
    stdout,
    stderr,
    // The API's default pace (2 a second) is for a real service; the simulator takes more.
    env: { LOG_LEVEL: 'warn', PIPEWATCH_API_RATE: '1000', PIPEWATCH_API_CONCURRENCY: '4' },
    cwd,
    signal: new AbortController().signal,
    clock,
  });
  const daemon = await openDemo(ctx, cwd, new Date(at));
  try {
    const simulator = daemon.target.simulator!;
    const baseline = await daemon.runOnce();
    expect(baseline.feeds.every((f) => f.ok)).toBe(true);
    const story = new Storyline(simulator.control, () => simulator.now());
    const acts = [];
    for (let i = 0; i < 2; i++) {
      const act = story.next();
      const from = stdout.text.length;
      clock.advance(PASS_MS);
      const pass = await daemon.runOnce();
      expect(pass.feeds.every((f) => f.ok)).toBe(true);
      const alerts = alertsSince(stdout.text, from);
      const subjects = stdout.text
        .slice(from)
        .split('\n')
        .filter((l) => /^ {4}Subject: .*STATION 85/.test(l))
        .map((l) => l.trim());
      acts.push({ act, alerts, subjects });
    }
    return { acts, stderr: stderr.text };
  } finally {
    await daemon.close();
  }
}

/** Every hour of the gas day of Tuesday 2026-12-01, 9:20 a.m. Central onwards. */
const GAS_DAY = Array.from({ length: 24 }, (_, i) =>
  new Date(Date.parse('2026-12-01T15:20:00Z') + i * 3_600_000).toISOString(),
);
/** A weekend, the two daylight saving days (Central), and the hour first seen to fail. */
const SPECIAL = [
  '2026-11-29T04:50:00Z', // 10:50 p.m. Saturday Central: after ID3, the next day's cycles already in
  '2026-12-05T14:59:00Z', // Saturday, a minute before the gas day turns
  '2026-12-06T03:30:00Z', // Saturday 9:30 p.m.: between the evening and ID3 postings
  '2026-12-06T23:10:00Z', // Sunday 5:10 p.m.: timely just posted, ID2 not yet
  '2027-03-14T07:30:00Z', // spring forward: 1:30 a.m. CST, the skipped hour just ahead
  '2027-03-14T08:05:00Z', // 3:05 a.m. CDT, just after it
  '2027-03-14T22:45:00Z', // 5:45 p.m. CDT on the short day
  '2026-11-01T06:30:00Z', // fall back: 1:30 a.m. CDT, the first of the two
  '2026-11-01T07:30:00Z', // 1:30 a.m. CST, the second
  '2026-11-01T23:20:00Z', // 5:20 p.m. CST on the long day
];

describe('pipewatch demo at any instant', () => {
  it.each([...SPECIAL, ...GAS_DAY])(
    'at %s: a constraint, a reminder and an OAC drop, then its recovery',
    async (at) => {
      const [first, second] = (await playAt(at)).acts;
      expect(first!.act.capacity.low).toBe(true);
      const lines = first!.alerts.join('\n');
      expect(lines).toMatch(STORIES.channel);
      expect(lines).toMatch(STORIES.reminder);
      expect(lines).toMatch(STORIES.email);
      expect(first!.subjects).toEqual([
        expect.stringMatching(/^Subject: \[Transco\] Low OAC at STATION 85 — /),
      ]);
      expect(second!.act.capacity.low).toBe(false);
      expect(second!.subjects).toEqual([
        expect.stringMatching(/^Subject: \[Transco\] OAC recovered at STATION 85 — /),
      ]);
    },
    60_000,
  );
});
