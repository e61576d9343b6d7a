/**
 * Discord's side of interactions, as the fake plays it: interaction webhooks that take
 * follow-ups only for the application's interactions and only while their tokens last,
 * refusing messages Discord would refuse; and signatures any Ed25519 verifier accepts
 * with the public key as Discord shows it.
 */
import { createPublicKey, verify } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { type DiscordFake, startDiscordFake } from '../../fakes/discord.js';
import { discordInteractions, TOKEN_LIFETIME_MS } from '../../fakes/discord-interactions.js';
import { ManualClock } from '../../support/clock.js';

let fake: DiscordFake | undefined;

afterEach(async () => {
  await fake?.close();
});

async function setup() {
  fake = await startDiscordFake();
  const clock = new ManualClock('2026-11-20T15:00:00Z');
  // No app here: interactions are built and their tokens issued, never sent.
  const discord = discordInteractions({ url: 'http://127.0.0.1:1/unused', fake, clock });
  const payload = discord.command('list');
  discord.issue(payload);
  const post = (body: unknown, app = discord.applicationId, token = payload.token) =>
    fetch(`${fake!.url}/v10/webhooks/${app}/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (res) => ({
      status: res.status,
      body: (await res.json()) as Record<string, unknown>,
    }));
  return { discord, clock, payload, post };
}

describe('the interaction webhooks', () => {
  it('take a follow-up of a token sent, without a bot token, and answer with the message', async () => {
    const { discord, post } = await setup();
    const res = await post({ content: 'hello', flags: 64, allowed_mentions: { parse: [] } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      content: 'hello',
      flags: 64,
      webhook_id: discord.applicationId,
    });
    expect(discord.followUps).toMatchObject([{ status: 200, body: { content: 'hello' } }]);
  });

  it('refuse another application (404 10015), an unknown or expired token (401 50027)', async () => {
    const { clock, post } = await setup();
    expect((await post({ content: 'x' }, '1999999999999999999')).body).toMatchObject({
      code: 10015,
    });
    expect((await post({ content: 'x' }, undefined, 'bm90LWEtdG9rZW4')).body).toMatchObject({
      code: 50027,
    });
    clock.advance(TOKEN_LIFETIME_MS + 1);
    const late = await post({ content: 'x' });
    expect(late).toMatchObject({ status: 401, body: { code: 50027 } });
  });

  it('refuse what Discord refuses: empty (50006), too long or too many components (50035)', async () => {
    const { post } = await setup();
    expect((await post({ content: ' ' })).body).toMatchObject({ code: 50006 });
    expect((await post({ content: 'x'.repeat(2001) })).body).toMatchObject({ code: 50035 });
    const rows = Array.from({ length: 6 }, (_, i) => ({
      type: 1,
      components: [{ type: 2, style: 4, label: 'Remove', custom_id: `remove-${i}` }],
    }));
    expect((await post({ content: 'x', components: rows })).body).toMatchObject({ code: 50035 });
  });
});

describe('signatures', () => {
  it('verify with the public key as Discord shows it: 32 raw bytes in hex', async () => {
    const { discord, payload } = await setup();
    expect(discord.publicKey).toMatch(/^[0-9a-f]{64}$/);
    const sent = discord.build(payload);
    const key = createPublicKey({
      key: {
        kty: 'OKP',
        crv: 'Ed25519',
        x: Buffer.from(discord.publicKey, 'hex').toString('base64url'),
      },
      format: 'jwk',
    });
    const signed = Buffer.from(sent.headers['x-signature-timestamp']! + sent.body);
    const signature = Buffer.from(sent.headers['x-signature-ed25519']!, 'hex');
    expect(verify(null, signed, key, signature)).toBe(true);
  });
});
