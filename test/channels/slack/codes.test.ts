/**
 * The kind of every Slack failure, against the loopback fake: what the outbox stores and
 * `status` groups by, and what the channel itself branches on (a rate limit holds the
 * channel, whichever of Slack's two spellings says it).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SLACK_ERROR_CODES } from '../../../src/channels/slack/errors.js';
import { PERMANENT_ERRORS, TEMPORARY_ERRORS } from '../../../src/channels/slack/index.js';
import { failure, noticeAlert } from '../../fakes/alerts.js';
import { type Fault, startSlackFake } from '../../fakes/slack.js';
import { capturedLogger } from '../../support/captured-logger.js';
import { ManualClock } from '../../support/clock.js';
import { channelsFor, sendContext } from './support.js';

const GAS = { kind: 'slack' as const, channel: '#gas' };
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setup(options: { timeoutMs?: number; clock?: ManualClock } = {}) {
  const fake = await startSlackFake({ rate: { perSecond: 100, burst: 10 } });
  const { logger } = capturedLogger();
  const deps = options.clock ? { logger, clock: options.clock } : { logger };
  const channels = channelsFor(fake, { timeoutMs: options.timeoutMs ?? 2000 }, deps);
  closers.push(
    () => fake.close(),
    () => channels.slack.close!(),
  );
  return { fake, ...channels, ctx: sendContext() };
}

describe('the kind of a Slack failure', () => {
  it.each([
    ['#nowhere', 'NOT_FOUND'],
    ['#outside', 'FORBIDDEN'],
    ['#old', 'NOT_FOUND'],
  ])('%s: %s', async (channel, code) => {
    const { slack, ctx } = await setup();
    const error = await failure(slack.send({ kind: 'slack', channel }, [noticeAlert()], ctx));
    expect(error.code).toBe(code);
  });

  it.each([
    [{ error: 'msg_too_long' }, 'TOO_LARGE', true],
    [{ error: 'invalid_blocks' }, 'REJECTED', true],
    [{ error: 'token_revoked' }, 'AUTH', true],
    [{ error: 'missing_scope' }, 'FORBIDDEN', true],
    [{ error: 'internal_error' }, 'SERVER_ERROR', false],
    [{ error: 'ratelimited' }, 'RATE_LIMITED', false],
    [{ error: 'a_code_slack_adds_later' }, 'UNKNOWN', false],
    [{ status: 500 }, 'SERVER_ERROR', false],
    [{ status: 404 }, 'NOT_FOUND', true],
    [{ status: 429, retryAfter: 3 }, 'RATE_LIMITED', false],
    [{ reset: true }, 'NETWORK', false],
  ] as Array<[Fault, string, boolean]>)('%j: %s', async (fault, code, permanent) => {
    const { fake, slack, ctx } = await setup();
    fake.inject({ method: 'chat.postMessage', ...fault });
    const error = await failure(slack.send(GAS, [noticeAlert()], ctx));
    expect({ code: error.code, permanent: error.permanent }).toEqual({ code, permanent });
  });

  it('a call that runs out of time: TIMEOUT', async () => {
    const { fake, slack, ctx } = await setup({ timeoutMs: 100 });
    fake.inject({ method: 'chat.postMessage', delayMs: 400 });
    expect((await failure(slack.send(GAS, [noticeAlert()], ctx))).code).toBe('TIMEOUT');
  });

  it('a user no email lookup finds: NOT_FOUND, for good', async () => {
    const { slack_dm, ctx } = await setup();
    const target = { kind: 'slack_dm' as const, user: 'nobody@example.com' };
    const error = await failure(slack_dm.send(target, [noticeAlert()], ctx));
    expect(error).toMatchObject({ code: 'NOT_FOUND', permanent: true });
  });

  it('gives every error Slack is known to answer a kind of its own', () => {
    const unknown = [...PERMANENT_ERRORS, ...TEMPORARY_ERRORS].filter(
      (e) => !SLACK_ERROR_CODES.has(e),
    );
    expect(unknown).toEqual([]);
    for (const lost of ['thread_not_found', 'invalid_thread_ts', 'message_not_found'])
      expect(SLACK_ERROR_CODES.get(lost)).toBe('THREAD_LOST');
  });

  it('holds the channel after rate_limited as after ratelimited: both are a rate limit', async () => {
    const clock = new ManualClock();
    const { fake, slack, ctx } = await setup({ clock });
    fake.inject({ method: 'chat.postMessage', error: 'rate_limited' });
    const error = await failure(slack.send(GAS, [noticeAlert()], ctx));
    expect(error).toMatchObject({ code: 'RATE_LIMITED', reason: 'slack: rate_limited (#gas)' });
    const held = slack.send(GAS, [noticeAlert()], ctx);
    await vi.waitFor(() => expect(clock.sleeps).toEqual([1000]));
    expect(fake.posts).toHaveLength(0);
    clock.advance(1000);
    await expect(held).resolves.toMatchObject({ detail: expect.stringMatching(/^ok /) });
  });
});
