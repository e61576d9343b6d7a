import { afterEach, describe, expect, it } from 'vitest';
import { type DemoProcess, STORIES, startDemo } from '../fakes/demo-process.js';

let demo: DemoProcess | undefined;
afterEach(async () => {
  await demo?.stop();
  demo = undefined;
});

/** The lines of the block that starts with the first match of `header`. */
function block(stdout: string, header: RegExp): string[] {
  const lines = stdout.split('\n');
  const start = lines.findIndex((l) => header.test(l));
  const end = lines.findIndex((l, i) => i > start && l.trim() === '');
  return lines.slice(start, end === -1 ? undefined : end);
}

describe('pipewatch demo as a process', () => {
  it('tells the three stories through the engine, each as it would look on its platform', async () => {
    demo = startDemo();
    const seen = await demo.stories;
    const out = demo.stdout();
    expect(out).toMatch(/^pipewatch demo: watching the built-in simulator/m);
    expect(out).toMatch(/^\[demo\] baseline stored \d+ notices quietly/m);

    // A constraint posted after the baseline, in a Slack channel.
    expect(block(out, STORIES.channel).join('\n')).toMatch(/Capacity Constraint - /);
    // A reminder of the flow order that needs a response within 90 minutes: at once.
    expect(block(out, STORIES.reminder).join('\n')).toMatch(/OPERATIONAL FLOW ORDER - IMBALANCE/);
    // OAC at Station 85 below the example rule's 50,000.
    expect(block(out, STORIES.email).join('\n')).toMatch(/STATION 85/);

    expect(Object.keys(seen).sort()).toEqual(['channel', 'email', 'reminder']);
    expect(await demo.stop()).toBe(0);
    demo = undefined;
  }, 120_000);
});
