/**
 * Every channel bounds the whole of each request, answer included: against servers that
 * answer a byte at a time (never silent long enough for a per-phase timeout), each
 * channel gives up at its time limit with a temporary failure saying so, and drops the
 * connection. A channel's own limit runs on its deadline clock: these give it a manual
 * one, wait until the request is at the server, then move that clock to the limit, so
 * they end the request the same way on a busy machine as on an idle one. The limit is
 * the default 30 s: the platforms' own timeouts, which watch real time, never come near
 * it while a test runs. The Slack app's calls, made before it has a channel, end in real
 * time. The limit the dispatcher gives runs on its clock, from the moment pacing lets
 * the request go.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DELIVERY_TIMEOUT_MS, withDeadline } from '../../src/channels/deadline.js';
import { createDiscordChannels } from '../../src/channels/discord/index.js';
import { createEmailChannel } from '../../src/channels/email/index.js';
import { createSlackChannels } from '../../src/channels/slack/index.js';
import { DeliveryError } from '../../src/channels/types.js';
import { createWebhookChannel } from '../../src/channels/webhook/send.js';
import { startSlackApp } from '../../src/frontends/slack/app.js';
import { systemClock } from '../../src/lib/clock.js';
import { silentLogger } from '../../src/lib/logger.js';
import { failure, memoryThreads, noticeAlert } from '../fakes/alerts.js';
import { startDripReceiver, startDripSmtp } from '../fakes/drip.js';
import { type SlackFake, startSlackFake } from '../fakes/slack.js';
import { ManualClock } from '../support/clock.js';

/** The Slack app's limit, which runs in real time: its first call is all it makes here. */
const APP_LIMIT_MS = 250;
/** A channel's own limit, in the tests that move its clock: the default, `30s`. */
const OWN_MS = DEFAULT_DELIVERY_TIMEOUT_MS;
const deps = { clock: systemClock, logger: silentLogger };
/** As the dispatcher sends: with a signal that stays live (the daemon's shutdown signal). */
const ctx = () => ({
  now: '2026-11-20T14:05:00Z',
  threads: memoryThreads(),
  signal: new AbortController().signal,
});

/**
 * Yields to the event loop until `done()` holds; gives up after 15 s of real time, a
 * bound for a hang only: each of these waits on loopback, ending in milliseconds.
 */
