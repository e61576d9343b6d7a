/**
 * The kind of every webhook failure, against a receiver on loopback: what the outbox
 * stores and `status` groups by, beside whether the shared classifier retries it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebhookChannel } from '../../../src/channels/webhook/send.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { failure, memoryThreads, noticeAlert } from '../../fakes/alerts.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../fakes/webhook.js';
import { ManualClock } from '../../support/clock.js';

const deps = { clock: new ManualClock(), logger: silentLogger };
const ctx = () => ({ now: '2026-11-20T15:00:00Z' as const, threads: memoryThreads() });

describe('the kind of a webhook failure', () => {
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await startWebhookReceiver();
  });
  afterEach(() => receiver.close());

  it.each([
    [400, 'REJECTED', true],
    [401, 'AUTH', true],
    [403, 'FORBIDDEN', true],
    [404, 'NOT_FOUND', true],
    [410, 'NOT_FOUND', true],
    [413, 'TOO_LARGE', true],
    [422, 'REJECTED', true],
    [301, 'REJECTED', true],
    [408, 'TIMEOUT', false],
    [425, 'REJECTED', false],
    [429, 'RATE_LIMITED', false],
    [500, 'SERVER_ERROR', false],
    [501, 'SERVER_ERROR', false],
    [503, 'SERVER_ERROR', false],
  ])('HTTP %i: %s', async (status, code, permanent) => {
    const channel = createWebhookChannel({}, deps);
    receiver.fail(status);
    const error = await failure(
      channel.send({ kind: 'webhook', url: receiver.url }, [noticeAlert()], ctx()),
    );
    expect({ code: error.code, permanent: error.permanent }).toEqual({ code, permanent });
    await channel.close?.();
  });

  it('a receiver that is down: NETWORK; a stopped send: ABORTED', async () => {
    const channel = createWebhookChannel({}, deps);
    const target = { kind: 'webhook' as const, url: receiver.url };
    const signal = AbortSignal.abort();
    const stopped = await failure(channel.send(target, [noticeAlert()], { ...ctx(), signal }));
    expect(stopped.code).toBe('ABORTED');
    await receiver.close();
    const down = await failure(channel.send(target, [noticeAlert()], ctx()));
    expect({ code: down.code, permanent: down.permanent }).toEqual({
      code: 'NETWORK',
      permanent: false,
    });
    await channel.close?.();
  });
});
