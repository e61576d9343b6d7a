/**
 * Unsubscribe links in the email that arrives, through a real SMTP server on loopback:
 * with a public URL the list headers and a footer link in both parts, naming the
 * recipients and the rules; without it none; none for what no silence could stop; and a
 * send that waits while the key is not known yet.
 */
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailChannel } from '../../../src/channels/email/index.js';
import { type Alert, type Channel, DeliveryError } from '../../../src/channels/types.js';
import { systemClock } from '../../../src/lib/clock.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { UNSUBSCRIBE_PATH, verifyToken } from '../../../src/unsubscribe/links.js';
import { capacityAlert, memoryThreads, noticeAlert } from '../../fakes/alerts.js';
import { silenceAlert } from '../../fakes/silence.js';
import { type SmtpFake, startSmtpFake } from '../../fakes/smtp.js';
import { sampleAlerts } from '../payload-samples.js';

const NOW = '2026-11-20T14:05:00Z';
const PUBLIC = 'https://pipewatch.example.com';
const KEY = 'a-test-key-of-at-least-thirty-two-characters';
const to = { kind: 'email' as const, to: ['ops@example.com', 'gas@example.com'] };
let fake: SmtpFake;
let key: string | undefined = KEY;
let linked: Channel<'email'>;
let plain: Channel<'email'>;

beforeAll(async () => {
  fake = await startSmtpFake();
  const base = { smtpUrl: fake.url, from: 'pipewatch <alerts@example.com>', ratePerSecond: 1000 };
  const deps = { clock: systemClock, logger: silentLogger };
  linked = createEmailChannel(
    { ...base, ca: fake.ca, unsubscribe: { publicUrl: PUBLIC, key: () => key } },
    deps,
  );
  plain = createEmailChannel({ ...base, ca: fake.ca }, deps);
});
afterAll(async () => {
  await linked.close?.();
  await plain.close?.();
  await fake.close();
});

async function deliver(channel: Channel<'email'>, alerts: Alert[]): Promise<ParsedMail> {
  await channel.send(to, alerts, { now: NOW, threads: memoryThreads() });
  return fake.messages.at(-1)!.parsed!;
}

/** The raw value of a header as it arrived, unfolded. */
function header(mail: ParsedMail, name: string): string | undefined {
  const line = mail.headerLines.find((h) => h.key === name.toLowerCase())?.line;
  return line?.replace(/\r?\n[ \t]+/g, ' ').replace(/^[^:]+:\s*/, '');
}

describe('email with a public URL', () => {
  it('carries the one-click headers, the list id, and the link in both parts', async () => {
    const mail = await deliver(linked, [noticeAlert()]);
    const unsubscribe = header(mail, 'List-Unsubscribe')!;
    const link = /^<(https:\/\/pipewatch\.example\.com\/unsubscribe\/[^>]+)>$/.exec(
      unsubscribe,
    )?.[1];
    expect(link).toBeDefined();
    expect(header(mail, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    expect(header(mail, 'List-Id')).toBe('pipewatch alerts <alerts.pipewatch.example.com>');
    expect(verifyToken(link!.slice(`${PUBLIC}${UNSUBSCRIBE_PATH}`.length), KEY)).toEqual({
      addresses: ['ops@example.com', 'gas@example.com'],
      rules: ['transco-constraints'],
    });
    expect(mail.text).toContain(`\nUnsubscribe: ${link}`);
    expect(mail.html).toContain(`<a href="${link}" rel="noopener noreferrer"`);
    expect(mail.html).toMatch(/>Unsubscribe<\/a><\/td><\/tr>/);
  });

  it('names every rule of a digest in its link', async () => {
    const capacity = capacityAlert();
    const mail = await deliver(linked, [noticeAlert(), capacity]);
    const link = /<([^>]+)>/.exec(header(mail, 'List-Unsubscribe')!)![1]!;
    expect(verifyToken(link.split('/').at(-1)!, KEY)?.rules).toEqual(
      [capacity.payload.rule, 'transco-constraints'].sort(),
    );
  });

  it('carries no link when nothing in it could be stopped: operations alerts, summaries', async () => {
    const ops = sampleAlerts('operations-schema-drift', 'email:ops@example.com');
    for (const alerts of [ops, [silenceAlert()]]) {
      const mail = await deliver(linked, alerts);
      expect(header(mail, 'List-Unsubscribe')).toBeUndefined();
      expect(header(mail, 'List-Unsubscribe-Post')).toBeUndefined();
      expect(header(mail, 'List-Id')).toBe('pipewatch alerts <alerts.pipewatch.example.com>');
      expect(mail.text).not.toContain('Unsubscribe');
      expect(mail.html).not.toContain('Unsubscribe');
    }
  });

  it('waits, temporarily failed and unsent, while the key is not known yet', async () => {
    const before = fake.messages.length;
    key = undefined;
    try {
      const failure = await linked
        .send(to, [noticeAlert()], { now: NOW, threads: memoryThreads() })
        .catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(DeliveryError);
      expect(failure).toMatchObject({ permanent: false, code: 'NOT_CONFIGURED' });
    } finally {
      key = KEY;
    }
    expect(fake.messages.length).toBe(before);
  });
});

describe('email without a public URL', () => {
  it('carries no list headers and no unsubscribe link', async () => {
    const mail = await deliver(plain, [noticeAlert()]);
    for (const name of ['List-Unsubscribe', 'List-Unsubscribe-Post', 'List-Id'])
      expect(header(mail, name), name).toBeUndefined();
    expect(mail.text).not.toContain('Unsubscribe');
    expect(mail.html).not.toContain('Unsubscribe');
  });
});
