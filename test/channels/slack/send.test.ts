/** The Slack channels against the loopback fake: delivery, DMs, errors, rate limits, secrets. */
import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderSlack } from '../../../src/channels/slack/index.js';
import type { Alert } from '../../../src/channels/types.js';
import { failure, noticeAlert } from '../../fakes/alerts.js';
import { type SlackFakeOptions, startSlackFake } from '../../fakes/slack.js';
import { capturedLogger } from '../../support/captured-logger.js';
import { ManualClock } from '../../support/clock.js';
import { channelsFor, sendContext } from './support.js';

const GAS = { kind: 'slack' as const, channel: '#gas' };
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setup(
  fakeOptions: SlackFakeOptions = {},
  options: Parameters<typeof channelsFor>[1] = {},
  deps: Parameters<typeof channelsFor>[2] = {},
) {
  const fake = await startSlackFake({ rate: { perSecond: 100, burst: 10 }, ...fakeOptions });
  const { logger, lines } = capturedLogger();
  const channels = channelsFor(fake, { timeoutMs: 2000, ...options }, { logger, ...deps });
  closers.push(
    () => fake.close(),
    () => channels.slack.close!(),
  );
  return { fake, lines, ...channels, ctx: sendContext() };
}

describe('slack', () => {
  it('posts the rendered message through the Web API and says where it landed', async () => {
    const { fake, slack, ctx } = await setup();
    const alert = noticeAlert();
    const delivered = await slack.send(GAS, [alert], ctx);
    expect(delivered.detail).toBe('ok channel=C0GAS ts=1732111200.000100');
    expect(fake.posts).toHaveLength(1);
    const [post] = fake.posts;
    expect(post!.channel).toBe('C0GAS');
    const rendered = renderSlack([alert], ctx.now);
    expect(post!.text).toBe(rendered.text);
    expect(post!.blocks).toEqual(JSON.parse(JSON.stringify(rendered.blocks)));
    expect(post!.args).toMatchObject({
      unfurl_links: 'false',
      unfurl_media: 'false',
      link_names: 'false',
    });
    expect(fake.calls[0]!.contentType).toContain('application/x-www-form-urlencoded');
  });

  it('accepts channel ids as well as names', async () => {
    const { fake, slack, ctx } = await setup();
    await slack.send({ kind: 'slack', channel: 'C0OPS' }, [noticeAlert()], ctx);
    expect(fake.posts[0]!.channel).toBe('C0OPS');
  });

  it('verifies the token with auth.test', async () => {
    const { slack } = await setup();
    await expect(slack.verify!()).resolves.toBe('slack: pipewatch in Acme Gas');
  });

  it.each([
    ['#nowhere', 'slack: channel_not_found (#nowhere)'],
    ['#outside', 'slack: not_in_channel (#outside)'],
    ['#old', 'slack: is_archived (#old)'],
  ])('refuses %s for good', async (channel, reason) => {
    const { slack, ctx } = await setup();
    const error = await failure(slack.send({ kind: 'slack', channel }, [noticeAlert()], ctx));
    expect(error.permanent).toBe(true);
    expect(error.reason).toBe(reason);
  });

  it.each([
    'msg_too_long',
    'invalid_blocks',
    'no_text',
    'restricted_action',
    'missing_scope',
    'token_revoked',
  ])('treats %s as permanent', async (code) => {
    const { fake, slack, ctx } = await setup();
    fake.inject({ method: 'chat.postMessage', error: code });
    const error = await failure(slack.send(GAS, [noticeAlert()], ctx));
    expect(error).toMatchObject({ permanent: true, reason: `slack: ${code} (#gas)` });
  });

  it.each([
    [{ status: 500 }, 'slack: HTTP 500 (#gas)'],
    [{ status: 503, retryAfter: 7 }, 'slack: HTTP 503 (#gas)'],
    [{ error: 'internal_error' }, 'slack: internal_error (#gas)'],
    [{ error: 'service_unavailable' }, 'slack: service_unavailable (#gas)'],
    [{ reset: true }, 'slack: network error'],
  ])('retries after %j', async (fault, reason) => {
    const { fake, slack, ctx } = await setup();
    fake.inject({ method: 'chat.postMessage', ...fault });
    const error = await failure(slack.send(GAS, [noticeAlert()], ctx));
    expect(error.permanent).toBe(false);
    expect(error.reason.startsWith(reason)).toBe(true);
    if ('retryAfter' in fault) expect(error.retryAfterMs).toBe(7000);
    await expect(slack.send(GAS, [noticeAlert()], ctx)).resolves.toBeDefined();
  });

  it('retries after a timeout', async () => {
    const { fake, slack, ctx } = await setup({}, { timeoutMs: 100 });
    fake.inject({ method: 'chat.postMessage', delayMs: 400 });
    const error = await failure(slack.send(GAS, [noticeAlert()], ctx));
    expect(error).toMatchObject({
      permanent: false,
      reason: 'slack: no complete answer within 100ms (#gas)',
    });
  });

  it('turns a 429 into a retryable error with Retry-After, and holds the channel that long', async () => {
    const clock = new ManualClock();
    const { fake, slack, ctx } = await setup({}, {}, { clock });
    fake.inject({ method: 'chat.postMessage', status: 429, retryAfter: 3 });
    const error = await failure(slack.send(GAS, [noticeAlert()], ctx));
    expect(error).toMatchObject({
      permanent: false,
      retryAfterMs: 3000,
      reason: 'slack: ratelimited (#gas)',
    });
    const held = slack.send(GAS, [noticeAlert()], ctx);
    const other = await slack.send({ kind: 'slack', channel: '#ops' }, [noticeAlert()], ctx);
    expect(other.detail).toMatch(/^ok channel=C0OPS /);
    await vi.waitFor(() => expect(clock.sleeps).toEqual([3000]));
    expect(fake.posts.map((p) => p.channel)).toEqual(['C0OPS']);
    clock.advance(3000);
    await expect(held).resolves.toMatchObject({
      detail: expect.stringMatching(/^ok channel=C0GAS /),
    });
    expect(fake.http429).toBe(1);
  });

  it('does not hold a message through a long Retry-After: it fails with the time left, for the outbox', async () => {
    const clock = new ManualClock();
    const { fake, slack, ctx } = await setup({}, {}, { clock });
    fake.inject({ method: 'chat.postMessage', status: 429, retryAfter: 999_999_999 });
    await failure(slack.send(GAS, [noticeAlert()], ctx));
    const next = await failure(slack.send(GAS, [noticeAlert()], ctx));
    expect(next).toMatchObject({
      permanent: false,
      retryAfterMs: 999_999_999_000,
      reason: 'slack: ratelimited, held for 11574d1h46m39s more (#gas)',
    });
    expect(clock.sleeps).toEqual([]);
    expect(fake.posts).toHaveLength(0);
  });

  it('passes on the rate limit of a Slack that allows less than configured', async () => {
    const { fake, slack, ctx } = await setup({ rate: { perSecond: 1, burst: 1 } });
    await slack.send(GAS, [noticeAlert()], ctx);
    const error = await failure(slack.send(GAS, [noticeAlert()], ctx));
    expect(error).toMatchObject({
      permanent: false,
      retryAfterMs: 1000,
      reason: 'slack: ratelimited (#gas)',
    });
    expect(fake.http429).toBe(1);
  });

  it('refuses a wrong token for good and never shows it', async () => {
    const secret = 'xoxb-9999-wrong-SuperSecretValue';
    const { slack, slack_dm, lines, ctx } = await setup({}, { token: secret });
    const errors = [
      await failure(slack.send(GAS, [noticeAlert()], ctx)),
      await failure(
        slack_dm.send({ kind: 'slack_dm', user: 'alice@example.com' }, [noticeAlert()], ctx),
      ),
      await failure(slack.verify!()),
    ];
    expect(errors.map((e) => e.reason)).toEqual([
      'slack: invalid_auth (#gas)',
      'slack: invalid_auth (alice@example.com)',
      'slack: invalid_auth (auth.test)',
    ]);
    expect(errors.every((e) => e.permanent)).toBe(true);
    expect(lines.length).toBeGreaterThan(0);
    const everything = [...errors.map((e) => inspect(e, { depth: 5 })), ...lines].join('\n');
    expect(everything).not.toContain('SuperSecretValue');
    expect(everything).not.toContain('xoxb-');
  });

  it('never shows a token that Slack quotes back in an error code, however long the code', async () => {
    const { fake, slack, ctx } = await setup();
    fake.inject({
      method: 'chat.postMessage',
      error: `invalid_auth_because_the_token_presented_was_${fake.token}`,
    });
    const error = await failure(slack.send(GAS, [noticeAlert()], ctx));
    expect(error.reason).toMatch(/^slack: invalid_auth_because_the_token_presented_was_/);
    expect(error.reason).not.toContain('xoxb-');
    expect(error.reason).not.toContain('1234-5678');
  });

  it('never shows the good token either, in errors or logs', async () => {
    const { fake, slack, lines, ctx } = await setup();
    fake.inject({ method: 'chat.postMessage', status: 500 });
    fake.inject({ method: 'chat.postMessage', reset: true });
    await failure(slack.send(GAS, [noticeAlert()], ctx));
    const reset = await failure(slack.send(GAS, [noticeAlert()], ctx));
    await slack.send(GAS, [noticeAlert()], ctx);
    const everything = [inspect(reset, { depth: 5 }), ...lines].join('\n');
    expect(lines.some((l) => l.includes('chat.postMessage'))).toBe(true);
    expect(everything).not.toContain(fake.token);
    expect(everything).not.toContain('fakeSecretToken');
  });
});

