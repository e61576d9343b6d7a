/** The Discord fake speaks Discord's wire format: limits, empty messages, auth, rate-limit headers. */
import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordChannels } from '../../../src/channels/discord/send.js';
import { systemClock } from '../../../src/lib/clock.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { memoryThreads, noticeAlert } from '../../fakes/alerts.js';
import { type DiscordFake, FAKE_CHANNEL, startDiscordFake } from '../../fakes/discord.js';

let fake: DiscordFake;
afterEach(async () => fake.close());

async function post(body: unknown, token = fake.token) {
  const res = await fetch(`${fake.url}/v10/channels/${FAKE_CHANNEL}/messages`, {
    method: 'POST',
    headers: { authorization: `Bot ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as Record<string, unknown>,
  };
}

describe('Discord fake', () => {
  it('rejects embeds over the limits with Invalid Form Body, errors nested by path', async () => {
    fake = await startDiscordFake();
    const res = await post({
      embeds: [{ title: 'x'.repeat(257), fields: [{ name: '', value: 'v' }] }],
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 50035,
      message: 'Invalid Form Body',
      errors: {
        embeds: {
          0: {
            title: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] },
            fields: { 0: { name: { _errors: [{ code: 'BASE_TYPE_REQUIRED' }] } } },
          },
        },
      },
    });
    const total = await post({
      embeds: Array.from({ length: 2 }, () => ({ description: 'x'.repeat(3001) })),
    });
    expect(total.body).toMatchObject({
      errors: { embeds: { _errors: [{ code: 'MAX_EMBED_SIZE_EXCEEDED' }] } },
    });
    expect(fake.messages).toHaveLength(0);
  });

  it('rejects an empty message and a wrong token', async () => {
    fake = await startDiscordFake();
    expect((await post({ content: ' ', embeds: [] })).body).toEqual({
      code: 50006,
      message: 'Cannot send an empty message',
    });
    expect(await post({ content: 'hi' }, 'wrong')).toMatchObject({
      status: 401,
      body: { message: '401: Unauthorized', code: 0 },
    });
  });

  it('sends rate-limit headers and a 429 with retry_after once the bucket is empty', async () => {
    fake = await startDiscordFake({ bucket: { limit: 1, resetAfterMs: 60_000 } });
    const ok = await post({ content: 'one' });
    expect(ok.headers.get('x-ratelimit-limit')).toBe('1');
    expect(ok.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(ok.headers.get('x-ratelimit-reset-after'))).toBeGreaterThan(59);
    expect(ok.headers.get('x-ratelimit-bucket')).toBeTruthy();
    const limited = await post({ content: 'two' });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ message: 'You are being rate limited.', global: false });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(59);
    expect(fake.messages.map((m) => m.content)).toEqual(['one']);
  });

  it('applies the global limit across routes', async () => {
    fake = await startDiscordFake({ global: { limit: 1, windowMs: 60_000 } });
    await post({ content: 'one' });
    const limited = await post({ content: 'two' });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ global: true });
    expect(limited.headers.get('x-ratelimit-global')).toBe('true');
  });

  it('turns an injected Invalid Form Body into a permanent failure with its first error', async () => {
    fake = await startDiscordFake();
    const { discord } = createDiscordChannels(
      { token: fake.token, apiUrl: fake.url },
      { clock: systemClock, logger: silentLogger },
    );
    const errors = {
      embeds: {
        0: {
          title: {
            _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 256 or fewer in length.' }],
          },
        },
      },
    };
    fake.inject({ status: 400, body: { code: 50035, message: 'Invalid Form Body', errors } });
    const sent = discord.send({ kind: 'discord', channel: FAKE_CHANNEL }, [noticeAlert()], {
      now: '2026-11-20T15:00:00Z',
      threads: memoryThreads(),
    });
    await expect(sent).rejects.toMatchObject({
      permanent: true,
      reason: `discord: 400 Invalid Form Body [50035]: embeds[0].title[BASE_TYPE_MAX_LENGTH]: Must be 256 or fewer in length. (channel ${FAKE_CHANNEL})`,
    });
  });
});
