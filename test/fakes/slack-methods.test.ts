/**
 * The Slack fake's methods for the Slack app, called through the real WebClient, and its
 * response URLs: they answer as Slack does and refuse what Slack refuses.
 */
import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/clock.js';
import { type SlackFake, startSlackFake } from './slack.js';
import { boltLogger } from './slack-bolt.js';

let fake: SlackFake;
let client: InstanceType<typeof webApi.WebClient>;
let clock: ManualClock;
beforeEach(async () => {
  clock = new ManualClock();
  fake = await startSlackFake({
    clock,
    rate: { perSecond: 50, burst: 10 },
    channels: [
      { id: 'C0GAS', name: 'gas', members: ['U0ALICE', 'W0BOB'] },
      { id: 'C0OPS', name: 'ops', members: ['U0ALICE'] },
      { id: 'C0OUT', name: 'outside', member: false, members: ['U0ALICE'] },
      { id: 'C0OLD', name: 'old', archived: true, members: ['U0ALICE'] },
      { id: 'C0HUSH', name: 'hush', private: true, members: ['U0ALICE'] },
      { id: 'C0SHUT', name: 'shut', private: true, member: false, members: ['U0ALICE'] },
    ],
  });
  client = new webApi.WebClient(fake.token, {
    slackApiUrl: fake.url,
    retryConfig: { retries: 0 },
    logger: boltLogger(),
  });
});
afterEach(() => fake.close());

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
const home = (blocks: unknown[]) => ({ type: 'home', blocks }) as never;

describe('views.publish', () => {
  it('keeps the newest home view of each user, under one view id', async () => {
    const first = await client.views.publish({ user_id: 'U0ALICE', view: home([section('a')]) });
    const second = await client.views.publish({ user_id: 'U0ALICE', view: home([section('b')]) });
    await client.views.publish({ user_id: 'W0BOB', view: home([]) });
    expect(second.view).toMatchObject({ id: first.view!.id, type: 'home', blocks: [section('b')] });
    expect(second.view!.hash).not.toBe(first.view!.hash);
    expect(fake.views.get('U0ALICE')!.blocks).toEqual([section('b')]);
    expect(fake.publishes.map((p) => p.user)).toEqual(['U0ALICE', 'U0ALICE', 'W0BOB']);
  });

  it('refuses what is not a home view of at most 100 valid blocks', async () => {
    const refusal = (view: unknown, user = 'U0ALICE') =>
      client.views.publish({ user_id: user, view: view as never }).catch((e) => e.data);
    const many = Array.from({ length: 101 }, (_, i) => section(`${i}`));
    expect(await refusal(home(many))).toMatchObject({
      error: 'invalid_arguments',
      response_metadata: { messages: [expect.stringMatching(/no more than 100 items/)] },
    });
    expect((await refusal({ type: 'modal', blocks: [] })).error).toBe('invalid_arguments');
    expect((await refusal({ type: 'home' })).error).toBe('invalid_arguments');
    expect((await refusal(home([section('')]))).error).toBe('invalid_arguments');
    expect((await refusal(home([]), 'U0NOBODY')).error).toBe('invalid_arguments');
    await client.views.publish({ user_id: 'U0ALICE', view: home(many.slice(0, 100)) });
    expect(fake.views.get('U0ALICE')!.blocks).toHaveLength(100);
  });

  it('refuses a stale hash', async () => {
    const first = await client.views.publish({ user_id: 'U0ALICE', view: home([]) });
    await client.views.publish({ user_id: 'U0ALICE', view: home([]), hash: first.view!.hash! });
    await expect(
      client.views.publish({ user_id: 'U0ALICE', view: home([]), hash: first.view!.hash! }),
    ).rejects.toMatchObject({ data: { error: 'hash_conflict' } });
  });
});

describe('users.conversations and conversations.info', () => {
  it("lists a user's channels page by page, private ones only where the bot is", async () => {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.users.conversations({
        user: 'U0ALICE',
        types: 'public_channel,private_channel',
        limit: 2,
        ...(cursor ? { cursor } : {}),
      });
      ids.push(...page.channels!.map((c) => c.id!));
      cursor = page.response_metadata?.next_cursor || undefined;
    } while (cursor);
    expect(ids).toEqual(['C0GAS', 'C0OPS', 'C0OUT', 'C0OLD', 'C0HUSH']);
    const open = await client.users.conversations({ user: 'W0BOB', exclude_archived: true });
    expect(open.channels!.map((c) => c.id)).toEqual(['C0GAS']);
    const bots = await client.users.conversations({ exclude_archived: true });
    expect(bots.channels!.map((c) => c.id)).toEqual(['C0GAS', 'C0OPS']);
  });

  it('describes a channel by id, and does not find an unknown one', async () => {
    const out = await client.conversations.info({ channel: 'C0OUT' });
    expect(out.channel).toMatchObject({
      id: 'C0OUT',
      name: 'outside',
      is_archived: false,
      is_member: false,
    });
    expect((await client.conversations.info({ channel: 'C0OLD' })).channel!.is_archived).toBe(true);
    for (const channel of ['C0NONE', 'C0SHUT']) {
      await expect(client.conversations.info({ channel })).rejects.toMatchObject({
        data: { error: 'channel_not_found' },
      });
    }
    fake.channels.delete('C0GAS');
    await expect(client.conversations.info({ channel: 'C0GAS' })).rejects.toMatchObject({
      data: { error: 'channel_not_found' },
    });
  });
});

