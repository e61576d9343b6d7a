/**
 * A user name and password full of reserved characters, percent-encoded in SMTP_URL as
 * the configuration asks, log in to a real SMTP server on loopback as themselves: the
 * URL goes from the configuration to the channel, and the server sees them decoded.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailChannel } from '../../../src/channels/email/index.js';
import type { Channel } from '../../../src/channels/types.js';
import { loadConfig } from '../../../src/config/index.js';
import { systemClock } from '../../../src/lib/clock.js';
import { createLogger } from '../../../src/lib/logger.js';
import { memoryThreads, noticeAlert } from '../../fakes/alerts.js';
import { type SmtpFake, startSmtpFake } from '../../fakes/smtp.js';

const USER = 'alerts@example.com';
const PASS = 'se/cr#et@1:50%?';
let fake: SmtpFake;
let channel: Channel<'email'>;
let logged = '';

beforeAll(async () => {
  fake = await startSmtpFake({ user: USER, pass: PASS });
  const config = loadConfig({ SMTP_URL: fake.url, EMAIL_FROM: 'alerts@example.com' }, '/srv');
  const destination = new Writable({
    write(chunk, _enc, done) {
      logged += String(chunk);
      done();
    },
  });
  const logger = createLogger({ destination, pretty: false, level: 'trace' });
  channel = createEmailChannel(
    { smtpUrl: config.email.smtpUrl!, from: config.email.from!, ratePerSecond: 1000, ca: fake.ca },
    { clock: systemClock, logger },
  );
});
afterAll(async () => {
  await channel.close?.();
  await fake.close();
});

describe('a percent-encoded SMTP login', () => {
  it('is what SMTP_URL holds: every reserved character encoded', () => {
    expect(fake.url).toBe(
      `smtp://alerts%40example.com:se%2Fcr%23et%401%3A50%25%3F@127.0.0.1:${fake.port}`,
    );
  });

  it('logs in as the decoded user with the decoded password, and delivers', async () => {
    expect(await channel.verify!()).toBe(
      `email: 127.0.0.1:${fake.port} as ${USER} (STARTTLS required)`,
    );
    const { detail } = await channel.send(
      { kind: 'email', to: ['ops@example.com'] },
      [noticeAlert()],
      {
        now: '2026-11-20T14:05:00Z',
        threads: memoryThreads(),
      },
    );
    expect(detail).toMatch(/^ok <[^>]+> accepted=1 /);
    expect(fake.messages).toHaveLength(1);
    expect(fake.logins.length).toBeGreaterThanOrEqual(1);
    expect(fake.logins.every((l) => l.user === USER && l.secure)).toBe(true);
    expect(logged).not.toContain(PASS);
    expect(logged).not.toContain(encodeURIComponent(PASS));
  });
});
