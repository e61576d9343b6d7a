/**
 * Bodies read before they are trusted, over real HTTP on loopback, with the Slack app,
 * the Discord app and unsubscribe links mounted on one daemon server as `pipewatch run`
 * mounts them: a request without its signature headers, or with a stale timestamp, is
 * refused before any of its body is sent; the bodies being read share one budget of
 * bytes and requests, and one beyond it is turned away at once with 503 and
 * `Retry-After`; and a flood of forged 1 MiB requests, each signed in the right form but
 * not by Slack or Discord, holds no more than that budget while `/healthz` answers.
 */
import { randomBytes } from 'node:crypto';
import { type Agent, type ClientRequest, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { SlackApp } from '../../src/frontends/slack/app.js';
import type { RunningHttpServer } from '../../src/http/server.js';
import { UNVERIFIED_LIMITS, type UnverifiedLimits } from '../../src/lib/request-body.js';
import { type SlackFake, startSlackFake } from '../fakes/slack.js';
import { slashCommand } from '../fakes/slack-payloads.js';
import { slackRequestSender } from '../fakes/slack-requests.js';
import { type CoreUnderTest, startChatCore } from '../support/chat-core.js';
import { serveChatEndpoints } from '../support/chat-endpoints.js';
import { ManualClock } from '../support/clock.js';
import { forgedFlood, signedLookingTargets } from '../support/forged-flood.js';

const NOW = '2026-11-20T15:00:00Z';
const SIGNING_SECRET = '3f1c9a7be05d4c2f8a6b1e9d7c3a5f20';
const MiB = 1024 * 1024;
/** Forged requests in the flood, all at once. */
const FLOOD = 600;

interface Daemon {
  server: RunningHttpServer;
  clock: ManualClock;
  chat: CoreUnderTest;
  fake: SlackFake;
  slack: SlackApp;
  close(): Promise<void>;
}

let daemon: Daemon | undefined;
afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
});

/** The Slack and Discord apps and unsubscribe links on one server, as the daemon serves them. */
async function start(unverified?: Partial<UnverifiedLimits>): Promise<Daemon> {
  const clock = new ManualClock(NOW);
  const chat = startChatCore({ clock });
  const fake = await startSlackFake({ clock, rate: { perSecond: 100, burst: 10 } });
  const endpoints = await serveChatEndpoints({
    chat: chat.core,
    store: chat.store,
    clock,
    slack: { apiUrl: fake.url, token: fake.token, signingSecret: SIGNING_SECRET },
    unverified,
  });
  const { server, slack } = endpoints;
  daemon = {
    server,
    clock,
    chat,
    fake,
    slack,
    async close() {
      await endpoints.close();
      await fake.close();
      chat.close();
    },
  };
  return daemon;
}

/** Headers of the right form, signed now, by no one: what a forger can send. */
function forgedHeaders(
  d: Daemon,
  path: '/slack/events' | '/discord/interactions',
): Record<string, string> {
  const timestamp = String(Math.floor(d.clock.now().getTime() / 1000));
  return path === '/slack/events'
    ? {
        'content-type': 'application/x-www-form-urlencoded',
        'x-slack-request-timestamp': timestamp,
        'x-slack-signature': `v0=${randomBytes(32).toString('hex')}`,
      }
    : {
        'content-type': 'application/json',
        'x-signature-timestamp': timestamp,
        'x-signature-ed25519': randomBytes(64).toString('hex'),
      };
}

/** An outcome: the status answered, or how the connection ended without one. */
type Outcome = number | string;

/**
 * Sends a POST whose headers say `length` bytes and whose body is `body` (less than
 * `length` leaves it unfinished: only an answer that does not wait for it arrives).
 */
function post(
  d: Daemon,
  path: string,
  headers: Record<string, string>,
  length: number,
  body: Buffer,
  agent?: Agent,
): { outcome: Promise<Outcome>; req: ClientRequest; headers: Promise<Record<string, unknown>> } {
  let req!: ClientRequest;
  let answered!: (h: Record<string, unknown>) => void;
  const answerHeaders = new Promise<Record<string, unknown>>((r) => {
    answered = r;
  });
  const outcome = new Promise<Outcome>((resolve) => {
    req = request(`${d.server.url}${path}`, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(length) },
      agent: agent ?? false,
    });
    req.on('response', (res) => {
      answered(res.headers);
      res.resume();
      resolve(res.statusCode ?? 0);
      if (body.length < length) req.destroy();
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    req.flushHeaders();
    if (body.length > 0) req.write(body);
    if (body.length >= length) req.end();
  });
  return { outcome, req, headers: answerHeaders };
}

