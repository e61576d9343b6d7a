/**
 * The Slack app end to end over loopback: signed requests in at `POST /slack/events` on
 * the daemon's server, the chat core (a stand-in) deciding, and the answers going out as
 * Slack takes them: acknowledgement bodies, follow-ups to the `response_url`, edits with
 * `chat.update` on the fake, the home view with `views.publish`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { encodeAction } from '../../../src/channels/slack/actions.js';
import { renderSlack } from '../../../src/channels/slack/render.js';
import { noticeAlert } from '../../fakes/alerts.js';
import { type AppUnderTest, startAppUnderTest } from './app-setup.js';
import { blockActions, eventCallback, post, slashCommand } from './signed-requests.js';

let t: AppUnderTest;

afterEach(async () => {
  await t?.close();
});

/** Posts a plain alert to #gas on the fake; the click payload carries its buttons. */
async function postedAlert(t: AppUnderTest) {
  const alert = noticeAlert();
  const interactive = renderSlack([alert], '2026-11-20T15:00:00Z', { interactive: true });
  const plain = renderSlack([alert], '2026-11-20T15:00:00Z');
  const res = await fetch(`${t.fake.url}chat.postMessage`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.fake.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ channel: 'C0GAS', text: plain.text, blocks: plain.blocks }),
  });
  const { ts } = (await res.json()) as { ts: string };
  return { ts, text: interactive.text, blocks: JSON.parse(JSON.stringify(interactive.blocks)) };
}

describe('the /pipewatch command', () => {
  it('undoes Slack escaping before the core reads the words', async () => {
    t = await startAppUnderTest();
    const typed =
      'subscribe transco text:"a &amp; b &lt;c&gt;" <#C0OPS|ops> <@U0BOB> <https://x.example|x.example>';
    await post(t.events, slashCommand(typed, t.clock.now(), t.extras.responseUrl('a')));
    expect(t.chat.calls[0]).toMatchObject({
      text: 'subscribe transco text:"a & b <c>" #ops @U0BOB https://x.example',
    });
  });

  it('acknowledges at once, then posts the follow-up to the response_url when it is ready', async () => {
    t = await startAppUnderTest();
    const arrived = t.extras.next('respond', 0);
    const res = await post(
      t.events,
      slashCommand('slow subscribe transco', t.clock.now(), t.extras.responseUrl('cmd-1')),
    );
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({
      response_type: 'ephemeral',
      text: 'Working on it…',
    });
    expect(t.extras.arrivals).toEqual([]);
    t.chat.releaseFollowUp({
      private: false,
      text: 'Subscribed #gas to transco',
      sections: [{ kind: 'text', text: 'Subscribed #gas to transco <!channel>' }],
    });
    const followUp = await arrived;
    expect(followUp.name).toBe('cmd-1');
    expect(followUp.body).toMatchObject({
      response_type: 'in_channel',
      replace_original: false,
      text: 'Subscribed #gas to transco',
    });
    const blocks = followUp.body.blocks as Array<{ text: { text: string } }>;
    expect(blocks[0]!.text.text).toBe('Subscribed #gas to transco &lt;!channel&gt;');
  });

  it('tells the caller when the slower work fails, and logs why', async () => {
    t = await startAppUnderTest();
    const arrived = t.extras.next('respond', 0);
    await post(t.events, slashCommand('slow list', t.clock.now(), t.extras.responseUrl('f')));
    t.chat.failFollowUp(new Error('database is locked'));
    expect((await arrived).body).toMatchObject({
      response_type: 'ephemeral',
      text: 'pipewatch could not do that just now; the error is in its log.',
    });
    expect(t.lines.some((l) => l.includes('/pipewatch failed: database is locked'))).toBe(true);
  });

  it('logs a follow-up Slack refuses, in one line, and goes on', async () => {
    t = await startAppUnderTest();
    await post(t.events, slashCommand('slow list', t.clock.now(), 'http://127.0.0.1:9/expired'));
    t.chat.releaseFollowUp({ private: true, text: 'late', sections: [] });
    const answer = await post(
      t.events,
      slashCommand('list', t.clock.now(), t.extras.responseUrl('b')),
    );
    expect(answer.status).toBe(200);
    await expect
      .poll(() => t.lines.find((l) => l.includes('could not post the follow-up of /pipewatch')))
      .toBeDefined();
  });
});

