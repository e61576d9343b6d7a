/**
 * Updated notices in Slack: posted in the thread of the notice's first message (a single
 * alert or a digest), which is edited to say it was superseded.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryError } from '../../../src/channels/types.js';
import { noticeAlert, updatedAlert } from '../../fakes/alerts.js';
import { type SlackFake, startSlackFake } from '../../fakes/slack.js';
import { capturedLogger } from '../../support/captured-logger.js';
import { allTexts, channelsFor, sendContext } from './support.js';

const GAS = { kind: 'slack' as const, channel: '#gas' };
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setup() {
  const fake = await startSlackFake({ rate: { perSecond: 100, burst: 10 } });
  const { logger, lines } = capturedLogger();
  const channels = channelsFor(fake, {}, { logger });
  closers.push(
    () => fake.close(),
    () => channels.slack.close!(),
  );
  return { fake, lines, ...channels, ctx: sendContext() };
}

/** Block ids of a message as it is now in the fake, and its superseded notes. */
function now(fake: SlackFake, channel: string, ts: string) {
  const blocks = fake.message(channel, ts)!.blocks as Array<{ type: string; block_id?: string }>;
  return {
    ids: blocks.map((b) => b.block_id ?? b.type),
    notes: blocks.filter((b) => b.block_id?.startsWith('superseded-')).map((b) => allTexts(b)[0]),
  };
}

describe('an updated notice', () => {
  it('is posted in the thread of the first message, which is marked superseded', async () => {
    const { fake, slack, ctx } = await setup();
    await slack.send(GAS, [noticeAlert()], ctx);
    const first = fake.posts[0]!;
    expect(await ctx.threads.get('slack:#gas', 'notice:101')).toMatchObject({
      channel: 'C0GAS',
      ts: first.ts,
      notices: '101',
    });
    const delivered = await slack.send(GAS, [updatedAlert()], ctx);
    const reply = fake.posts[1]!;
    expect(reply).toMatchObject({ channel: 'C0GAS', thread_ts: first.ts, reply_broadcast: true });
    expect(delivered.detail).toBe(`ok channel=C0GAS ts=${reply.ts} thread=${first.ts}`);
    expect(fake.updates).toHaveLength(1);
    const edited = now(fake, 'C0GAS', first.ts);
    expect(edited.ids.slice(0, 3)).toEqual(['notice-101', 'superseded-101', 'section']);
    expect(edited.notes).toEqual([':warning: *Superseded* by a later update — see thread']);
    expect(fake.message('C0GAS', first.ts)!.text).toBe(first.text);
  });

  it('keeps threading under the first message, marking it once', async () => {
    const { fake, slack, ctx } = await setup();
    await slack.send(GAS, [noticeAlert()], ctx);
    await slack.send(GAS, [updatedAlert()], ctx);
    await slack.send(GAS, [updatedAlert({ status: 'Terminate' })], ctx);
    const first = fake.posts[0]!;
    expect(fake.posts.slice(1).map((p) => p.thread_ts)).toEqual([first.ts, first.ts]);
    expect(now(fake, 'C0GAS', first.ts).notes).toHaveLength(1);
  });

  it('is posted on its own when there is no first message, and becomes the first', async () => {
    const { fake, slack, ctx } = await setup();
    await slack.send(GAS, [updatedAlert()], ctx);
    await slack.send(GAS, [updatedAlert({ status: 'Terminate' })], ctx);
    expect(fake.posts[0]!.thread_ts).toBeUndefined();
    expect(fake.posts[1]!.thread_ts).toBe(fake.posts[0]!.ts);
  });

  it('threads per target: the same notice in another channel has its own thread', async () => {
    const { fake, slack, slack_dm, ctx } = await setup();
    await slack.send(GAS, [noticeAlert()], ctx);
    await slack_dm.send({ kind: 'slack_dm', user: 'U0ALICE' }, [noticeAlert()], ctx);
    await slack_dm.send({ kind: 'slack_dm', user: 'U0ALICE' }, [updatedAlert()], ctx);
    expect(fake.posts[2]).toMatchObject({ channel: 'DU0ALICE', thread_ts: fake.posts[1]!.ts });
    expect(await ctx.threads.get('slack_dm:U0ALICE', 'notice:101')).toMatchObject({
      channel: 'DU0ALICE',
    });
  });

  it('threads under a digest, whose section for that notice is marked', async () => {
    const { fake, slack, ctx } = await setup();
    await slack.send(GAS, [noticeAlert({ id: 1 }), noticeAlert({ id: 2 })], ctx);
    const digest = fake.posts[0]!;
    expect((await ctx.threads.get('slack:#gas', 'notice:1'))?.ts).toBe(digest.ts);
    expect((await ctx.threads.get('slack:#gas', 'notice:2'))?.notices).toBe('1,2');
    await slack.send(GAS, [updatedAlert({ id: 2 })], ctx);
    expect(fake.posts[1]!.thread_ts).toBe(digest.ts);
    expect(now(fake, 'C0GAS', digest.ts).ids).toEqual([
      'header',
      'notice-1',
      'notice-2',
      'superseded-2',
      'context',
    ]);
    await slack.send(GAS, [updatedAlert({ id: 1 })], ctx);
    expect(now(fake, 'C0GAS', digest.ts).ids).toEqual([
      'header',
      'notice-1',
      'superseded-1',
      'notice-2',
      'superseded-2',
      'context',
    ]);
  });

  it('in a digest of its own marks the first message superseded, without a thread', async () => {
    const { fake, slack, ctx } = await setup();
    await slack.send(GAS, [noticeAlert({ id: 1 })], ctx);
    await slack.send(GAS, [updatedAlert({ id: 1 }), noticeAlert({ id: 5 })], ctx);
    expect(fake.posts[1]!.thread_ts).toBeUndefined();
    expect(now(fake, 'C0GAS', fake.posts[0]!.ts).notes).toEqual([
      ':warning: *Superseded* by a later update',
    ]);
    expect((await ctx.threads.get('slack:#gas', 'notice:5'))?.ts).toBe(fake.posts[1]!.ts);
    expect((await ctx.threads.get('slack:#gas', 'notice:1'))?.ts).toBe(fake.posts[0]!.ts);
  });

  it('is posted on its own when the first message is gone', async () => {
    const { fake, slack, ctx } = await setup();
    await ctx.threads.set('slack:#gas', 'notice:101', {
      channel: 'C0GAS',
      ts: '1.000001',
      blocks: '[]',
    });
    const delivered = await slack.send(GAS, [updatedAlert()], ctx);
    expect(delivered.detail).toMatch(/^ok channel=C0GAS ts=\S+$/);
    expect(fake.posts[0]!.thread_ts).toBeUndefined();
  });

  it('is delivered even when the first message cannot be edited', async () => {
    const { fake, slack, lines, ctx } = await setup();
    await slack.send(GAS, [noticeAlert()], ctx);
    fake.inject({ method: 'chat.update', error: 'cant_update_message' });
    await expect(slack.send(GAS, [updatedAlert()], ctx)).resolves.toMatchObject({
      detail: expect.stringContaining('thread='),
    });
    expect(lines.join('\n')).toContain('slack: cant_update_message (C0GAS)');
  });

  it('fails like any message when the reply is refused', async () => {
    const { fake, slack, ctx } = await setup();
    await slack.send(GAS, [noticeAlert()], ctx);
    fake.inject({ method: 'chat.postMessage', status: 500 });
    const error = await slack.send(GAS, [updatedAlert()], ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryError);
    expect(fake.updates).toHaveLength(0);
  });
});
