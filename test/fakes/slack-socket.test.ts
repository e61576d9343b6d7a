/**
 * The Socket Mode fake against the real libraries: a Bolt `App` in Socket Mode opens its
 * connection through the fake's `apps.connections.open`, receives envelopes and acks them,
 * and reconnects after Slack's `disconnect` message and after a dropped connection.
 */
import { App, SocketModeReceiver } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type SlackFake, startSlackFake } from './slack.js';
import { boltLogger, boltOptions } from './slack-bolt.js';
import { blockActions, slackEvents, slashCommand } from './slack-payloads.js';

let fake: SlackFake;
let app: App | undefined;
beforeEach(async () => {
  fake = await startSlackFake({ rate: { perSecond: 50, burst: 10 } });
});
afterEach(async () => {
  await app?.stop();
  app = undefined;
  await fake.close();
});

/** A Bolt app in Socket Mode on the fake, answering `/pipewatch` with what it was told. */
async function socketApp(options: { receiver?: SocketModeReceiver } = {}): Promise<App> {
  const a = new App({
    ...boltOptions(fake),
    ...(options.receiver ? { receiver: options.receiver } : {}),
    socketMode: true,
  });
  a.command('/pipewatch', async ({ command, ack }) => {
    await ack({ response_type: 'ephemeral', text: `heard: ${command.text}` });
  });
  app = a;
  await a.start();
  return a;
}

/** A promise and the function that settles it. */
function settled<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const opens = () => fake.calls.filter((c) => c.method === 'apps.connections.open');

describe('the Socket Mode fake with a Bolt app', () => {
  it('is reached through apps.connections.open with the app token, and carries a command and its ack', async () => {
    await socketApp();
    const connection = await fake.socket.connected(1);
    expect(opens()).toEqual([expect.objectContaining({ status: 200 })]);
    expect(connection.open).toBe(true);
    const ack = await fake.socket.command(slashCommand(fake, { text: 'list' }));
    expect(ack).toEqual({
      envelope_id: expect.any(String),
      payload: { response_type: 'ephemeral', text: 'heard: list' },
      connection: 1,
    });
  });

  it('reconnects with a fresh URL after Slack asks it to (refresh_requested)', async () => {
    await socketApp();
    await fake.socket.connected(1);
    fake.socket.disconnect('refresh_requested');
    expect((await fake.socket.closed(1)).closeCode).toBe(1000);
    const second = await fake.socket.connected(2, 15_000);
    expect(opens()).toHaveLength(2);
    expect(second.ticket).not.toBe(fake.socket.connections[0]!.ticket);
    const ack = await fake.socket.command(slashCommand(fake, { text: 'again' }));
    expect(ack).toMatchObject({ connection: 2, payload: { text: 'heard: again' } });
  });

  it('reconnects after the connection drops without a close frame', async () => {
    const receiver = new SocketModeReceiver({
      appToken: fake.appToken,
      clientPingTimeout: 1000,
      logger: boltLogger(),
      installerOptions: { clientOptions: { slackApiUrl: fake.url } },
    });
    await socketApp({ receiver });
    await fake.socket.connected(1);
    fake.socket.drop();
    expect((await fake.socket.closed(1)).closeCode).toBe(1006);
    await fake.socket.connected(2);
    const ack = await fake.socket.command(slashCommand(fake, { text: 'back' }));
    expect(ack.connection).toBe(2);
  });

  it('delivers events and interactions, whose answers land in the fake', async () => {
    const a = await socketApp();
    const published = settled<void>();
    a.event('app_home_opened', async ({ event, client }) => {
      await client.views.publish({
        user_id: event.user,
        view: { type: 'home', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'hi' } }] },
      });
      published.resolve();
    });
    const responded = settled<void>();
    a.action('ack', async ({ ack, respond }) => {
      await ack();
      await respond({ replace_original: true, text: 'Acknowledged' });
      responded.resolve();
    });
    await fake.socket.connected(1);
    const event = await fake.socket.event(slackEvents.appHomeOpened(fake, 'U0ALICE'));
    expect(event.payload).toEqual({});
    await published.promise;
    expect(fake.views.get('U0ALICE')?.blocks).toHaveLength(1);

    const button = {
      type: 'actions',
      elements: [
        { type: 'button', action_id: 'ack', text: { type: 'plain_text', text: 'Ack' }, value: '7' },
      ],
    };
    const posted = await a.client.chat.postMessage({
      channel: 'C0GAS',
      text: 'alert',
      blocks: [button],
    });
    const click = blockActions(fake, {
      source: { message: { channel: 'C0GAS', ts: posted.ts! } },
      actionId: 'ack',
    });
    await fake.socket.interactive(click);
    await responded.promise;
    expect(fake.responses).toEqual([
      expect.objectContaining({
        status: 200,
        body: { replace_original: true, text: 'Acknowledged' },
      }),
    ]);
    expect(fake.message('C0GAS', posted.ts!)).toMatchObject({ text: 'Acknowledged', blocks: [] });
  });

  it('gives listeners a client that retries 100 times unless clientOptions says otherwise', async () => {
    // Bolt 5.1 hands its clientOptions object to the Socket Mode client, which writes its
    // own retryConfig into it; the client Bolt builds for each listener inherits that.
    const retries = async (clientOptions: Record<string, unknown>) => {
      const a = new App({
        ...boltOptions(fake),
        clientOptions: { slackApiUrl: fake.url, ...clientOptions },
        socketMode: true,
      });
      const seen = settled<unknown>();
      a.command('/pipewatch', async ({ ack, client }) => {
        seen.resolve(Reflect.get(client, 'retryConfig'));
        await ack();
      });
      const n = fake.socket.connections.length + 1;
      await a.start();
      await fake.socket.connected(n);
      await fake.socket.command(slashCommand(fake, { text: 'x' }));
      await a.stop();
      await fake.socket.closed(n);
      return { listener: await seen.promise, app: Reflect.get(a.client, 'retryConfig') };
    };
    expect(await retries({})).toEqual({
      listener: { retries: 100, factor: 1.3 },
      app: expect.objectContaining({ retries: 10 }),
    });
    expect((await retries({ retryConfig: { retries: 2 } })).listener).toEqual({ retries: 2 });
  });

  it('times out waiting for an ack the app never sends', async () => {
    await socketApp();
    await fake.socket.connected(1);
    await expect(
      fake.socket.command(slashCommand(fake, { text: 'x', command: '/unknown' }), 500),
    ).rejects.toThrow(/no ack of .* within 500 ms/);
  });
});

