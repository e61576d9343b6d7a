/**
 * Webhook signatures a receiver can trust: `t=<seconds>,v1=<HMAC of "t.body">`, checked
 * in constant time and refused when `t` is more than five minutes off, so a recorded
 * request played again, or a body changed on the way, is refused. The receiver fake
 * checks with the same code as the snippet in docs/security.md, on the channel's own clock.
 */
import { createHmac } from 'node:crypto';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signature } from '../../../src/channels/webhook/render.js';
import { createWebhookChannel } from '../../../src/channels/webhook/send.js';
import {
  SIGNATURE_TOLERANCE_SECONDS,
  verifyWebhookSignature,
} from '../../../src/channels/webhook/verify.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { memoryThreads, noticeAlert } from '../../fakes/alerts.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../fakes/webhook.js';
import { ManualClock } from '../../support/clock.js';

const SECRET = 'a-long-random-webhook-secret';
const SENT = new Date('2026-11-20T15:00:00Z');
const T = SENT.getTime() / 1000;
const BODY = '{"version":1,"kind":"notice"}';
const later = (seconds: number) => ({ now: new Date(SENT.getTime() + seconds * 1000) });
const hmac = (text: string, secret = SECRET) =>
  createHmac('sha256', secret).update(text).digest('hex');

describe('verifyWebhookSignature', () => {
  const header = signature(BODY, SECRET, SENT);

  it('signs the time with the body, as Stripe and Slack do', () => {
    expect(header).toBe(`t=${T},v1=${hmac(`${T}.${BODY}`)}`);
    expect(verifyWebhookSignature(SECRET, header, BODY, later(0))).toEqual({
      ok: true,
      timestamp: T,
    });
    expect(verifyWebhookSignature(SECRET, header, Buffer.from(BODY), later(0)).ok).toBe(true);
  });

  it('accepts a request up to five minutes old, or early by as much, and no more', () => {
    expect(SIGNATURE_TOLERANCE_SECONDS).toBe(300);
    expect(verifyWebhookSignature(SECRET, header, BODY, later(300)).ok).toBe(true);
    expect(verifyWebhookSignature(SECRET, header, BODY, later(-300)).ok).toBe(true);
    expect(verifyWebhookSignature(SECRET, header, BODY, later(301))).toEqual({
      ok: false,
      reason: `timestamp ${T} is more than 300 s from now (${T + 301})`,
    });
    expect(verifyWebhookSignature(SECRET, header, BODY, later(-301)).ok).toBe(false);
  });

  it('refuses a changed body, a changed time, another secret and the old scheme', () => {
    const mismatch = { ok: false, reason: 'signature does not match' };
    expect(verifyWebhookSignature(SECRET, header, BODY.replace('1', '2'), later(0))).toEqual(
      mismatch,
    );
    // A replay with a fresh t and the old v1.
    const v1 = header.split(',v1=')[1];
    expect(verifyWebhookSignature(SECRET, `t=${T + 600},v1=${v1}`, BODY, later(600))).toEqual(
      mismatch,
    );
    expect(verifyWebhookSignature('another-secret-of-16-chars', header, BODY, later(0))).toEqual(
      mismatch,
    );
    expect(verifyWebhookSignature(SECRET, `t=${T},v1=${v1?.slice(0, 63)}`, BODY, later(0))).toEqual(
      mismatch,
    );
    expect(verifyWebhookSignature(SECRET, `sha256=${hmac(BODY)}`, BODY, later(0))).toEqual({
      ok: false,
      reason: 'no timestamp t=',
    });
    expect(verifyWebhookSignature(SECRET, undefined, BODY, later(0))).toEqual({
      ok: false,
      reason: 'no X-Pipewatch-Signature-V1 header',
    });
    expect(verifyWebhookSignature(SECRET, `t=soon,v1=${v1}`, BODY, later(0)).ok).toBe(false);
  });

  it('accepts when any of several v1 signatures matches (a secret being rotated)', () => {
    const both = `t=${T},v1=${hmac(`${T}.${BODY}`, 'the-previous-secret-1')},v1=${hmac(`${T}.${BODY}`)}`;
    expect(verifyWebhookSignature(SECRET, both, BODY, later(0)).ok).toBe(true);
  });
});

describe('a receiver verifying what the channel sends', () => {
  let receiver: WebhookReceiver;
  let clock: ManualClock;
  beforeEach(async () => {
    clock = new ManualClock(SENT);
    receiver = await startWebhookReceiver({ secret: SECRET, clock });
  });
  afterEach(() => receiver.close());

  async function sendOne() {
    const channel = createWebhookChannel({ secret: SECRET }, { clock, logger: silentLogger });
    await channel.send({ kind: 'webhook', url: receiver.url }, [noticeAlert()], {
      now: '2026-11-20T14:59:00Z',
      threads: memoryThreads(),
    });
    await channel.close?.();
    return receiver.received.at(-1)!;
  }

  /** Posts `body` with `headers` again, as someone who recorded them would. */
  function replay(headers: Record<string, unknown>, body: string) {
    const signed = {
      'content-type': 'application/json',
      'x-pipewatch-signature-v1': String(headers['x-pipewatch-signature-v1']),
    };
    return request(receiver.url, { method: 'POST', headers: signed, body });
  }

  it('signs the time with the body, and the body alone as the contract has always done', async () => {
    const hook = await sendOne();
    expect(hook.signatureValid).toBe(true);
    expect(hook.headers['x-pipewatch-signature-v1']).toBe(signature(hook.body, SECRET, SENT));
    expect(hook.headers['x-pipewatch-signature']).toBe(`sha256=${hmac(hook.body)}`);
  });

  it('refuses the same request played again six minutes later', async () => {
    const hook = await sendOne();
    clock.advance(6 * 60_000);
    const again = await replay(hook.headers, hook.body);
    expect(again.statusCode).toBe(401);
    await again.body.text();
    expect(receiver.refused.map((r) => r.reason)).toEqual([
      `timestamp ${T} is more than 300 s from now (${T + 360})`,
    ]);
    expect(receiver.received).toHaveLength(1);
  });

  it('refuses a body changed on the way', async () => {
    const hook = await sendOne();
    const changed = hook.body.replace('"kind":"notice"', '"kind":"capacity"');
    expect(changed).not.toBe(hook.body);
    const response = await replay(hook.headers, changed);
    expect(response.statusCode).toBe(401);
    await response.body.text();
    expect(receiver.refused.map((r) => r.reason)).toEqual(['signature does not match']);
  });
});