describe('chat.postEphemeral and chat.update', () => {
  it('posts an ephemeral message to a member of a channel the bot is in', async () => {
    const sent = await client.chat.postEphemeral({ channel: 'C0GAS', user: 'W0BOB', text: 'psst' });
    expect(fake.ephemerals).toEqual([
      expect.objectContaining({
        channel: 'C0GAS',
        user: 'W0BOB',
        text: 'psst',
        ts: sent.message_ts,
      }),
    ]);
    const refused = (channel: string, user: string) =>
      client.chat.postEphemeral({ channel, user, text: 'x' }).catch((e) => e.data.error);
    expect(await refused('C0OPS', 'W0BOB')).toBe('user_not_in_channel');
    expect(await refused('C0OUT', 'U0ALICE')).toBe('not_in_channel');
    expect(await refused('C0OLD', 'U0ALICE')).toBe('is_archived');
    expect(await refused('C0NONE', 'U0ALICE')).toBe('channel_not_found');
  });

  it('keeps a message’s blocks through an edit that leaves them out, and reads them back', async () => {
    const posted = await client.chat.postMessage({
      channel: 'C0GAS',
      text: 'a',
      blocks: [section('one')],
    });
    await client.chat.update({
      channel: 'C0GAS',
      ts: posted.ts!,
      text: 'b',
      blocks: [section('two')],
    });
    const textOnly = await client.chat.update({ channel: 'C0GAS', ts: posted.ts!, text: 'c' });
    expect(textOnly.message).toMatchObject({ text: 'c', blocks: [section('two')] });
    expect(fake.message('C0GAS', posted.ts!)).toMatchObject({
      text: 'c',
      blocks: [section('two')],
    });
    await client.chat.update({ channel: 'C0GAS', ts: posted.ts!, text: 'd', blocks: [] });
    expect(fake.message('C0GAS', posted.ts!)!.blocks).toEqual([]);
  });
});

describe('response URLs', () => {
  const post = async (url: string, body: unknown) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };

  it('take five answers, then refuse', async () => {
    const url = fake.responseUrl({ channel: 'C0GAS', user: 'U0ALICE' });
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await post(url, { text: `${i}` }));
    expect(answers.slice(0, 5).map((a) => a.body)).toEqual(Array(5).fill({ ok: true }));
    expect(answers[5]).toEqual({ status: 404, body: { ok: false, error: 'used_url' } });
    expect(fake.responses.map((r) => r.use)).toEqual([1, 2, 3, 4, 5, 0]);
  });

  it('expire 30 minutes after they are handed out, on the fake’s clock', async () => {
    const url = fake.responseUrl();
    clock.advance(30 * 60_000);
    expect((await post(url, { text: 'just in time' })).status).toBe(200);
    clock.advance(1);
    expect(await post(url, { text: 'late' })).toEqual({
      status: 404,
      body: { ok: false, error: 'Expired url' },
    });
  });

  it('replace or delete the message a button was on, and refuse a bad body', async () => {
    const posted = await client.chat.postMessage({
      channel: 'C0GAS',
      text: 'alert',
      blocks: [section('x')],
    });
    const on = { channel: 'C0GAS', ts: posted.ts! };
    const replace = fake.responseUrl({ channel: 'C0GAS', message: on });
    await post(replace, { replace_original: true, text: 'acked', blocks: [section('acked')] });
    expect(fake.message('C0GAS', posted.ts!)).toMatchObject({
      text: 'acked',
      blocks: [section('acked')],
    });
    expect((await post(replace, '{not json')).status).toBe(400);
    expect(await post(replace, { text: '' })).toEqual({
      status: 400,
      body: { ok: false, error: 'no_text' },
    });
    await post(fake.responseUrl({ message: on }), { delete_original: true });
    expect(fake.message('C0GAS', posted.ts!)).toBeUndefined();
    expect(
      (await post(`${fake.url.replace('/api/', '')}/respond/T0ACME-forged`, { text: 'x' })).status,
    ).toBe(404);
  });
});