describe('slack_dm', () => {
  it('opens a DM with a user id, once', async () => {
    const { fake, slack_dm, ctx } = await setup();
    const target = { kind: 'slack_dm' as const, user: 'U0ALICE' };
    await slack_dm.send(target, [noticeAlert()], ctx);
    const delivered = await slack_dm.send(target, [noticeAlert()], ctx);
    expect(delivered.detail).toMatch(/^ok channel=DU0ALICE ts=/);
    expect(fake.posts.map((p) => p.channel)).toEqual(['DU0ALICE', 'DU0ALICE']);
    expect(fake.calls.filter((c) => c.method === 'conversations.open')).toHaveLength(1);
  });

  it('looks an email up first', async () => {
    const { fake, slack_dm, ctx } = await setup();
    await slack_dm.send({ kind: 'slack_dm', user: 'bob@example.com' }, [noticeAlert()], ctx);
    expect(fake.calls.map((c) => c.method)).toEqual([
      'users.lookupByEmail',
      'conversations.open',
      'chat.postMessage',
    ]);
    expect(fake.posts[0]!.channel).toBe('DW0BOB');
  });

  it.each([
    ['nobody@example.com', 'slack: users_not_found (nobody@example.com)'],
    ['U0NOBODY', 'slack: user_not_found (U0NOBODY)'],
  ])('refuses %s for good', async (user, reason) => {
    const { slack_dm, ctx } = await setup();
    const error = await failure(slack_dm.send({ kind: 'slack_dm', user }, [noticeAlert()], ctx));
    expect(error).toMatchObject({ permanent: true, reason });
  });

  it('tries the lookup again after a failure', async () => {
    const { fake, slack_dm, ctx } = await setup();
    fake.inject({ method: 'conversations.open', status: 502 });
    const target = { kind: 'slack_dm' as const, user: 'U0ALICE' };
    const error = await failure(slack_dm.send(target, [noticeAlert()], ctx));
    expect(error).toMatchObject({ permanent: false, reason: 'slack: HTTP 502 (U0ALICE)' });
    await expect(slack_dm.send(target, [noticeAlert()] as Alert[], ctx)).resolves.toBeDefined();
  });
});
