/**
 * A burst that fans out to many subscribers: a few notices, each for hundreds of targets,
 * decided at once. Every chat channel gets its share as one digest, however many rows
 * the burst wrote; and a thousand webhooks on one host are all reached within seconds of
 * the clock, the host never given more than its cap at once or in a second, while one
 * URL's own alerts keep its pace.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSlackChannels } from '../../src/channels/slack/index.js';
import type { AnyChannel, ChannelSet } from '../../src/channels/types.js';
import { createWebhookChannel } from '../../src/channels/webhook/send.js';
import { Dispatcher } from '../../src/delivery/dispatcher.js';
import type { Target } from '../../src/domain/targets.js';
import { systemClock } from '../../src/lib/clock.js';
import { silentLogger } from '../../src/lib/logger.js';
import { toUtcIso } from '../../src/lib/time.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import { noticeAlert } from '../fakes/alerts.js';
import { startSlackFake } from '../fakes/slack.js';
import { ManualClock } from '../support/clock.js';
import { useTempStore } from '../support/temp-store.js';

const HOUR = 3_600_000;

/** Yields to the event loop until `done()` holds; gives up after 10 s of real time. */
async function until(done: () => boolean, what: () => string): Promise<void> {
  const limit = performance.now() + 10_000;
  while (!done()) {
    if (performance.now() > limit) throw new Error(`gave up waiting for ${what()}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const temp = useTempStore('pipewatch-fan-out-');
const closing: Array<() => Promise<unknown> | unknown> = [];

afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** The burst: each notice decided for every target, notice after notice, as a sync writes it. */
function burst(notices: number, targets: readonly Target[], at: Date): void {
  temp.store.transaction(() => {
    for (let n = 1; n <= notices; n++) {
      const { payload } = noticeAlert({ id: n, subject: `Notice ${n}` });
      for (const target of targets)
        temp.store.outbox.enqueue(`notice:${n}:v1`, 'sub-1', target, payload, toUtcIso(at));
    }
  });
}

describe('a burst fanning out to many chat channels', () => {
  it('reaches each channel as one digest, however many rows the burst wrote', async () => {
    // 90 channels × 7 notices: more rows than the dispatcher reads at a time.
    const ids = Array.from({ length: 90 }, (_, i) => `C0FAN${String(i).padStart(3, '0')}`);
    const fake = await startSlackFake({
      channels: ids.map((id) => ({ id, name: id.toLowerCase() })),
    });
    const slack = createSlackChannels(
      { token: fake.token, apiUrl: fake.url },
      { clock: systemClock, logger: silentLogger },
    );
    closing.push(
      () => fake.close(),
      () => slack.slack.close?.(),
    );
    const clock = new ManualClock();
    burst(
      7,
      ids.map((channel) => ({ kind: 'slack', channel })),
      clock.now(),
    );
    const channels: ChannelSet = { for: () => slack.slack as never };
    const result = await new Dispatcher(
      {
        store: asyncStoreOf(temp.store),
        channels,
        clock,
        logger: silentLogger,
      },
      { digestWindowMs: 5_000, maxAgeMs: 6 * HOUR },
    ).dispatchDue();

    expect(result).toMatchObject({ sent: 630, dead: 0, retrying: 0 });
    expect(result.messages).toBe(90);
    const perChannel = new Map<string, number>();
    for (const p of fake.posts) perChannel.set(p.channel, (perChannel.get(p.channel) ?? 0) + 1);
    expect([...perChannel.values()]).toEqual(ids.map(() => 1));
  });
});

/**
 * A webhook receiver on loopback for many URLs: answers 204 at once, and keeps, by the
 * clock, when each path was first reached and how many requests it had in flight at most.
 */
async function receiver(clock: ManualClock) {
  const first = new Map<string, number>();
  const arrivals: number[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const server = createServer((req, res) => {
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    req.resume();
    req.on('end', () => {
      const at = clock.now().getTime();
      arrivals.push(at);
      if (!first.has(req.url!)) first.set(req.url!, at);
      inFlight--;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closing.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    first,
    arrivals,
    mostInFlight: () => mostInFlight,
  };
}

describe('a burst fanning out to many webhooks on one host', () => {
  async function setup() {
    const clock = new ManualClock();
    const hooks = await receiver(clock);
    const webhook = createWebhookChannel(
      { paceClock: clock },
      { clock, logger: silentLogger },
    ) as AnyChannel;
    closing.push(() => webhook.close?.());
    const channels: ChannelSet = { for: () => webhook as never };
    const dispatcher = new Dispatcher(
      {
        store: asyncStoreOf(temp.store),
        channels,
        clock,
        logger: silentLogger,
      },
      { digestWindowMs: 5_000, maxAgeMs: 6 * HOUR },
    );
    /**
     * Drains the outbox, moving the clock on by `stepMs` whenever pacing waits on it,
     * until `expected` requests arrived or `boundMs` of the clock passed.
     */
    const drive = async (expected: number, boundMs: number, stepMs: number) => {
      const start = clock.now().getTime();
      const draining = dispatcher.dispatchDue();
      let ended = false;
      draining.then(
        () => {
          ended = true;
        },
        () => {
          ended = true;
        },
      );
      while (hooks.arrivals.length < expected && clock.now().getTime() - start < boundMs) {
        await until(
          () => hooks.arrivals.length >= expected || clock.pending > 0 || ended,
          () => `pacing to wait on the clock (${hooks.arrivals.length} arrived)`,
        );
        if (hooks.arrivals.length < expected) clock.advance(stepMs);
      }
      return { start, draining };
    };
    return { clock, hooks, drive };
  }

  it('reaches the last of a thousand within 25 s, within the host cap', async () => {
    const { clock, hooks, drive } = await setup();
    const targets: Target[] = Array.from({ length: 1_000 }, (_, i) => ({
      kind: 'webhook',
      url: `${hooks.url}/hook/${i}`,
    }));
    burst(1, targets, clock.now());

    const { start, draining } = await drive(1_000, 60_000, 10);

    expect(hooks.first.size, 'targets reached').toBe(1_000);
    const last = Math.max(...hooks.first.values()) - start;
    expect(last).toBeLessThanOrEqual(25_000);
    expect(await draining).toMatchObject({ sent: 1_000, dead: 0, retrying: 0 });
    // The host's cap holds: never more than 8 at once, nor more than 50 a second after
    // the first 8.
    expect(hooks.mostInFlight()).toBeLessThanOrEqual(8);
    const arrivals = hooks.arrivals.map((at) => at - start);
    for (const from of arrivals) {
      const within = arrivals.filter((at) => at >= from && at < from + 1_000).length;
      expect(within).toBeLessThanOrEqual(8 + 50);
    }
  });

  it("keeps one URL's own pace: five a second", async () => {
    const { clock, hooks, drive } = await setup();
    burst(11, [{ kind: 'webhook', url: `${hooks.url}/hook/one` }], clock.now());

    const { start, draining } = await drive(11, 10_000, 50);

    expect(await draining).toMatchObject({ sent: 11 });
    expect(hooks.arrivals.map((at) => at - start)).toEqual(
      Array.from({ length: 11 }, (_, i) => i * 200),
    );
  });
});
