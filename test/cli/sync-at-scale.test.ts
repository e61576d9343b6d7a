/**
 * A sync against the chat state a busy install gathers, in `pipewatch run` as users run
 * it (the built `dist/main.js`): 10,000 channel subscriptions in 200 Slack channels, one
 * person's 2,000 reminders and 5,000 mutes, stored through the store's repositories before
 * the daemon starts, as chat stores them (`bench/chat-state.ts`). The simulator holds 20
 * new notices for the daemon's first sync, which queues thousands of alerts to the 200
 * channels (delivered meanwhile to the Slack fake); meanwhile `/healthz` and a signed
 * Slack `/pipewatch help` are asked again and again, and each must be answered while the
 * sync runs, within the 3 seconds Slack waits. Before silences were looked up by what they match,
 * a sync worked in slices and each message went out in a turn of its own, this held the
 * daemon for seconds. The bounds are for a hang only: every wait ends on what the daemon
 * or the fake says.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { storeMutes, storeReminders } from '../../bench/chat-state.js';
import { benchChannel, subscribeText } from '../../bench/subscriptions.js';
import { type ChatRuleCommand, parseChatCommand } from '../../src/chat/grammar.js';
import { storeSubscription } from '../../src/chat/subscribe.js';
import { toUtcIso } from '../../src/lib/time.js';
import { PIPELINES } from '../../src/simulator/pipelines.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import { Store } from '../../src/store/index.js';
import {
  assertBuilt,
  type DaemonProcess,
  STEP_HANG_MS,
  STORY_HANG_MS,
  startDaemon,
} from '../fakes/daemon-process.js';
import { type SimulatedApi, startSimulatedApi } from '../fakes/simulated-api.js';
import { FAKE_TOKEN, type SlackFake, startSlackFake } from '../fakes/slack.js';
import { slashCommand } from '../fakes/slack-payloads.js';
import { slackRequestSender } from '../fakes/slack-requests.js';
import { seededRandom } from '../support/seeded-random.js';
import { cli } from './run-cli.js';

const SECRET = '5eed5eed5eed5eed5eed5eed5eed5eed';
const SUBSCRIPTIONS = 10_000;
const CHANNELS = 200;
const REMINDERS = 2_000;
const MUTES = 5_000;
const NOTICES = 20;
/**
 * How long an answer may take: what Slack waits for, the contract. The figure to beat
 * is the event loop's longest hold during such a sync, which `npm run bench
 * sync_at_scale` measures in CPU terms (`block_ms`); a wall-clock bound tighter than the
 * contract fails on a machine busy with other work, and says nothing about pipewatch.
 */
const ANSWER_MS = 3_000;

let api: SimulatedApi;
let slack: SlackFake;
const running: DaemonProcess[] = [];

beforeAll(async () => {
  await assertBuilt();
  slack = await startSlackFake();
  for (let n = 0; n < CHANNELS; n++) {
    const id = benchChannel(n);
    slack.channels.set(id, { id, name: `gas-desk-${n}` });
  }
  api = await startSimulatedApi({
    seed: 29,
    start: new Date(Math.floor(Date.now() / 1000) * 1000),
    rules: 'rules: []\n',
  });
}, STEP_HANG_MS);
afterEach(() => {
  for (const d of running.splice(0)) d.kill();
});
afterAll(async () => {
  await Promise.all([api?.sim.close(), slack?.close()]);
});

/**
 * 10,000 subscriptions of a few dozen kinds (`transco type:constraint`, `anr,ngpl
 * category:critical`, …), 50 in each channel, each kind at most once a channel.
 */