describe('the Socket Mode fake’s frames', () => {
  it('sends each envelope as Slack does, and takes the ack a client sends back', async () => {
    const { url } = (await (
      await fetch(`${fake.url}apps.connections.open`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fake.appToken}` },
      })
    ).json()) as { url: string };
    const frames: Array<Record<string, unknown>> = [];
    const client = new WebSocket(url);
    client.on('message', (data) => {
      const frame = JSON.parse(String(data)) as Record<string, unknown>;
      frames.push(frame);
      if (frame.envelope_id) {
        client.send(
          JSON.stringify({ envelope_id: frame.envelope_id, payload: { seen: frame.type } }),
        );
      }
    });
    await fake.socket.connected(1);
    const command = slashCommand(fake, { text: 'list' });
    const event = slackEvents.channelDeleted(fake, 'C0OPS');
    const click = { type: 'block_actions', actions: [] };
    const acks = [
      await fake.socket.command(command),
      await fake.socket.event(event, { retry: { attempt: 1, reason: 'timeout' } }),
      await fake.socket.interactive(click),
    ];
    client.close();
    expect(frames[0]).toMatchObject({ type: 'hello', connection_info: { app_id: fake.appId } });
    expect(frames.slice(1)).toEqual([
      {
        envelope_id: acks[0]!.envelope_id,
        type: 'slash_commands',
        payload: command,
        accepts_response_payload: true,
      },
      {
        envelope_id: acks[1]!.envelope_id,
        type: 'events_api',
        payload: event,
        accepts_response_payload: false,
        retry_attempt: 1,
        retry_reason: 'timeout',
      },
      {
        envelope_id: acks[2]!.envelope_id,
        type: 'interactive',
        payload: click,
        accepts_response_payload: false,
      },
    ]);
    expect(acks.map((a) => a.payload)).toEqual([
      { seen: 'slash_commands' },
      { seen: 'events_api' },
      { seen: 'interactive' },
    ]);
  });
});

describe('apps.connections.open', () => {
  async function open(headers: Record<string, string>, body = '') {
    const res = await fetch(`${fake.url}apps.connections.open`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body,
    });
    return (await res.json()) as Record<string, unknown>;
  }

  it('takes only the app-level token, and only in the Authorization header', async () => {
    const ok = await open({ authorization: `Bearer ${fake.appToken}` });
    expect(ok).toEqual({
      ok: true,
      url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/link\//),
    });
    expect(await open({ authorization: `Bearer ${fake.token}` })).toEqual({
      ok: false,
      error: 'invalid_auth',
    });
    expect(await open({}, `token=${fake.appToken}`)).toEqual({ ok: false, error: 'invalid_auth' });
    expect(await open({})).toEqual({ ok: false, error: 'not_authed' });
  });

  it('stops a Socket Mode receiver given the bot token instead', async () => {
    const receiver = new SocketModeReceiver({
      appToken: fake.token,
      logger: boltLogger(),
      installerOptions: { clientOptions: { slackApiUrl: fake.url } },
    });
    await expect(receiver.start()).rejects.toMatchObject({ data: { error: 'invalid_auth' } });
  });

  it('hands out URLs the Socket Mode server accepts, and refuses others', async () => {
    const { url } = (await open({ authorization: `Bearer ${fake.appToken}` })) as { url: string };
    const hello = await new Promise<unknown>((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once('message', (data) => {
        resolve(JSON.parse(String(data)));
        ws.close();
      });
      ws.once('error', reject);
    });
    expect(hello).toMatchObject({
      type: 'hello',
      num_connections: 1,
      connection_info: { app_id: fake.appId },
    });
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(url.replace(/ticket=[^&]+/, 'ticket=forged'));
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.once('error', () => resolve(-1));
    });
    expect(refused).toBe(401);
  });
});
