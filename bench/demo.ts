/**
 * How soon a newcomer sees the three stories: `pipewatch demo` started as a process, the
 * seconds from its banner to the first alert of each (a constraint in a Slack channel, a
 * DM reminder, an OAC email), at now and at instants that once broke them (an evening
 * after the next day's cycles are posted, a daylight saving morning). Goal: all three
 * within 30 s at any instant. A run that has not shown all three after `LIMIT_MS` fails,
 * naming what it did show.
 */
import { STORIES, type Story, startDemo } from '../test/fakes/demo-process.js';

/** Where each run starts the simulated clock; undefined: now. */
const AT = [undefined, '2026-11-29T04:50:00Z', '2027-03-14T08:05:00Z'];
const LIMIT_MS = 90_000;

export async function demoBench(): Promise<Record<string, number>> {
  const runs: Array<Record<Story, number>> = [];
  for (const at of AT) {
    const demo = startDemo({}, at ? ['--at', at] : []);
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const shown = Object.entries(STORIES)
          .filter(([, pattern]) => pattern.test(demo.stdout()))
          .map(([story]) => story);
        reject(
          new Error(
            `demo at ${at ?? 'now'}: after ${LIMIT_MS / 1000} s it had shown ${shown.join(', ') || 'no story'} of channel, reminder, email`,
          ),
        );
      }, LIMIT_MS);
    });
    try {
      runs.push(await Promise.race([demo.stories, limit]));
    } finally {
      clearTimeout(timer);
      await demo.stop();
    }
  }
  const seconds = (ms: number) => Math.round(ms / 100) / 10;
  const worst = (story: Story) => seconds(Math.max(...runs.map((r) => r[story])));
  const all = runs.map((r) => Math.max(r.channel, r.reminder, r.email)).sort((a, b) => a - b);
  return {
    runs: runs.length,
    channel_s_max: worst('channel'),
    reminder_s_max: worst('reminder'),
    email_s_max: worst('email'),
    all_three_s_median: seconds(all[Math.floor(all.length / 2)]!),
    all_three_s_max: seconds(all.at(-1)!),
  };
}