async function storeSubscriptions(store: Store, at: Date): Promise<void> {
  const vocabulary = {
    pipelines: store.pipelines.all().map((p) => p.slug),
    ...store.notices.vocabulary(),
    locations: () => undefined,
  };
  const random = seededRandom(5);
  // Kinds whose type the baseline has seen (it varies with the hour the simulator starts).
  const kinds = new Map<string, ChatRuleCommand>();
  for (let tries = 0; kinds.size < 60; tries++) {
    if (tries > 5_000) throw new Error(`only ${kinds.size} kinds of subscription parse`);
    const text = subscribeText(random);
    const parsed = parseChatCommand(text, vocabulary);
    if (parsed.ok && parsed.command.verb === 'subscribe') kinds.set(text, parsed.command);
  }
  const commands = [...kinds.values()];
  const now = toUtcIso(at);
  const shared = asyncStoreOf(store);
  await shared.transaction(async () => {
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      const n = i % CHANNELS;
      const channel = benchChannel(n);
      const command = commands[(n + Math.floor(i / CHANNELS)) % commands.length]!;
      const place = {
        target: { kind: 'slack' as const, channel },
        channel: `slack:${channel}`,
        source: 'slack' as const,
        by: 'U0TRADER1',
      };
      const made = await storeSubscription(shared, place, command, now);
      if ('problem' in made) throw new Error(made.problem);
    }
  });
}

describe('a sync against thousands of subscriptions, reminders and mutes', () => {
  it('leaves /healthz and a signed Slack command answered within a second', {
    timeout: STORY_HANG_MS,
  }, async () => {
    const env = {
      ...api.env,
      SLACK_BOT_TOKEN: FAKE_TOKEN,
      SLACK_API_URL: slack.url,
      SLACK_SIGNING_SECRET: SECRET,
    };
    // The baseline, then the chat state, then what the next sync finds.
    const baseline = await cli(['run', '--once'], env);
    expect(baseline.code, baseline.stderr).toBe(0);
    const now = new Date();
    const store = Store.open(api.dataDir);
    try {
      await storeSubscriptions(store, now);
      storeReminders(store, REMINDERS, now);
      storeMutes(store, MUTES, CHANNELS, now);
      expect(store.subscriptions.counts().total).toBe(SUBSCRIPTIONS + REMINDERS);
    } finally {
      store.close();
    }
    const added = Array.from(
      { length: NOTICES },
      (_, i) =>
        api.sim.control.addNotice({ pipeline_slug: PIPELINES[i % PIPELINES.length]!.slug }).id,
    );

    const d = startDaemon(env, { program: 'node' });
    running.push(d);
    const base = await d.http;
    const send = slackRequestSender({ url: `${base}/slack/events`, signingSecret: SECRET });
    /** The notices of this sync the daemon has logged as decided, with when. */
    const decided = () =>
      d.logs().filter((l) => l.event === 'new' && added.includes(Number(l.notice)));
    const answers: { what: string; status: number; sent: number; ms: number }[] = [];
    const timed = async (what: string, ask: () => Promise<{ status: number }>) => {
      const sent = Date.now();
      const started = performance.now();
      const { status } = await ask();
      answers.push({ what, status, sent, ms: performance.now() - started });
    };
    while (decided().length < NOTICES) {
      await timed('/healthz', () =>
        fetch(`${base}/healthz`).then(async (r) => {
          await r.arrayBuffer();
          return r;
        }),
      );
      await timed('/pipewatch help', () => send.command(slashCommand(slack, { text: 'help' })));
      if (answers.length > 10_000) throw new Error('the sync never ended');
    }

    const times = decided().map((l) => Date.parse(String(l.time)));
    await d.stop('SIGKILL');
    const [first, last] = [Math.min(...times), Math.max(...times)];
    const slow = answers.filter((a) => a.ms > ANSWER_MS);
    expect(slow, `answers slower than ${ANSWER_MS} ms`).toEqual([]);
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    // Both were asked and answered while the sync decided its notices, not only after.
    for (const what of ['/healthz', '/pipewatch help'])
      expect(
        answers.filter((a) => a.what === what && a.sent > first && a.sent + a.ms < last).length,
        `${what} answered between the first notice decided and the last`,
      ).toBeGreaterThan(0);
    // And the sync did decide alerts, and held some back, against that state.
    const after = Store.open(api.dataDir);
    try {
      const n = (sql: string) => (after.db.prepare(sql).get() as { n: number }).n;
      expect(n('SELECT count(*) AS n FROM outbox')).toBeGreaterThan(100);
      expect(n('SELECT count(*) AS n FROM held')).toBeGreaterThan(0);
    } finally {
      after.close();
    }
  });
});
