/**
 * Pacing on a manual clock, nothing in real time: the decision (`paceTurn`) as a function
 * of the time, and the channels pacing on a clock they share with the Slack fake, whose
 * own posting limit is exactly the channel's, so a message sent a millisecond early
 * draws a 429. A burst to one channel at the channel's rate never draws one, channels
 * are paced independently, and a message waiting its turn can be called off.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type PaceOptions, paceTurn } from '../../../src/channels/slack/pacing.js';
import { noticeAlert } from '../../fakes/alerts.js';
import { startSlackFake } from '../../fakes/slack.js';
import { ManualClock } from '../../support/clock.js';
import { channelsFor, sendContext } from './support.js';

const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** When each of `asks` (request times, in order, one destination) goes under `pace`. */
function schedule(asks: number[], pace: PaceOptions): number[] {
  let next: number | undefined;
  let free = 0;
  return asks.map((ask) => {
    // One message at a time: a message asks when it comes, or when the one before went.
    const at = Math.max(ask, free);
    const turn = paceTurn(next, at, pace);
    next = turn.next;
    free = at + turn.waitMs;
    return free;
  });
}

describe('the pacing decision', () => {
  const pace = { perSecond: 20, burst: 2 };

  it('lets a burst go at once, then one message an interval', () => {
    expect(schedule([0, 0, 0, 0, 0, 0], pace)).toEqual([0, 0, 50, 100, 150, 200]);
    expect(schedule([0, 0, 0], { perSecond: 1, burst: 1 })).toEqual([0, 1000, 2000]);
  });

  it('refills while the destination is quiet, up to the burst and no more', () => {
    // 75 ms after a burst one message has come back, and the next is due at 100.
    expect(schedule([0, 0, 75, 75], pace)).toEqual([0, 0, 75, 100]);
    // After ten quiet seconds the burst is whole again, but not larger.
    expect(schedule([0, 0, 10_000, 10_000, 10_000], pace)).toEqual([0, 0, 10_000, 10_000, 10_050]);
  });

  it('never makes a message wait that could go at the steady rate', () => {
    expect(schedule([0, 50, 100, 150], { perSecond: 20, burst: 1 })).toEqual([0, 50, 100, 150]);
    expect(paceTurn(undefined, 5_000, pace)).toEqual({ waitMs: 0, next: 5_050 });
  });
});

