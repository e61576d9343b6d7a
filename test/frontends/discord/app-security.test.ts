/**
 * What the Discord app refuses before it acts: requests not signed with the
 * application's key, or signed at a time too far from now, or whose body changed after
 * signing (401, the body never read as JSON); bodies over the limit (413); signed bodies
 * that are no interaction (400); an interaction sent again (a replay, 401); and anything
 * after the app is closed (503). In none of these is anything stored or posted.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeCustomId } from '../../../src/channels/discord/actions.js';
import { startDiscordApp } from '../../../src/frontends/discord/app.js';
import { toUtcIso } from '../../../src/lib/time.js';
import { asyncStoreOf } from '../../../src/store/async-sqlite.js';
import { PERMISSIONS, USERS } from '../../fakes/discord-interaction-payloads.js';
import { type AppUnderTest, startAppUnderTest } from './app-setup.js';

let t: AppUnderTest;

afterEach(async () => {
  await t?.close();
});

const manager = { user: USERS.alice, permissions: PERMISSIONS.manager };

/** `/pipewatch subscribe pipelines:transco` by a member who may. */
const subscribe = () => t.discord.command('subscribe', { pipelines: 'transco' }, manager);

/** Nothing came of the requests: nothing stored, nothing posted. */
async function nothingDone() {
  expect(t.store.subscriptions.all()).toEqual([]);
  expect(t.discord.followUps).toEqual([]);
}

/**
 * The status of a request whose body is never finished: `first` is sent, then nothing,
 * so only an answer that does not wait for the whole body arrives.
 */