describe('buttons', () => {
  it('Acknowledge edits the message for everyone; a second click is told who did it', async () => {
    t = await startAppUnderTest();
    const message = await postedAlert(t);
    const ack = encodeAction({ kind: 'ack', message: '' });
    const click = { ...ack, type: 'button', text: { type: 'plain_text', text: 'Acknowledge' } };
    const res = await post(
      t.events,
      blockActions(click, t.clock.now(), { message, responseUrl: t.extras.responseUrl('c1') }),
    );
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    await expect.poll(() => t.fake.updates.length).toBe(1);
    expect(t.chat.calls).toMatchObject([
      { method: 'action', action: { kind: 'ack', message: message.ts } },
    ]);
    const edited = t.fake.message('C0GAS', message.ts)!;
    const ids = edited.blocks.map((b) => (b as { block_id?: string }).block_id);
    expect(ids).not.toContain('pipewatch-actions');
    expect(JSON.stringify(edited.blocks)).toContain(
      'Acknowledged by <@U0ALICE> at <!date^1795186800^{date_short_pretty} {time}|',
    );
    expect(edited.text).toBe(message.text);

    const second = t.extras.next('respond', 0);
    await post(
      t.events,
      blockActions(click, t.clock.now(), {
        message,
        user: 'W0BOB',
        responseUrl: t.extras.responseUrl('c2'),
      }),
    );
    const told = await second;
    expect(told.name).toBe('c2');
    expect(told.body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(JSON.stringify(told.body.blocks)).toContain('Already acknowledged by <@U0ALICE>');
    expect(t.fake.updates).toHaveLength(1);
  });

  it('Mute pipeline passes the chosen duration and answers only the clicker', async () => {
    t = await startAppUnderTest();
    const message = await postedAlert(t);
    const mute = encodeAction({ kind: 'mute', pipeline: 'transco', forMs: 4 * 3_600_000 });
    const click = {
      type: 'static_select',
      action_id: mute.action_id,
      selected_option: { text: { type: 'plain_text', text: 'for 4 h' }, value: mute.value },
    };
    const told = t.extras.next('respond', 0);
    await post(
      t.events,
      blockActions(click, t.clock.now(), { message, responseUrl: t.extras.responseUrl('m') }),
    );
    expect((await told).body).toMatchObject({
      response_type: 'ephemeral',
      text: 'Muted transco for 4 h',
    });
    expect(t.chat.calls).toMatchObject([
      { method: 'action', action: { kind: 'mute', pipeline: 'transco', forMs: 14_400_000 } },
    ]);
    expect(t.fake.updates).toEqual([]);
  });

  it('a value that does not decode is answered "no longer valid" and nothing is done', async () => {
    t = await startAppUnderTest();
    const message = await postedAlert(t);
    const told = t.extras.next('respond', 0);
    const click = { type: 'button', action_id: 'pipewatch_mute', value: 'v0:mute:transco:forever' };
    const res = await post(
      t.events,
      blockActions(click, t.clock.now(), { message, responseUrl: t.extras.responseUrl('x') }),
    );
    expect(res.status).toBe(200);
    expect((await told).body).toMatchObject({
      response_type: 'ephemeral',
      text: 'This button is no longer valid.',
    });
    expect(t.chat.calls).toEqual([]);
    expect(t.fake.updates).toEqual([]);
  });
});

describe('App Home', () => {
  it('publishes the home view of the user, with the channels they are in', async () => {
    t = await startAppUnderTest({}, { U0ALICE: ['C0GAS', 'C0OPS'] });
    const published = t.extras.next('views.publish', 0);
    const event = { type: 'app_home_opened', user: 'U0ALICE', channel: 'D0ALICE', tab: 'home' };
    expect((await post(t.events, eventCallback(event, t.clock.now()))).status).toBe(200);
    const { body } = await published;
    expect(body.user_id).toBe('U0ALICE');
    expect(body.view).toMatchObject({ type: 'home' });
    expect(JSON.stringify(body.view)).toContain('#1 C0GAS');
    expect(t.chat.calls).toEqual([
      { method: 'home', platform: 'slack', user: 'U0ALICE', channels: ['C0GAS', 'C0OPS'] },
    ]);
  });

  it('a Remove on the home view reaches the core from the DM and republishes the view', async () => {
    t = await startAppUnderTest({}, { U0ALICE: ['C0GAS'] });
    const republished = t.extras.next('views.publish', 0);
    const remove = encodeAction({ kind: 'remove', what: 'subscription', id: 1 });
    const click = { ...remove, type: 'button', text: { type: 'plain_text', text: 'Remove' } };
    await post(
      t.events,
      blockActions(click, t.clock.now(), { view: { id: 'V0HOME', type: 'home' } }),
    );
    await republished;
    expect(t.chat.calls[0]).toMatchObject({
      method: 'action',
      caller: { channel: 'DU0ALICE', user: 'U0ALICE', direct: true },
      action: { kind: 'remove', what: 'subscription', id: 1 },
    });
  });
});

describe('channels that are gone', () => {
  it('channel_archive pauses the channel through the core', async () => {
    t = await startAppUnderTest();
    const event = { type: 'channel_archive', channel: 'C0GAS', user: 'U0ALICE' };
    expect((await post(t.events, eventCallback(event, t.clock.now()))).status).toBe(200);
    await expect
      .poll(() => t.chat.calls)
      .toEqual([
        {
          method: 'channelGone',
          platform: 'slack',
          channel: 'C0GAS',
          reason: 'the channel was archived',
        },
      ]);
  });

  it('member_left_channel counts only when the bot itself left, and once', async () => {
    t = await startAppUnderTest();
    const gone = (event: Record<string, unknown>) =>
      post(t.events, eventCallback(event, t.clock.now()));
    const someone = {
      type: 'member_left_channel',
      channel: 'C0GAS',
      user: 'U0ALICE',
      channel_type: 'C',
    };
    await gone(someone);
    // An event heard after it shows it was passed over.
    await gone({ type: 'channel_deleted', channel: 'C0OPS' });
    await expect.poll(() => t.chat.calls.length).toBe(1);
    expect(t.chat.calls[0]).toMatchObject({ channel: 'C0OPS', reason: 'the channel was deleted' });
    await gone({ ...someone, user: 'U0BOT' });
    await gone({ type: 'group_left', channel: 'C0GAS', actor_id: 'U0ALICE' });
    await gone({ type: 'channel_archive', channel: 'C0OUT', user: 'U0ALICE' });
    await expect.poll(() => t.chat.calls.length).toBe(3);
    expect(
      t.chat.calls.map((c) => (c.method === 'channelGone' ? [c.channel, c.reason] : c)),
    ).toEqual([
      ['C0OPS', 'the channel was deleted'],
      ['C0GAS', 'pipewatch was removed from the channel'],
      ['C0OUT', 'the channel was archived'],
    ]);
  });
});