async function until(done: () => boolean, what: string): Promise<void> {
  const limit = performance.now() + 15_000;
  while (!done()) {
    if (performance.now() > limit) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Once `atServer()` holds and the limit runs on `clock`, moves the clock to a
 * millisecond short of the limit (the request must still be running), then onto it;
 * resolves with how the request failed.
 */
async function endAtLimit(
  clock: ManualClock,
  sending: Promise<unknown>,
  atServer: () => boolean,
): Promise<DeliveryError> {
  let ended = false;
  sending.then(
    () => {
      ended = true;
    },
    () => {
      ended = true;
    },
  );
  await until(() => atServer() && clock.pending > 0, 'the request at the server');
  clock.advance(OWN_MS - 1);
  await new Promise((resolve) => setImmediate(resolve));
  expect(ended).toBe(false);
  clock.advance(1);
  return failure(sending);
}

const closing: Array<() => Promise<unknown> | undefined> = [];
afterEach(async () => {
  for (const close of closing.reverse()) await close();
  closing.length = 0;
});

async function drip() {
  const server = await startDripReceiver({ clock: systemClock, everyMs: 20 });
  closing.push(() => server.close());
  return server;
}

describe('a server that answers a byte at a time', () => {
  it('ends a webhook request at its time limit, body included', async () => {
    const server = await drip();
    const clock = new ManualClock();
    const webhook = createWebhookChannel(
      { pace: { perUrl: 1000, perHost: 1000 } },
      { ...deps, deadlineClock: clock },
    );
    closing.push(() => webhook.close?.());
    const sending = webhook.send(
      { kind: 'webhook', url: `${server.url}/hook` },
      [noticeAlert()],
      ctx(),
    );
    const error = await endAtLimit(clock, sending, () => server.open === 1);
    expect(error).toMatchObject({
      permanent: false,
      reason: `webhook: no complete answer within 30s (${server.url})`,
    });
    await until(() => server.abandoned === 1, 'the connection to be dropped');
  });

  it('ends a Slack call at its time limit, body included', async () => {
    const server = await drip();
    const clock = new ManualClock();
    const slack = createSlackChannels(
      { token: 'xoxb-1-2-drip', apiUrl: `${server.url}/api/` },
      { ...deps, deadlineClock: clock },
    );
    closing.push(() => slack.slack.close?.());
    const sending = slack.slack.send({ kind: 'slack', channel: '#gas' }, [noticeAlert()], ctx());
    const error = await endAtLimit(clock, sending, () => server.open === 1);
    expect(error).toMatchObject({
      permanent: false,
      reason: 'slack: no complete answer within 30s (#gas)',
    });
    await until(() => server.abandoned === 1, 'the connection to be dropped');
  });

  it("ends the Slack app's calls at its time limit, body included", async () => {
    const server = await drip();
    const started = performance.now();
    const starting = startSlackApp({
      token: 'xoxb-1-2-drip',
      signingSecret: 'b3ac0a1e5d9c4f7e8a2b6c1d0e9f8a7b',
      apiUrl: `${server.url}/api/`,
      timeoutMs: APP_LIMIT_MS,
      chat: undefined as never,
      clock: systemClock,
      logger: silentLogger,
      replays: undefined as never,
    });
    await expect(starting).rejects.toThrow(
      'the Slack app could not start: slack: no complete answer within 250ms (auth.test); check the network and SLACK_API_URL',
    );
    // A bound for a hang, not a speed: the drip never ends, and the app's start loads
    // Bolt, seconds on a busy machine.
    expect(performance.now() - started).toBeLessThan(10_000);
    await until(() => server.abandoned === 1, 'the connection to be dropped');
  });

  it('ends a Discord request at its time limit, body included', async () => {
    const server = await drip();
    const clock = new ManualClock();
    const discord = createDiscordChannels(
      { token: 'MTIzNDU2Nzg5.GhIjKl.dripSecretPart', apiUrl: server.url },
      { ...deps, deadlineClock: clock },
    );
    closing.push(() => discord.discord.close?.());
    const channel = '1100000000000000001';
    const sending = discord.discord.send({ kind: 'discord', channel }, [noticeAlert()], ctx());
    const error = await endAtLimit(clock, sending, () => server.open === 1);
    expect(error).toMatchObject({
      permanent: false,
      reason: `discord: no complete answer within 30s (channel ${channel})`,
    });
    await until(() => server.abandoned === 1, 'the connection to be dropped');
  });

  it('ends an email at its time limit when the server trickles its reply', async () => {
    const server = await startDripSmtp({ clock: systemClock, everyMs: 20 });
    closing.push(() => server.close());
    const clock = new ManualClock();
    const email = createEmailChannel(
      { smtpUrl: server.url, from: 'alerts@example.com', ratePerSecond: 1000 },
      { ...deps, deadlineClock: clock },
    );
    closing.push(() => email.close?.());
    const sending = email.send({ kind: 'email', to: ['ops@example.com'] }, [noticeAlert()], ctx());
    const error = await endAtLimit(clock, sending, () => server.messages === 1);
    expect(error).toMatchObject({
      permanent: false,
      reason: `email: no complete answer within 30s (${server.url.slice('smtp://'.length)})`,
    });
    await until(() => server.abandoned === 1, 'the connection to be dropped');
  });
});

describe('the deadline the dispatcher gives', () => {
  it('runs on its clock and counts from when pacing lets the request go', async () => {
    const clock = new ManualClock();
    const fake: SlackFake = await startSlackFake();
    closing.push(() => fake.close());
    const slack = createSlackChannels(
      { token: fake.token, apiUrl: fake.url },
      { clock, logger: silentLogger },
    );
    closing.push(() => slack.slack.close?.());
    const bounded = { ...ctx(), deadline: { ms: 30_000, clock } };
    const gas = { kind: 'slack' as const, channel: '#gas' };
    // Slack asks to wait 40 s: the channel holds #gas that long.
    fake.inject({ method: 'chat.postMessage', status: 429, retryAfter: 40 });
    expect(await failure(slack.slack.send(gas, [noticeAlert()], bounded))).toMatchObject({
      retryAfterMs: 40_000,
    });
    const held = slack.slack.send(gas, [noticeAlert()], bounded);
    await until(() => clock.pending === 1, 'the hold');
    clock.advance(30_000);
    clock.advance(10_000);
    await expect(held).resolves.toMatchObject({
      detail: expect.stringMatching(/^ok channel=C0GAS /),
    });
  });

  it('ends a webhook request at its end, on that clock', async () => {
    const clock = new ManualClock();
    const server = await startDripReceiver({ clock, everyMs: 5_000 });
    closing.push(() => server.close());
    const webhook = createWebhookChannel(
      { pace: { perUrl: 1000, perHost: 1000 } },
      { clock, logger: silentLogger },
    );
    closing.push(() => webhook.close?.());
    const sending = webhook.send({ kind: 'webhook', url: `${server.url}/hook` }, [noticeAlert()], {
      ...ctx(),
      deadline: { ms: 30_000, clock },
    });
    sending.catch(() => undefined);
    for (let t = 5; t < 30; t += 5) {
      const bytes = server.bytes;
      await until(() => server.open === 1 && clock.pending === 2, 'the drip and the deadline');
      clock.advance(5_000);
      await until(() => server.bytes === bytes + 1, `the drip at ${t}s`);
    }
    clock.advance(5_000);
    expect(await failure(sending)).toMatchObject({
      permanent: false,
      reason: `webhook: no complete answer within 30s (${server.url})`,
    });
    await until(() => server.abandoned === 1, 'the connection to be dropped');
  });
});

describe('the deadline of an attempt', () => {
  it('ends an attempt that ignores its signal, as a temporary failure', async () => {
    const clock = new ManualClock();
    let seen: AbortSignal | undefined;
    const attempt = withDeadline({ kind: 'webhook', ms: 30_000, clock }, (signal) => {
      seen = signal;
      return new Promise<never>(() => undefined);
    });
    clock.advance(29_999);
    expect(seen?.aborted).toBe(false);
    clock.advance(1);
    const error = await failure(attempt);
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({
      permanent: false,
      reason: 'webhook: no complete answer within 30s',
    });
    expect(seen?.aborted).toBe(true);
  });

  it('passes on a stop to the attempt, and leaves no timer behind once it ends', async () => {
    const clock = new ManualClock();
    const stop = new AbortController();
    const attempt = withDeadline(
      { kind: 'email', ms: 30_000, clock, signal: stop.signal },
      (s) => new Promise((_, reject) => s.addEventListener('abort', () => reject(s.reason))),
    );
    stop.abort(new Error('stopping'));
    await expect(attempt).rejects.toThrow('stopping');
    expect(clock.pending).toBe(0);
    await withDeadline({ kind: 'slack', ms: 30_000, clock }, async () => 'ok');
    expect(clock.pending).toBe(0);
  });
});
