/**
 * The kind of every email failure, against a real SMTP server on loopback: what the
 * outbox stores and `status` groups by.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailChannel } from '../../../src/channels/email/index.js';
import type { Channel } from '../../../src/channels/types.js';
import { systemClock } from '../../../src/lib/clock.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { failure, memoryThreads, noticeAlert } from '../../fakes/alerts.js';
import { type SmtpFake, startSmtpFake } from '../../fakes/smtp.js';

const ctx = () => ({ now: '2026-11-20T14:05:00Z' as const, threads: memoryThreads() });
const to = { kind: 'email' as const, to: ['ops@example.com'] };
const deps = { clock: systemClock, logger: silentLogger };
const from = 'alerts@example.com';
let fake: SmtpFake;
let channel: Channel<'email'>;

beforeAll(async () => {
  fake = await startSmtpFake();
  channel = createEmailChannel({ smtpUrl: fake.url, from, ratePerSecond: 1000, ca: fake.ca }, deps);
});
afterAll(async () => {
  await channel.close?.();
  await fake.close();
});

/** The kind and permanence of what `send` failed with. */
async function kindOf(send: Promise<unknown>) {
  const error = await failure(send);
  return { code: error.code, permanent: error.permanent };
}

describe('the kind of an email failure', () => {
  it.each([
    [550, 'rcpt', 'REJECTED', true],
    [554, 'data', 'REJECTED', true],
    [451, 'rcpt', 'SERVER_ERROR', false],
    [452, 'rcpt', 'SERVER_ERROR', false],
  ] as const)('SMTP %i at %s: %s', async (reply, stage, code, permanent) => {
    fake.reject({ code: reply, message: 'refused', stage });
    expect(await kindOf(channel.send(to, [noticeAlert()], ctx()))).toEqual({ code, permanent });
  });

  it('a refused login: AUTH, for good', async () => {
    const smtpUrl = fake.url.replace(encodeURIComponent(fake.pass), 'Wr0ng-Pa55-xyzzy');
    const bad = createEmailChannel({ smtpUrl, from, ratePerSecond: 1000, ca: fake.ca }, deps);
    try {
      expect(await kindOf(bad.send(to, [noticeAlert()], ctx()))).toEqual({
        code: 'AUTH',
        permanent: true,
      });
    } finally {
      await bad.close?.();
    }
  });

  it('a refused connection: NETWORK', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const smtpUrl = `smtp://u:Pa55-nowhere@127.0.0.1:${port}`;
    const nowhere = createEmailChannel({ smtpUrl, from, ratePerSecond: 5 }, deps);
    try {
      expect(await kindOf(nowhere.send(to, [noticeAlert()], ctx()))).toEqual({
        code: 'NETWORK',
        permanent: false,
      });
    } finally {
      await nowhere.close?.();
    }
  });

  it('nothing to send: REJECTED; an aborted send: ABORTED', async () => {
    expect((await kindOf(channel.send(to, [], ctx()))).code).toBe('REJECTED');
    const signal = AbortSignal.abort();
    const aborted = channel.send(to, [noticeAlert()], { ...ctx(), signal });
    expect(await kindOf(aborted)).toEqual({ code: 'ABORTED', permanent: false });
  });

  it('a server without STARTTLS where a login needs it: NOT_CONFIGURED, for good', async () => {
    const plain = await startSmtpFake({ starttls: false });
    const email = createEmailChannel({ smtpUrl: plain.url, from, ratePerSecond: 1000 }, deps);
    try {
      expect(await kindOf(email.send(to, [noticeAlert()], ctx()))).toEqual({
        code: 'NOT_CONFIGURED',
        permanent: true,
      });
    } finally {
      await email.close?.();
      await plain.close();
    }
  });
});
