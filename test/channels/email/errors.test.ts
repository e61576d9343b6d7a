/**
 * The email channel's failures and its pool, against a real SMTP server on loopback:
 * 5xx replies are permanent, 4xx and refused connections temporary, a refused login is
 * permanent and never shows the password; `verify` names the server and user; many
 * messages through the pool all arrive over at most `maxConnections` connections.
 */
import { createServer } from 'node:net';
import { PassThrough } from 'node:stream';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailChannel } from '../../../src/channels/email/index.js';
import type { Channel } from '../../../src/channels/types.js';
import { systemClock } from '../../../src/lib/clock.js';
import { createLogger, silentLogger } from '../../../src/lib/logger.js';
import { failure, memoryThreads, noticeAlert } from '../../fakes/alerts.js';
import { type SmtpFake, startSmtpFake } from '../../fakes/smtp.js';

const ctx = () => ({ now: '2026-11-20T14:05:00Z', threads: memoryThreads() });
const to = { kind: 'email' as const, to: ['ops@example.com'] };
const deps = { clock: systemClock, logger: silentLogger };
let fake: SmtpFake;
let channel: Channel<'email'>;

beforeAll(async () => {
  fake = await startSmtpFake();
  channel = createEmailChannel(
    { smtpUrl: fake.url, from: 'alerts@example.com', ratePerSecond: 1000, ca: fake.ca },
    deps,
  );
});
afterAll(async () => {
  await channel.close?.();
  await fake.close();
});

describe('email failures', () => {
  it('makes a 550 for a recipient a permanent failure naming the address', async () => {
    fake.reject({ code: 550, message: 'mailbox unavailable' });
    const err = await failure(channel.send(to, [noticeAlert()], ctx()));
    expect(err.permanent).toBe(true);
    expect(err.reason).toBe('email: 550 mailbox unavailable (ops@example.com)');
  });

  it('makes a 554 after the data a permanent failure', async () => {
    fake.reject({ code: 554, message: 'message refused as spam', stage: 'data' });
    const err = await failure(channel.send(to, [noticeAlert()], ctx()));
    expect(err.permanent).toBe(true);
    expect(err.reason).toBe('email: 554 message refused as spam');
  });

  it('makes a 451 a temporary failure, and the next try goes through', async () => {
    fake.reject({ code: 451, message: 'try again later' });
    const err = await failure(channel.send(to, [noticeAlert()], ctx()));
    expect(err.permanent).toBe(false);
    expect(err.reason).toBe('email: 451 try again later (ops@example.com)');
    await expect(channel.send(to, [noticeAlert()], ctx())).resolves.toMatchObject({
      detail: expect.stringMatching(/^ok </),
    });
  });

  it('sends to the recipients the server takes and says how many it refused', async () => {
    fake.reject({ code: 550, message: 'no such user', recipient: 'gone@example.com' });
    const both = { kind: 'email' as const, to: ['ops@example.com', 'gone@example.com'] };
    const { detail } = await channel.send(both, [noticeAlert()], ctx());
    expect(detail).toMatch(/^ok <[^>]+> accepted=1 rejected=1 250 /);
    expect(fake.messages.at(-1)!.envelope.to).toEqual(['ops@example.com']);
  });

  it('never shows the password when the server quotes it back', async () => {
    fake.reject({ code: 550, message: `relay denied for login pipewatch:${fake.pass}` });
    const err = await failure(channel.send(to, [noticeAlert()], ctx()));
    expect(err.reason).toMatch(/relay denied for login pipewatch:\[redacted\]/);
    expect(`${err.reason} ${err.message}`).not.toContain(fake.pass);
  });

  it('refuses a wrong password permanently without ever showing it', async () => {
    const wrong = 'Wr0ng-Pa55-xyzzy';
    const lines = new PassThrough();
    let logged = '';
    lines.on('data', (c: Buffer) => {
      logged += c.toString();
    });
    const logger = createLogger({ destination: lines, pretty: false, level: 'trace' });
    const bad = createEmailChannel(
      {
        smtpUrl: fake.url.replace(encodeURIComponent(fake.pass), wrong),
        from: 'alerts@example.com',
        ratePerSecond: 1000,
        ca: fake.ca,
      },
      { clock: systemClock, logger },
    );
    try {
      const err = await failure(bad.send(to, [noticeAlert()], ctx()));
      expect(err.permanent).toBe(true);
      expect(err.reason).toBe(
        'email: login as pipewatch refused: 535 Authentication credentials invalid',
      );
      const verified = await failure(bad.verify!());
      for (const e of [err, verified]) {
        const everything = [
          e.reason,
          e.message,
          e.stack,
          inspect(e, { depth: 5 }),
          JSON.stringify(e),
        ];
        for (const text of everything) expect(text).not.toContain(wrong);
      }
      expect(logged).not.toContain(wrong);
    } finally {
      await bad.close?.();
    }
  });

  it('makes a refused connection a temporary failure', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const nowhere = createEmailChannel(
      {
        smtpUrl: `smtp://u:Pa55-nowhere@127.0.0.1:${port}`,
        from: 'a@example.com',
        ratePerSecond: 5,
      },
      deps,
    );
    try {
      const err = await failure(nowhere.send(to, [noticeAlert()], ctx()));
      expect(err.permanent).toBe(false);
      expect(err.reason).toBe(`email: connection refused by 127.0.0.1:${port}`);
      expect(inspect(err, { depth: 5 })).not.toContain('Pa55-nowhere');
    } finally {
      await nowhere.close?.();
    }
  });

  it('fails permanently on nothing to send, and refuses a bad URL without repeating it', async () => {
    const err = await failure(channel.send(to, [], ctx()));
    expect(err.permanent).toBe(true);
    expect(err.reason).toMatch(/^email: cannot render: /);
    const make = () =>
      createEmailChannel({ smtpUrl: 'smtp://u:Pa55-bad@', from: 'a@b.c', ratePerSecond: 1 }, deps);
    expect(make).toThrow('email: SMTP_URL is not a valid URL');
  });

  it('makes an aborted send a temporary failure', async () => {
    const signal = AbortSignal.abort();
    const err = await failure(channel.send(to, [noticeAlert()], { ...ctx(), signal }));
    expect(err.permanent).toBe(false);
  });
});

describe('email verify and pool', () => {
  it('verifies the login and names the server and user, not the password', async () => {
    const who = await channel.verify!();
    expect(who).toBe(`email: 127.0.0.1:${fake.port} as pipewatch (STARTTLS required)`);
    expect(who).not.toContain(fake.pass);
  });

  it('delivers 50 messages through the pool over at most two connections', async () => {
    const pooled = await startSmtpFake({ parse: false });
    const pool = createEmailChannel(
      { smtpUrl: pooled.url, from: 'alerts@example.com', ratePerSecond: 10_000, ca: pooled.ca },
      deps,
    );
    try {
      const alerts = Array.from({ length: 50 }, (_, i) =>
        noticeAlert({ id: 1000 + i }, `r|notice:${1000 + i}:v1|email:ops@example.com`),
      );
      const results = await Promise.all(alerts.map((a) => pool.send(to, [a], ctx())));
      await pooled.waitFor(50);
      expect(results.every((r) => r.detail.startsWith('ok <'))).toBe(true);
      expect(pooled.messages).toHaveLength(50);
      expect(
        new Set(pooled.messages.map((m) => /^Message-ID: (.*)$/im.exec(m.raw)?.[1])).size,
      ).toBe(50);
      expect(pooled.connections.maxOpen).toBeLessThanOrEqual(2);
    } finally {
      await pool.close?.();
      await pooled.close();
    }
  });
});
