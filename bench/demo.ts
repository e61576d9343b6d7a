/**
 * How soon a newcomer sees the three stories: `pipewatch demo` started as a process, the
 * seconds from its banner to the first alert of each (a constraint in a Slack channel, a
 * DM reminder, an OAC email), over a few runs. Goal: all three within 30 s.
 */
import { type Story, startDemo } from '../test/fakes/demo-process.js';

const RUNS = 3;

export async function demoBench(): Promise<Record<string, number>> {
  const runs: Array<Record<Story, number>> = [];
  for (let i = 0; i < RUNS; i++) {
    const demo = startDemo();
    try {
      runs.push(await demo.stories);
    } finally {
      await demo.stop();
    }
  }
  const seconds = (ms: number) => Math.round(ms / 100) / 10;
  const worst = (story: Story) => seconds(Math.max(...runs.map((r) => r[story])));
  const all = runs.map((r) => Math.max(r.channel, r.reminder, r.email)).sort((a, b) => a - b);
  return {
    runs: RUNS,
    channel_s_max: worst('channel'),
    reminder_s_max: worst('reminder'),
    email_s_max: worst('email'),
    all_three_s_median: seconds(all[Math.floor(all.length / 2)]!),
    all_three_s_max: seconds(all.at(-1)!),
  };
}
