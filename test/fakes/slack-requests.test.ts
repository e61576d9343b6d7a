/**
 * The signed-request sender makes requests Bolt accepts as Slack's, and spoiled ones Bolt
 * refuses: checked with Bolt's own `verifySlackRequest`, and end to end against a Bolt
 * `App` in HTTP mode whose answers to response URLs land in the Slack fake. A choice in a
 * static select is built as Slack sends it, and a chunked request goes without a length.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, verifySlackRequest, webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/clock.js';
import { type SlackFake, startSlackFake } from './slack.js';
import { boltLogger, boltOptions } from './slack-bolt.js';
import { blockActions, slackEvents, slashCommand, urlVerification } from './slack-payloads.js';
import { type SentRequest, slackRequestSender } from './slack-requests.js';

const SECRET = 'fake-signing-secret-8f3a1c0d9e';

let fake: SlackFake;
let client: InstanceType<typeof webApi.WebClient>;
beforeAll(async () => {
  fake = await startSlackFake({ rate: { perSecond: 50, burst: 10 } });
  client = new webApi.WebClient(fake.token, { slackApiUrl: fake.url });
  await client.views.publish({
    user_id: 'U0ALICE',
    view: {
      type: 'home',
      blocks: [
        {
          type: 'section',
          text: { type: 'mrkdwn', text: '#12 ANR in #gas' },
          accessory: {
            type: 'button',
            action_id: 'remove',
            value: '12',
            text: { type: 'plain_text', text: 'Remove' },
          },
        },
      ],
    },
  });
});
afterAll(() => fake.close());

/** Bolt's verdict on a request: undefined when it passes, else its reason. */
function boltVerdict(sent: SentRequest, secret = SECRET): string | undefined {
  try {
    verifySlackRequest({
      signingSecret: secret,
      body: sent.body,
      headers: {
        'x-slack-signature': sent.headers['x-slack-signature']!,
        'x-slack-request-timestamp': Number(sent.headers['x-slack-request-timestamp']),
      },
    });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('signed requests, as Bolt verifies them', () => {
  const sender = slackRequestSender({
    url: 'http://127.0.0.1:9/slack/events',
    signingSecret: SECRET,
  });

  it('signs each kind so that Bolt accepts it, with Slack’s content types', () => {
    const command = sender.build.command(slashCommand(fake, { text: 'subscribe pipeline:ANR' }));
    const click = sender.build.interactive(blockActions(fake, homeClick()));
    const event = sender.build.event(slackEvents.channelArchive(fake, 'C0OPS'));
    expect([command, click, event].map((r) => boltVerdict(r))).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(command.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(click.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(event.headers['content-type']).toBe('application/json');
    expect(command.headers['x-slack-signature']).toMatch(/^v0=[0-9a-f]{64}$/);
  });

  it('spoils a request so that Bolt refuses it, each in its own way', () => {
    const payload = slashCommand(fake, { text: 'list' });
    expect(boltVerdict(sender.build.command(payload, { secret: 'not-the-secret' }))).toMatch(
      /signature mismatch/,
    );
    const altered = sender.build.command(payload, {
      alterBody: (body) => body.replace('text=list', 'text=remove+1'),
    });
    expect(altered.body).toContain('text=remove+1');
    expect(boltVerdict(altered)).toMatch(/signature mismatch/);
    const late = slackRequestSender({
      url: 'http://127.0.0.1:9/slack/events',
      signingSecret: SECRET,
      clock: new ManualClock(Date.now() - 6 * 60_000),
    });
    expect(boltVerdict(late.build.command(payload))).toMatch(/stale/);
    expect(boltVerdict(sender.build.command(payload), 'another-secret')).toMatch(/mismatch/);
  });

  it('puts the slash command fields Slack documents, and the interaction in one payload field', () => {
    const command = new URLSearchParams(
      sender.build.command(slashCommand(fake, { text: 'a b' })).body,
    );
    expect([...command.keys()].sort()).toEqual(
      [
        'api_app_id',
        'channel_id',
        'channel_name',
        'command',
        'is_enterprise_install',
        'response_url',
        'team_domain',
        'team_id',
        'text',
        'token',
        'trigger_id',
        'user_id',
        'user_name',
      ].sort(),
    );
    expect(command.get('text')).toBe('a b');
    expect(command.get('response_url')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/respond\//);
    const click = new URLSearchParams(
      sender.build.interactive(blockActions(fake, homeClick())).body,
    );
    expect([...click.keys()]).toEqual(['payload']);
    expect(JSON.parse(click.get('payload')!)).toMatchObject({
      type: 'block_actions',
      container: { type: 'view' },
      actions: [{ action_id: 'remove', value: '12', type: 'button' }],
    });
  });

  it('builds a click on a message from the message the fake holds', async () => {
    const button = {
      type: 'button' as const,
      action_id: 'ack',
      text: { type: 'plain_text' as const, text: 'Ack' },
    };
    const posted = await client.chat.postMessage({
      channel: 'C0GAS',
      text: 'alert',
      blocks: [{ type: 'actions', block_id: 'b1', elements: [button] }],
    });
    const click = blockActions(fake, {
      source: { message: { channel: 'C0GAS', ts: posted.ts! } },
      actionId: 'ack',
      user: 'W0BOB',
    });
    expect(click).toMatchObject({
      type: 'block_actions',
      user: { id: 'W0BOB', username: 'bob', team_id: 'T0ACME' },
      team: { id: 'T0ACME', domain: 'acme-gas' },
      api_app_id: fake.appId,
      container: {
        type: 'message',
        message_ts: posted.ts,
        channel_id: 'C0GAS',
        is_ephemeral: false,
      },
      channel: { id: 'C0GAS', name: 'gas' },
      message: { ts: posted.ts, text: 'alert', blocks: [{ block_id: 'b1' }] },
      response_url: expect.stringMatching(/\/respond\//),
      trigger_id: expect.any(String),
      actions: [{ action_id: 'ack', block_id: 'b1', text: button.text, type: 'button' }],
    });
    expect(() => blockActions(fake, { ...homeClick(), actionId: 'nothing' })).toThrow(/no button/);
  });
});

describe('a choice in a static select', () => {
  it('comes as Slack sends it: the option chosen, in the action and in the state', async () => {
    const select = {
      type: 'static_select' as const,
      action_id: 'mute',
      placeholder: { type: 'plain_text' as const, text: 'Mute' },
      options: ['1h', '4h'].map((h) => ({
        text: { type: 'plain_text' as const, text: `for ${h}` },
        value: `mute:${h}`,
      })),
    };
    const posted = await client.chat.postMessage({
      channel: 'C0GAS',
      text: 'alert',
      blocks: [{ type: 'actions', block_id: 'b2', elements: [select] }],
    });
    const source = { message: { channel: 'C0GAS', ts: posted.ts! } };
    const chosen = { text: { type: 'plain_text', text: 'for 4h' }, value: 'mute:4h' };
    expect(blockActions(fake, { source, actionId: 'mute', value: 'mute:4h' })).toMatchObject({
      state: { values: { b2: { mute: { type: 'static_select', selected_option: chosen } } } },
      actions: [
        {
          type: 'static_select',
          action_id: 'mute',
          block_id: 'b2',
          selected_option: chosen,
          placeholder: select.placeholder,
          action_ts: expect.any(String),
        },
      ],
    });
    expect(() => blockActions(fake, { source, actionId: 'mute' })).toThrow(/choose an option/);
    expect(() => blockActions(fake, { source, actionId: 'mute', value: 'mute:9h' })).toThrow(
      /no button/,
    );
  });
});

describe('a chunked request', () => {
  it('goes without Content-Length, signed over the whole body', async () => {
    const seen: Array<{ headers: Record<string, unknown>; body: string }> = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const sender = slackRequestSender({
        url: `http://127.0.0.1:${port}/slack/events`,
        signingSecret: SECRET,
      });
      const answer = await sender.command(slashCommand(fake, { text: 'list' }), {
        padTo: 5000,
        chunked: true,
      });
      expect(answer.status).toBe(200);
      expect(seen[0]!.headers['transfer-encoding']).toBe('chunked');
      expect(seen[0]!.headers['content-length']).toBeUndefined();
      expect(seen[0]!.body).toBe(answer.request.body);
      expect(Buffer.byteLength(answer.request.body)).toBe(5000);
      expect(boltVerdict(answer.request)).toBeUndefined();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

/** A click on the remove button of Alice's home view. */
function homeClick() {
  return { source: { home: true as const }, actionId: 'remove', value: '12' };
}

describe('a Bolt app over HTTP', () => {
  let app: App;
  let sender: ReturnType<typeof slackRequestSender>;
  const followUps: Array<Promise<unknown>> = [];
  beforeAll(async () => {
    app = new App({ ...boltOptions(fake, boltLogger()), signingSecret: SECRET });
    app.command('/pipewatch', async ({ command, ack, respond }) => {
      await ack({ text: `heard: ${command.text}` });
      followUps.push(respond({ response_type: 'ephemeral', text: 'later' }));
    });
    const server = await app.start({ port: 0, host: '127.0.0.1' });
    const { port } = server.address() as AddressInfo;
    sender = slackRequestSender({
      url: `http://127.0.0.1:${port}/slack/events`,
      signingSecret: SECRET,
    });
  });
  afterAll(() => app.stop());

  it('acks a signed command, and its answer to the response URL reaches the fake', async () => {
    const answer = await sender.command(slashCommand(fake, { text: 'list' }));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ text: 'heard: list' });
    await Promise.all(followUps);
    expect(fake.responses.at(-1)).toMatchObject({
      status: 200,
      use: 1,
      body: { response_type: 'ephemeral', text: 'later' },
      context: { channel: 'C0GAS', user: 'U0ALICE' },
    });
  });

  it('refuses a wrong signature, an altered body, a stale timestamp and an oversize body', async () => {
    const payload = slashCommand(fake, { text: 'list' });
    const wrong = await sender.command(payload, { secret: 'not-the-secret' });
    const altered = await sender.command(payload, { alterBody: (b) => `${b}&text=x` });
    const stale = await sender.command(payload, {
      timestamp: Math.floor(Date.now() / 1000) - 301,
    });
    const big = await sender.command(payload, { padTo: 4 * 1024 * 1024 + 1 });
    expect([wrong.status, altered.status, stale.status, big.status]).toEqual([401, 401, 401, 413]);
  });

  it('takes the same request sent twice: replay protection is left to the app', async () => {
    const first = await sender.command(slashCommand(fake, { text: 'once' }));
    const again = await sender.send(first.request);
    expect(again.request).toEqual(first.request);
    expect([first.status, again.status]).toEqual([200, 200]);
  });

  it('answers the url_verification challenge', async () => {
    const answer = await sender.event(
      urlVerification('3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P'),
    );
    expect(JSON.parse(answer.body)).toEqual({
      challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
    });
  });
});