/** Yields to the event loop until `done()` holds; gives up after 5 s of real time. */
async function until(done: () => boolean, what: string): Promise<void> {
  const limit = performance.now() + 5_000;
  while (!done()) {
    if (performance.now() > limit) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Runs `sends` to the end on `clock`: each time every destination still sending waits its
 * turn on the clock, moves the time `stepMs` on.
 */
async function drive(
  clock: ManualClock,
  stepMs: number,
  sends: Array<{ destination: string; done: Promise<unknown> }>,
): Promise<void> {
  const finished = new Set<Promise<unknown>>();
  for (const s of sends) {
    const mark = () => finished.add(s.done);
    s.done.then(mark, mark);
  }
  const waiting = () =>
    new Set(sends.filter((s) => !finished.has(s.done)).map((s) => s.destination)).size;
  while (finished.size < sends.length) {
    await until(
      () => finished.size === sends.length || clock.pending === waiting(),
      `${waiting()} destinations to wait their turn (${clock.pending} waiting)`,
    );
    if (finished.size < sends.length) clock.advance(stepMs);
  }
  await Promise.all(sends.map((s) => s.done));
}

async function setup(fakeRate: PaceOptions, pace: PaceOptions) {
  const clock = new ManualClock();
  const fake = await startSlackFake({ rate: fakeRate, clock });
  const channels = channelsFor(fake, { perChannel: pace }, { clock });
  closers.push(
    () => fake.close(),
    () => channels.slack.close!(),
  );
  const start = clock.now().getTime();
  /** When each message arrived, in clock milliseconds from the start. */
  const arrivals = (channel?: string) =>
    fake.posts.filter((p) => !channel || p.channel === channel).map((p) => p.at - start);
  return { fake, clock, arrivals, ...channels, ctx: sendContext() };
}

describe('pacing through the Slack fake', () => {
  it('sends a burst to one channel at its rate without a single 429', async () => {
    const pace = { perSecond: 20, burst: 2 };
    const { fake, slack, ctx, clock, arrivals } = await setup(pace, pace);
    const alerts = Array.from({ length: 30 }, (_, i) => noticeAlert({ id: i + 1 }));
    const sends = alerts.map((a) => ({
      destination: '#gas',
      done: slack.send({ kind: 'slack', channel: '#gas' }, [a], ctx),
    }));
    await drive(clock, 50, sends);
    expect(fake.posts).toHaveLength(30);
    expect(fake.http429).toBe(0);
    // 2 at once, then 28 at 20 a second.
    expect(arrivals()).toEqual([0, ...Array.from({ length: 29 }, (_, i) => i * 50)]);
  });

  it('paces each channel on its own', async () => {
    const pace = { perSecond: 20, burst: 2 };
    const { fake, slack, slack_dm, ctx, clock, arrivals } = await setup(pace, pace);
    const send = (i: number) => [
      {
        destination: '#gas',
        done: slack.send({ kind: 'slack', channel: '#gas' }, [noticeAlert({ id: i })], ctx),
      },
      {
        destination: 'C0OPS',
        done: slack.send({ kind: 'slack', channel: 'C0OPS' }, [noticeAlert({ id: i })], ctx),
      },
      {
        destination: 'U0ALICE',
        done: slack_dm.send({ kind: 'slack_dm', user: 'U0ALICE' }, [noticeAlert({ id: i })], ctx),
      },
    ];
    await drive(clock, 50, Array.from({ length: 12 }, (_, i) => send(i)).flat());
    expect(fake.posts).toHaveLength(36);
    expect(fake.http429).toBe(0);
    // Side by side, three channels take as long as one (2 at once, then 10 at 20 a second,
    // 0.5 s); one after another they would take 1.7 s.
    const own = [0, ...Array.from({ length: 11 }, (_, i) => i * 50)];
    for (const channel of ['C0GAS', 'C0OPS', 'DU0ALICE']) expect(arrivals(channel)).toEqual(own);
  });

  it('lets a message waiting its turn be called off', async () => {
    const { fake, slack, ctx, clock } = await setup(
      { perSecond: 20, burst: 3 },
      { perSecond: 1, burst: 1 },
    );
    await slack.send({ kind: 'slack', channel: '#gas' }, [noticeAlert()], ctx);
    const controller = new AbortController();
    const waiting = slack.send({ kind: 'slack', channel: '#gas' }, [noticeAlert()], {
      ...ctx,
      signal: controller.signal,
    });
    await until(() => clock.pending === 1, 'the message to wait its turn');
    controller.abort(new Error('shutting down'));
    await expect(waiting).rejects.toMatchObject({
      permanent: false,
      reason: 'slack: aborted (#gas)',
    });
    expect(fake.posts).toHaveLength(1);
  });

  it('calls off what is queued when closed', async () => {
    const { fake, slack, ctx, clock } = await setup(
      { perSecond: 20, burst: 3 },
      { perSecond: 1, burst: 1 },
    );
    await slack.send({ kind: 'slack', channel: '#gas' }, [noticeAlert()], ctx);
    const waiting = slack.send({ kind: 'slack', channel: '#gas' }, [noticeAlert()], ctx);
    const outcome = waiting.catch((error: unknown) => error);
    await until(() => clock.pending === 1, 'the message to wait its turn');
    await slack.close!();
    expect(await outcome).toMatchObject({
      permanent: false,
      reason: 'slack: closed (#gas)',
    });
    expect(fake.posts).toHaveLength(1);
  });
});
