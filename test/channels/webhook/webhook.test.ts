import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeliveryError } from '../../../src/channels/types.js';
import { deliveryId } from '../../../src/channels/webhook/render.js';
import { createWebhookChannel } from '../../../src/channels/webhook/send.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { capacityAlert, hostileAlerts, memoryThreads, noticeAlert } from '../../fakes/alerts.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../fakes/webhook.js';
import { ManualClock } from '../../support/clock.js';

const SECRET = 'a-long-random-webhook-secret';
const deps = { clock: new ManualClock(), logger: silentLogger };
const ctx = () => ({ now: '2026-11-20T15:00:00Z' as const, threads: memoryThreads() });

describe('the webhook channel', () => {
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await startWebhookReceiver({ secret: SECRET });
  });
  afterEach(() => receiver.close());

  it('posts the payload of the contract, signed, with a delivery id stable across resends', async () => {
    const channel = createWebhookChannel({ secret: SECRET }, deps);
    const alert = noticeAlert();
    const target = { kind: 'webhook' as const, url: `${receiver.url}/pipewatch` };
    const delivered = await channel.send(target, [alert], ctx());
    await channel.send(target, [alert], ctx());
    expect(delivered.detail).toMatch(/^ok HTTP 204 http:\/\/127\.0\.0\.1:\d+$/);
    const [first, second] = receiver.received;
    expect(first?.signatureValid).toBe(true);
    expect(first?.path).toBe('/pipewatch');
    expect(first?.headers['content-type']).toBe('application/json');
    expect(first?.headers['x-pipewatch-delivery']).toBe(deliveryId(alert.key));
    expect(second?.headers['x-pipewatch-delivery']).toBe(first?.headers['x-pipewatch-delivery']);
    const body = JSON.parse(first!.body);
    expect(Object.keys(body).sort()).toEqual(
      ['kind', 'notice', 'pipeline', 'rule', 'sent_at', 'state', 'version'].sort(),
    );
    expect(body).toMatchObject({
      version: 1,
      kind: 'notice',
      state: 'new',
      rule: 'transco-constraints',
      pipeline: { slug: 'transco', name: 'Transco' },
      sent_at: '2026-11-20T15:00:00Z',
      notice: { id: 101, posted_at: '2026-11-20T14:00:00Z', response_at: null },
    });
    await channel.close?.();
  });

  it('carries capacity figures as numbers and hostile text as data', async () => {
    const channel = createWebhookChannel({ secret: SECRET }, deps);
    const target = { kind: 'webhook' as const, url: receiver.url };
    await channel.send(target, [capacityAlert()], ctx());
    for (const a of hostileAlerts()) await channel.send(target, [a], ctx());
    const capacity = JSON.parse(receiver.received[0]!.body);
    expect(capacity.capacity.locations[0]).toMatchObject({
      oac: 30_000,
      opc: 800_000,
      threshold: 50_000,
    });
    const hostile = receiver.received.slice(1).map((r) => JSON.parse(r.body).notice);
    expect(hostile.map((n) => n.subject)).toEqual(
      hostileAlerts().map((a) => a.payload.notice?.subject),
    );
    await channel.close?.();
  });

  it('refuses a signature made with another secret (the receiver checks the raw body)', async () => {
    const channel = createWebhookChannel({ secret: 'another-secret-of-16-chars' }, deps);
    const error = await channel
      .send({ kind: 'webhook', url: receiver.url }, [noticeAlert()], ctx())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ permanent: true, reason: expect.stringMatching(/HTTP 401/) });
    await channel.close?.();
  });

  it.each([
    [404, true, undefined],
    [410, true, undefined],
    [429, false, 30_000],
    [503, false, undefined],
    [408, false, undefined],
  ])('HTTP %i is permanent: %s', async (status, permanent, retryAfterMs) => {
    const channel = createWebhookChannel({ secret: SECRET }, deps);
    receiver.fail(status, 1, status === 429 ? 30 : undefined);
    const error = (await channel
      .send({ kind: 'webhook', url: receiver.url }, [noticeAlert()], ctx())
      .catch((e: unknown) => e)) as DeliveryError;
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error.permanent).toBe(permanent);
    expect(error.retryAfterMs).toBe(retryAfterMs);
    expect(error.reason).toBe(`webhook: HTTP ${status} (${receiver.url})`);
    await channel.close?.();
  });

  it('treats a receiver that is down as temporary, without the URL path or credentials', async () => {
    const channel = createWebhookChannel({}, deps);
    const url = receiver.url.replace('http://', 'http://user:pa55word@');
    await receiver.close();
    const error = (await channel
      .send({ kind: 'webhook', url: `${url}/secret-path?token=abc` }, [noticeAlert()], ctx())
      .catch((e: unknown) => e)) as DeliveryError;
    expect(error.permanent).toBe(false);
    expect(error.reason).toMatch(/^webhook: ECONNREFUSED \(http:\/\/127\.0\.0\.1:\d+\)$/);
    expect(error.reason).not.toMatch(/pa55word|secret-path|token/);
    await channel.close?.();
  });
});
