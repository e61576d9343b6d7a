/**
 * The SMTP password never crosses the network in clear text: an `smtp://` login goes
 * over STARTTLS with the server's certificate checked; a server offering no STARTTLS
 * gets no login and the delivery fails for good, saying why; only SMTP_ALLOW_PLAINTEXT
 * (a local relay) lets the login go in plain text. The fake SMTP server takes a login in
 * clear text and records how each one came.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  createEmailChannel,
  type EmailChannelOptions,
  NO_STARTTLS_REASON,
} from '../../../src/channels/email/index.js';
import { type Channel, DeliveryError } from '../../../src/channels/types.js';
import { systemClock } from '../../../src/lib/clock.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { memoryThreads, noticeAlert } from '../../fakes/alerts.js';
import { type SmtpFake, startSmtpFake } from '../../fakes/smtp.js';

const to = { kind: 'email' as const, to: ['ops@example.com'] };
const ctx = () => ({ now: '2026-11-20T14:05:00Z' as const, threads: memoryThreads() });
let fake: SmtpFake | undefined;
let channel: Channel<'email'> | undefined;

afterEach(async () => {
  await channel?.close?.();
  await fake?.close();
  channel = undefined;
  fake = undefined;
});

function open(server: SmtpFake, options: Partial<EmailChannelOptions> = {}): Channel<'email'> {
  channel = createEmailChannel(
    { smtpUrl: server.url, from: 'alerts@example.com', ratePerSecond: 1000, ...options },
    { clock: systemClock, logger: silentLogger },
  );
  return channel;
}

async function failure(promise: Promise<unknown>): Promise<DeliveryError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DeliveryError);
  return error as DeliveryError;
}

describe('SMTP over TLS', () => {
  it('logs in over STARTTLS, checking the certificate', async () => {
    fake = await startSmtpFake();
    const email = open(fake, { ca: fake.ca });
    await email.send(to, [noticeAlert()], ctx());
    expect(fake.messages).toHaveLength(1);
    expect(fake.logins).toEqual([{ user: fake.user, secure: true }]);
    expect(await email.verify!()).toMatch(/ as pipewatch \(STARTTLS required\)$/);
  });

  it('sends no login to a server whose certificate it cannot trust', async () => {
    fake = await startSmtpFake();
    const error = await failure(open(fake).send(to, [noticeAlert()], ctx()));
    // Node.js 24 adds a hint after the reason (`; if the root CA is installed locally, …`).
    expect(error.reason).toMatch(/^email: ESOCKET self-signed certificate(;|$)/);
    expect(fake.logins).toEqual([]);
  });

  it('refuses for good to log in to a server that offers no STARTTLS, saying why', async () => {
    fake = await startSmtpFake({ starttls: false });
    const email = open(fake);
    const error = await failure(email.send(to, [noticeAlert()], ctx()));
    expect(error.reason).toBe(
      'email: the server offers no STARTTLS; the password is not sent in clear text (set SMTP_ALLOW_PLAINTEXT=true for a local relay)',
    );
    expect(error.reason).toBe(NO_STARTTLS_REASON);
    expect(error.permanent).toBe(true);
    expect((await failure(email.verify!())).reason).toBe(NO_STARTTLS_REASON);
    expect(fake.logins).toEqual([]);
    expect(fake.messages).toEqual([]);
  });

  it('logs in to a local relay in plain text only with SMTP_ALLOW_PLAINTEXT', async () => {
    fake = await startSmtpFake({ starttls: false });
    const email = open(fake, { allowPlaintext: true });
    await email.send(to, [noticeAlert()], ctx());
    expect(fake.logins).toEqual([{ user: fake.user, secure: false }]);
    expect(fake.messages).toHaveLength(1);
    expect(await email.verify!()).toMatch(/ as pipewatch \(STARTTLS when offered\)$/);
  });

  it('still uses STARTTLS with SMTP_ALLOW_PLAINTEXT when the server offers it', async () => {
    fake = await startSmtpFake();
    await open(fake, { allowPlaintext: true, ca: fake.ca }).send(to, [noticeAlert()], ctx());
    expect(fake.logins).toEqual([{ user: fake.user, secure: true }]);
  });
});
