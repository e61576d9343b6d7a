/**
 * Pacing against the fake's own posting limit: a burst to one channel at the channel's
 * configured rate never draws a 429, channels are paced independently, and a message
 * waiting its turn can be called off. The fake allows a larger burst than the channel
 * uses, as Slack does: at 20 messages a second the spare tokens absorb the 150 ms of
 * scheduling jitter a busy test machine adds between sending and arrival.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { noticeAlert } from '../../fakes/alerts.js';
import { startSlackFake } from '../../fakes/slack.js';
import { channelsFor, sendContext } from './support.js';

const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setup(
  fakeRate: { perSecond: number; burst: number },
  pace: { perSecond: number; burst: number },
) {
  const fake = await startSlackFake({ rate: fakeRate });
  const channels = channelsFor(fake, { perChannel: pace });
  closers.push(
    () => fake.close(),
    () => channels.slack.close!(),
  );
  return { fake, ...channels, ctx: sendContext() };
}

describe('pacing', () => {
  it('sends a burst to one channel at its rate without a single 429', async () => {
    const { fake, slack, ctx } = await setup(
      { perSecond: 20, burst: 5 },
      { perSecond: 20, burst: 2 },
    );
    const started = performance.now();
    const alerts = Array.from({ length: 30 }, (_, i) => noticeAlert({ id: i + 1 }));
    await Promise.all(alerts.map((a) => slack.send({ kind: 'slack', channel: '#gas' }, [a], ctx)));
    const seconds = (performance.now() - started) / 1000;
    expect(fake.posts).toHaveLength(30);
    expect(fake.http429).toBe(0);
    // 2 at once, then 28 at 20 a second, give or take a beat.
    expect(seconds).toBeGreaterThanOrEqual(1.3);
    expect(seconds).toBeLessThan(2.5);
  });

  it('paces each channel on its own', async () => {
    const { fake, slack, slack_dm, ctx } = await setup(
      { perSecond: 20, burst: 5 },
      { perSecond: 20, burst: 2 },
    );
    const send = (i: number) => [
      slack.send({ kind: 'slack', channel: '#gas' }, [noticeAlert({ id: i })], ctx),
      slack.send({ kind: 'slack', channel: 'C0OPS' }, [noticeAlert({ id: i })], ctx),
      slack_dm.send({ kind: 'slack_dm', user: 'U0ALICE' }, [noticeAlert({ id: i })], ctx),
    ];
    const started = performance.now();
    await Promise.all(Array.from({ length: 12 }, (_, i) => send(i)).flat());
    const seconds = (performance.now() - started) / 1000;
    expect(fake.posts).toHaveLength(36);
    expect(fake.http429).toBe(0);
    // Side by side, three channels take as long as one (2 at once, then 10 at 20 a second,
    // 0.5 s); one after another they would take 1.7 s.
    expect(seconds).toBeLessThan(1.5);
  });

  it('lets a message waiting its turn be called off', async () => {
    const { fake, slack, ctx } = await setup(
      { perSecond: 20, burst: 3 },
      { perSecond: 1, burst: 1 },
    );
    await slack.send({ kind: 'slack', channel: '#gas' }, [noticeAlert()], ctx);
    const controller = new AbortController();
    const waiting = slack.send({ kind: 'slack', channel: '#gas' }, [noticeAlert()], {
      ...ctx,
      signal: controller.signal,
    });
    controller.abort(new Error('shutting down'));
    await expect(waiting).rejects.toMatchObject({
      permanent: false,
      reason: 'slack: aborted (#gas)',
    });
    expect(fake.posts).toHaveLength(1);
  });

  it('calls off what is queued when closed', async () => {
    const { fake, slack, ctx } = await setup(
      { perSecond: 20, burst: 3 },
      { perSecond: 1, burst: 1 },
    );
    await slack.send({ kind: 'slack', channel: '#gas' }, [noticeAlert()], ctx);
    const waiting = slack.send({ kind: 'slack', channel: '#gas' }, [noticeAlert()], ctx);
    const outcome = waiting.catch((error: unknown) => error);
    await slack.close!();
    expect(await outcome).toMatchObject({
      permanent: false,
      reason: 'slack: closed (#gas)',
    });
    expect(fake.posts).toHaveLength(1);
  });
});