describe('a request that cannot be signed now', () => {
  it('is refused with 401 before any of its body arrives, on Slack and Discord', async () => {
    const d = await start();
    const stale = String(Math.floor(d.clock.now().getTime() / 1000) - 301);
    const cases: Array<[string, Record<string, string>]> = [
      [
        '/slack/events',
        {
          'x-slack-request-timestamp': forgedHeaders(d, '/slack/events')[
            'x-slack-request-timestamp'
          ]!,
        },
      ],
      [
        '/slack/events',
        { ...forgedHeaders(d, '/slack/events'), 'x-slack-request-timestamp': stale },
      ],
      ['/discord/interactions', { 'x-signature-timestamp': stale.replace(/.$/, '0') }],
      [
        '/discord/interactions',
        { ...forgedHeaders(d, '/discord/interactions'), 'x-signature-timestamp': stale },
      ],
    ];
    for (const [path, headers] of cases) {
      // A megabyte announced, none of it sent: only an answer that does not wait for it comes.
      const { outcome } = post(d, path, headers, MiB, Buffer.alloc(0));
      expect(await outcome, `${path} ${JSON.stringify(headers)}`).toBe(401);
    }
    expect(d.server.bodies.requests.peak).toBe(0);
  });
});

describe('the budget of bodies not yet trusted', () => {
  it('turns a request beyond it away at once with 503 and Retry-After, and takes the next once there is room', async () => {
    const d = await start({ requests: 2, bytes: 64 * 1024 });
    // Two requests whose bodies are still coming hold the two places.
    const slow = [
      post(d, '/slack/events', forgedHeaders(d, '/slack/events'), 4096, Buffer.alloc(10, 0x61)),
      post(
        d,
        '/discord/interactions',
        forgedHeaders(d, '/discord/interactions'),
        4096,
        Buffer.alloc(10, 0x20),
      ),
    ];
    await expect.poll(() => d.server.bodies.requests.now).toBe(2);
    expect(d.server.bodies.buffered.now).toBe(20);
    const third = post(
      d,
      '/slack/events',
      forgedHeaders(d, '/slack/events'),
      100,
      Buffer.alloc(100, 0x61),
    );
    expect(await third.outcome).toBe(503);
    expect(await third.headers).toMatchObject({ 'retry-after': '1', connection: 'close' });
    // A body larger than the bytes left is turned away too, whatever the places.
    for (const s of slow) s.req.destroy();
    await expect.poll(() => d.server.bodies.requests.now).toBe(0);
    const huge = post(
      d,
      '/slack/events',
      forgedHeaders(d, '/slack/events'),
      65 * 1024,
      Buffer.alloc(0),
    );
    expect(await huge.outcome).toBe(503);
    expect(d.server.bodies.buffered.now).toBe(0);
    // With room again, a signed command is read and answered.
    const send = slackRequestSender({
      url: `${d.server.url}/slack/events`,
      signingSecret: SIGNING_SECRET,
      clock: d.clock,
    });
    const res = await send.command(slashCommand(d.fake, { text: 'subscribe transco' }));
    expect(res.status).toBe(200);
    expect(d.chat.store.subscriptions.all()).toHaveLength(1);
    expect(d.server.bodies.turnedAway).toBe(2);
  });

  it('holds a flood of forged 1 MiB requests to the budget, and /healthz answers meanwhile', async () => {
    const d = await start();
    // fetch loads its HTTP client on first use: not the server's time.
    await (await fetch(`${d.server.url}/healthz`)).text();
    const flood = forgedFlood({
      url: d.server.url,
      count: FLOOD,
      size: MiB,
      targets: signedLookingTargets(Math.floor(d.clock.now().getTime() / 1000)),
    });
    let done = false;
    const finished = flood.done.finally(() => {
      done = true;
    });
    await flood.ready;
    flood.go();
    await flood.started;
    // /healthz, asked again and again while the flood lasts.
    const healthz: number[] = [];
    while (!done) {
      const res = await fetch(`${d.server.url}/healthz`);
      await res.text();
      healthz.push(res.status);
      await new Promise((r) => setTimeout(r, 10));
    }
    const counts = await finished;
    // Every forged request was refused, by its signature or for want of room.
    const refused = Object.entries(counts).filter(([o]) =>
      ['401', '503', 'ECONNRESET', 'EPIPE'].includes(o),
    );
    expect(
      refused.reduce((n, [, c]) => n + c, 0),
      JSON.stringify(counts),
    ).toBe(FLOOD);
    expect(counts['503'] ?? 0).toBeGreaterThan(0);
    expect(d.chat.store.subscriptions.all()).toEqual([]);
    // No more than the budget was held at once, and all of it was given back.
    const { bodies } = d.server;
    expect(bodies.buffered.peak).toBeGreaterThan(0);
    expect(bodies.buffered.peak).toBeLessThanOrEqual(UNVERIFIED_LIMITS.bytes);
    expect(bodies.requests.peak).toBeLessThanOrEqual(UNVERIFIED_LIMITS.requests);
    expect(bodies.buffered.now).toBe(0);
    expect(bodies.requests.now).toBe(0);
    // /healthz was asked again and again during the flood, and answered every time. How
    // fast is the benchmark's to say (`npm run bench forged_flood`): a time limit here
    // would measure the machine the test runs on.
    expect(healthz.length).toBeGreaterThan(5);
    expect(
      healthz.every((status) => status === 200),
      JSON.stringify(healthz),
    ).toBe(true);
  });
});