function unfinished(headers: Record<string, string>, first: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${t.server.url}/discord/interactions`, { method: 'POST', headers });
    req.on('response', (res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      req.destroy();
    });
    req.on('error', reject);
    req.flushHeaders();
    if (first.length > 0) req.write(first);
  });
}

describe('signatures', () => {
  it('a request signed with another key is refused with 401, before its body is read as JSON', async () => {
    t = await startAppUnderTest();
    const forged = await t.discord.interact(subscribe(), { otherKey: true });
    expect(forged.status).toBe(401);
    expect(forged.body).toBe('the signature does not match the body\n');
    // Not JSON at all, and still a 401, not a 400: the signature comes first.
    const junk = await t.discord.interact(subscribe(), { otherKey: true, rawBody: '{not json' });
    expect(junk.status).toBe(401);
    await nothingDone();
  });

  it('a forged request does not use up the id of the real one', async () => {
    t = await startAppUnderTest();
    const payload = subscribe();
    expect((await t.discord.interact(payload, { otherKey: true })).status).toBe(401);
    expect((await t.discord.interact(payload)).status).toBe(200);
    expect(t.store.subscriptions.all()).toHaveLength(1);
  });

  it('a request without either signature header, or with one malformed, is refused with 401', async () => {
    t = await startAppUnderTest();
    for (const headers of [
      { 'x-signature-ed25519': undefined },
      { 'x-signature-timestamp': undefined },
      { 'x-signature-ed25519': 'not-hex' },
      { 'x-signature-ed25519': 'ab'.repeat(63) },
      { 'x-signature-timestamp': '' },
      { 'x-signature-timestamp': '1795186800.5' },
    ]) {
      const res = await t.discord.interact(subscribe(), { headers });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.body).toMatch(/^no X-Signature-(Ed25519|Timestamp)/);
    }
    await nothingDone();
  });

  it('a timestamp more than 5 minutes from the clock, either way, is refused with 401', async () => {
    t = await startAppUnderTest();
    const now = Math.floor(t.clock.now().getTime() / 1000);
    for (const timestamp of [now - 301, now + 301, 0]) {
      const res = await t.discord.interact(subscribe(), { timestamp });
      expect(res.status, String(timestamp)).toBe(401);
      expect(res.body).toBe('X-Signature-Timestamp is more than 5 minutes from now\n');
    }
    await nothingDone();
    // Five minutes exactly is still within.
    expect((await t.discord.interact(subscribe(), { timestamp: now - 300 })).status).toBe(200);
  });

  it('a body changed after signing is refused with 401', async () => {
    t = await startAppUnderTest();
    const res = await t.discord.interact(subscribe(), {
      alterBody: (body) => body.replace('"transco"', '"tgp"'),
    });
    expect(res.status).toBe(401);
    await nothingDone();
  });
});

describe('bodies', () => {
  it('a body over the limit is refused with 413, declared or streamed', async () => {
    t = await startAppUnderTest();
    const limit = 1024 * 1024;
    const declared = await t.discord.interact(subscribe(), { padTo: limit + 1 });
    expect(declared.status).toBe(413);
    expect(declared.body).toBe(`the body is larger than ${limit} bytes\n`);
    const streamed = await t.discord.interact(subscribe(), { padTo: limit + 1, chunked: true });
    expect(streamed.status).toBe(413);
    await nothingDone();
    // At the limit it is taken.
    expect((await t.discord.interact(subscribe(), { padTo: limit })).status).toBe(200);
  });

  it('a body over the limit is answered 413 without waiting for the rest of it', async () => {
    t = await startAppUnderTest({ app: { bodyLimit: 4096 } });
    const { headers } = t.discord.build(subscribe());
    // Declared too large: answered before any of the body arrives.
    const declared = await unfinished({ ...headers, 'content-length': '4097' }, Buffer.alloc(0));
    expect(declared).toBe(413);
    // Streamed without a length: answered once the limit is passed, the rest never sent.
    const streamed = await unfinished(
      { ...headers, 'transfer-encoding': 'chunked' },
      Buffer.alloc(4097, 0x20),
    );
    expect(streamed).toBe(413);
    await nothingDone();
  });

  it('a signed body that is no interaction is refused with 400', async () => {
    t = await startAppUnderTest();
    for (const rawBody of ['{"type": 2', '[1]', '{"id":"1"}', '"text"']) {
      const res = await t.discord.interact(subscribe(), { rawBody });
      expect(res.status, rawBody).toBe(400);
      expect(res.body).toMatch(/^the body is not /);
    }
    const noId = { ...subscribe(), id: 'x' };
    expect((await t.discord.interact(noId)).status).toBe(400);
    await nothingDone();
  });
});

describe('replays', () => {
  it('an interaction sent again is refused with 401 and done once, across a restart too', async () => {
    t = await startAppUnderTest();
    const first = await t.discord.interact(subscribe());
    expect(first.status).toBe(200);
    await expect.poll(() => t.discord.followUps.length).toBe(1);
    const again = await t.discord.send(first.request);
    expect(again.status).toBe(401);
    expect(again.body).toMatch(/^interaction \d+ was already received \(a replay\)/);
    // A new app on the same database remembers it.
    const restarted = startDiscordApp({
      publicKey: t.discord.publicKey,
      apiUrl: t.fake.url,
      chat: t.core,
      clock: t.clock,
      logger: t.logger,
      replays: asyncStoreOf(t.store).interactions,
    });
    await t.app.close();
    t.app = restarted;
    t.clock.advance(4 * 60_000);
    expect((await t.discord.send(first.request)).status).toBe(401);
    expect(t.store.subscriptions.all()).toHaveLength(1);
    expect(t.discord.followUps).toHaveLength(1);
  });

  it('a replayed click is not acted on twice', async () => {
    t = await startAppUnderTest();
    const mute = encodeCustomId({ kind: 'mute', pipeline: 'transco', forMs: 0 });
    const message = { id: '1500000000000000001' };
    const click = t.discord.click({ customId: mute, values: ['4'], message }, manager);
    const first = await t.discord.interact(click);
    expect(first.status).toBe(200);
    expect(t.store.silences.active(toUtcIso(t.clock.now()))).toHaveLength(1);
    t.clock.advance(60_000);
    expect((await t.discord.send(first.request)).status).toBe(401);
    expect(t.store.silences.active(toUtcIso(t.clock.now()))).toHaveLength(1);
  });

  it('a store that cannot say whether it is a replay: nothing is done, the caller is told', async () => {
    t = await startAppUnderTest({
      app: {
        replays: {
          firstTime: () => {
            throw new Error('database is locked');
          },
        },
      },
    });
    const res = await t.discord.interact(subscribe());
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      type: 4,
      data: {
        content: 'pipewatch could not do that just now; the error is in its log.',
        flags: 64,
      },
    });
    await nothingDone();
    expect(t.lines.filter((l) => l.includes('database is locked'))).toHaveLength(1);
  });
});

describe('closing', () => {
  it('after close every request is refused with 503', async () => {
    t = await startAppUnderTest();
    await t.app.close();
    const res = await t.discord.interact(subscribe());
    expect(res.status).toBe(503);
    await nothingDone();
  });
});
