/**
 * What the idle benchmarks (`idle_rss`, `idle`) share: the upstream and the one rule their
 * daemon runs,
 * the process's CPU time read from outside, and the waits until it has done its first
 * sync of every feed and gone quiet. A benchmark may wait on the wall clock; the tests
 * never do.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { Store } from '../src/store/index.js';
import type { DaemonProcess } from '../test/fakes/daemon-process.js';
import { type SimulatedApi, startSimulatedApi } from '../test/fakes/simulated-api.js';
import { type SlackFake, startSlackFake } from '../test/fakes/slack.js';

/** One rule alerting a Slack channel: enough for the daemon to poll and judge. */
export const IDLE_RULES = `rules:
  - name: transco-constraints
    notices:
      pipelines: [transco]
      types: [constraint]
    notify:
      - slack: "#gas"
`;

/**
 * The simulator and the Slack fake, and the environment of a daemon that watches the one
 * and alerts the other by `IDLE_RULES`; `close` stops both and removes the data directory.
 */
export async function idleUpstream(): Promise<{
  env: Record<string, string>;
  dataDir: string;
  api: SimulatedApi;
  slack: SlackFake;
  close(): Promise<void>;
}> {
  const slack = await startSlackFake();
  const api = await startSimulatedApi({
    seed: 43,
    start: new Date(Math.floor(Date.now() / 1000) * 1000),
    rules: IDLE_RULES,
  });
  return {
    env: { ...api.env, SLACK_BOT_TOKEN: slack.token, SLACK_API_URL: slack.url },
    dataDir: api.dataDir,
    api,
    slack,
    async close() {
      await api.sim.close();
      await slack.close();
      rmSync(api.dataDir, { recursive: true, force: true });
    },
  };
}

/** Longest wait for the daemon to get through its start. */
export const WITHIN_MS = 60_000;
/** How long the daemon must be quiet to count as idle. */
const QUIET_MS = 3_000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Checks `done` every `everyMs` until it holds; fails after `withinMs` naming `what`. */
export async function poll(what: string, done: () => boolean, withinMs: number, everyMs = 100) {
  const until = Date.now() + withinMs;
  while (!done()) {
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await sleep(everyMs);
  }
}

/**
 * Nanoseconds on a CPU, summed over the threads the process has now
 * (/proc/<pid>/task/<tid>/schedstat): utime + stime of /proc/<pid>/stat count 10 ms
 * ticks, too coarse for what an idle process spends in a minute. Linux only.
 */
export function cpuNanos(pid: number): number {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read; its time is lost either way.
    }
  }
  return total;
}

/** Waits until the process has used under 1% of a core and logged nothing for `QUIET_MS`. */
export async function quiet(d: DaemonProcess): Promise<void> {
  const samples: Array<{ at: number; ns: number; lines: number }> = [];
  await poll(
    'the daemon to be idle',
    () => {
      const now = { at: Date.now(), ns: cpuNanos(d.pid), lines: d.logs().length };
      samples.push(now);
      const from = samples.find((s) => now.at - s.at <= QUIET_MS + 250);
      if (!from || now.at - from.at < QUIET_MS) return false;
      return now.ns - from.ns <= (now.at - from.at) * 1e4 && now.lines === from.lines;
    },
    WITHIN_MS,
    250,
  );
}

/** Whether every feed the daemon said it runs has a success recorded in its database. */
export function feedsDone(d: DaemonProcess, dataDir: string): boolean {
  const running = d.logs().find((l) => l.msg.startsWith('pipewatch running'));
  const feeds = (running?.feeds as string[] | undefined)?.map((f) => f.split('/')[0]!);
  if (!feeds) return false;
  const store = Store.openReadonly(dataDir);
  try {
    const done = new Set(
      store.syncState
        .all()
        .filter((s) => s.last_success_at)
        .map((s) => s.feed),
    );
    return feeds.every((f) => done.has(f));
  } finally {
    store.close();
  }
}
