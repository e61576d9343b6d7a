/**
 * The email channel against a real SMTP server on loopback: what arrives (parts, headers,
 * ids, threading, sanitised HTML, tables, reminders, digests), parsed by mailparser.
 */
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailChannel } from '../../../src/channels/email/index.js';
import type { Alert, Channel } from '../../../src/channels/types.js';
import { systemClock } from '../../../src/lib/clock.js';
import { silentLogger } from '../../../src/lib/logger.js';
import {
  capacityAlert,
  deadlineAlert,
  hostileAlerts,
  location,
  memoryThreads,
  noticeAlert,
  updatedAlert,
} from '../../fakes/alerts.js';
import { type SmtpFake, startSmtpFake } from '../../fakes/smtp.js';

const NOW = '2026-11-20T14:05:00Z';
const ROOT = '<notice-transco-101@pipewatch.example.com>';
const to = { kind: 'email' as const, to: ['ops@example.com'] };
let fake: SmtpFake;
let channel: Channel<'email'>;

beforeAll(async () => {
  fake = await startSmtpFake();
  channel = createEmailChannel(
    {
      smtpUrl: fake.url,
      from: 'pipewatch <alerts@example.com>',
      ratePerSecond: 1000,
      ca: fake.ca,
    },
    { clock: systemClock, logger: silentLogger },
  );
});
afterAll(async () => {
  await channel.close?.();
  await fake.close();
});

/** Sends and returns the parsed message as the server received it. */
async function deliver(
  alerts: Alert[],
  target = to,
): Promise<{ mail: ParsedMail; detail: string }> {
  const { detail } = await channel.send(target, alerts, { now: NOW, threads: memoryThreads() });
  const received = fake.messages.at(-1)!;
  expect(detail).toContain(received.parsed!.messageId!);
  return { mail: received.parsed!, detail };
}

function address(field: ParsedMail['from'] | ParsedMail['to']): string[] {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  return list.flatMap((a) => a.value.map((v) => v.address ?? ''));
}

describe('email delivery', () => {
  it('sends a notice with both parts, the subject, the addresses and the local times', async () => {
    const { mail, detail } = await deliver([noticeAlert()]);
    expect(mail.subject).toBe('[Transco] Capacity Constraint: Station 165');
    expect(address(mail.from)).toEqual(['alerts@example.com']);
    expect(address(mail.to)).toEqual(['ops@example.com']);
    expect(fake.messages.at(-1)!.envelope).toEqual({
      from: 'alerts@example.com',
      to: ['ops@example.com'],
    });
    expect(mail.date?.toISOString()).toBe('2026-11-20T14:05:00.000Z');
    expect(mail.headers.get('auto-submitted')).toBe('auto-generated');
    for (const part of [mail.text!, mail.html as string]) {
      expect(part).toContain('Capacity Constraint: Station 165');
      expect(part).toContain('Critical');
      expect(part).toContain('Initiate');
      expect(part).toContain('Sat, Nov 21, 2026, 9:00 AM EST (2026-11-21 14:00 UTC)');
      expect(part).toContain('https://www.1line.williams.com/xhtml/notice.jsf?id=101');
      expect(part).toContain('Limited.');
    }
    expect(detail).toMatch(
      /^ok <[0-9a-f]{32}@pipewatch\.example\.com> accepted=1 250 OK: message queued$/,
    );
  });

  it('gives the same alert the same Message-ID on every send, another alert another', async () => {
    const first = (await deliver([noticeAlert()])).mail.messageId;
    const again = (await deliver([noticeAlert()])).mail.messageId;
    const other = (await deliver([noticeAlert({ id: 102 }, 'r|notice:102:v1|x')])).mail.messageId;
    expect(first).toMatch(/^<[0-9a-f]{32}@pipewatch\.example\.com>$/);
    expect(again).toBe(first);
    expect(other).not.toBe(first);
  });

  it('threads the notice, its updates and its reminders under one root', async () => {
    const created = (await deliver([noticeAlert()])).mail;
    const updated = (await deliver([updatedAlert()])).mail;
    const reminder = (await deliver([deadlineAlert({ id: 101 })])).mail;
    for (const mail of [created, updated, reminder]) {
      expect(mail.inReplyTo).toBe(ROOT);
      expect([mail.references].flat()).toEqual([ROOT]);
    }
    expect(updated.messageId).not.toBe(created.messageId);
    expect(updated.subject).toBe('[Transco] Updated Capacity Constraint: Station 165');
    expect(updated.text).toContain('Changed:      status, subject');
    const other = (await deliver([noticeAlert({ id: 7 }, 'r|notice:7:v1|x')])).mail;
    expect(other.inReplyTo).toBe('<notice-transco-7@pipewatch.example.com>');
  });

  it('delivers hostile notices neutralised: no scripts, handlers or javascript: links', async () => {
    for (const alert of hostileAlerts()) {
      const { mail } = await deliver([alert]);
      const html = mail.html as string;
      expect(html).not.toMatch(/<script|<iframe|<object|<img/i);
      // The one stylesheet is pipewatch's own, in the head: none comes from upstream.
      expect(html.match(/<style/gi)).toHaveLength(1);
      expect(html.slice(html.indexOf('<body'))).not.toMatch(/<style/i);
      expect(html).not.toMatch(/\son\w+\s*=/i);
      expect(html).not.toMatch(/javascript:/i);
      for (const [, href] of html.matchAll(/href="([^"]*)"/g)) expect(href).toMatch(/^https?:\/\//);
      for (const [tag] of html.matchAll(/<a\s[^>]*>/g))
        expect(tag).toContain('rel="noopener noreferrer"');
      expect(mail.subject).not.toMatch(/[\r\n]/);
      expect(mail.subject!.length).toBeLessThanOrEqual(200);
    }
  });

  it('keeps CR/LF in a subject from making headers', async () => {
    const subject = 'Outage\r\nBcc: evil@example.com\r\nX-Injected: yes\n\nbody';
    const { mail } = await deliver([noticeAlert({ id: 55, subject }, 'r|notice:55:v1|x')]);
    expect(mail.subject).toBe(
      '[Transco] Capacity Constraint: Outage Bcc: evil@example.com X-Injected: yes body',
    );
    expect(mail.headers.has('x-injected')).toBe(false);
    expect(mail.headers.has('bcc')).toBe(false);
    expect(mail.headerLines.filter((h) => h.key === 'subject')).toHaveLength(1);
    expect(fake.messages.at(-1)!.envelope.to).toEqual(['ops@example.com']);
  });

  it('keeps emoji and right-to-left text intact and delivers very long notices whole', async () => {
    const [, , , unicode, long] = hostileAlerts();
    const u = (await deliver([unicode!])).mail;
    // A bidirectional override would show the rest of the subject reversed: it goes.
    expect(u.subject).toContain('\u2705 \ud83d\udd25 evil second line');
    expect(u.subject).not.toMatch(/[\u202a-\u202e]/);
    expect(u.html).toContain(
      'RTL \u202egnp.exe\u202c, emoji \ud83d\udc4d\ud83c\udffd \ud83d\udd25 \u2603',
    );
    expect(u.text).toContain('Ca\u00f1on \u00d1and\u00fa');
    const l = (await deliver([long!])).mail;
    const source = long!.payload.notice!.html;
    const lastCell = [...source.matchAll(/<td>([^<]*)<\/td>/g)].at(-1)![1]!;
    expect(l.text!.length).toBeGreaterThan(10_000);
    expect(l.text).toContain(lastCell);
    expect(l.html).toContain(lastCell.replace(/&/g, '&amp;'));
  });

  it('sends a capacity alert as a table of every location with its numbers', async () => {
    const locations = [
      location(),
      location({
        id: 2,
        location: 'STATION 165',
        identifier: '1006543',
        oac: 12_345,
        opc: 500_000,
      }),
      location({ id: 3, location: 'ZONE 6 DELIVERY', identifier: '77', flow: 'R', oac: 0 }),
    ];
    const { mail } = await deliver([capacityAlert(locations)]);
    expect(mail.subject).toBe(
      '[Transco] Low OAC at 3 locations — timely cycle, gas day 2026-11-21',
    );
    const html = mail.html as string;
    for (const part of [mail.text!, html]) {
      expect(part).toContain('below the threshold');
      expect(part).toContain('timely');
      expect(part).toContain('2026-11-21');
      for (const v of [
        'STATION 85',
        '1001234',
        'STATION 165',
        '1006543',
        'ZONE 6 DELIVERY',
        '77',
      ]) {
        expect(part).toContain(v);
      }
      for (const v of [
        '1,000,000',
        '800,000',
        '770,000',
        '30,000',
        '12,345',
        '500,000',
        '50,000 Dth',
      ]) {
        expect(part).toContain(v);
      }
    }
    expect(
      html.match(/<tr style="background:#f4f5f7"><th align="left">Location<\/th>/g),
    ).toHaveLength(1);
    expect(html.match(/<tr><td>/g)).toHaveLength(3);
    const rows = mail.text!.split('\n').filter((l) => /^(Location|STATION|ZONE)/.test(l));
    expect(new Set(rows.map((r) => r.length)).size).toBe(1);
  });

  it('words a resolved capacity alert as a recovery, with the clear level', async () => {
    const alert = capacityAlert([location({ oac: 90_000 })], 'resolved');
    const { mail } = await deliver([alert]);
    expect(mail.subject).toBe(
      '[Transco] OAC recovered at STATION 85 — timely cycle, gas day 2026-11-21',
    );
    expect(mail.text).toContain('recovered above the clear level');
    expect(mail.text).toContain('60,000 Dth');
    expect(mail.text).not.toContain('below the threshold');
  });

  it('sends a deadline reminder with the time left and the deadline in local time and UTC', async () => {
    const { mail } = await deliver([deadlineAlert()]);
    // Sent at 14:05 for a deadline at 20:00.
    expect(mail.subject).toBe(
      '[Transco] Response due in 5 h 55 min: Capacity Constraint - Station 165',
    );
    for (const part of [mail.text!, mail.html as string]) {
      expect(part).toContain('Response due in 5 h 55 min: Fri, Nov 20, 2026, 3:00 PM EST');
      expect(part).toContain('reminder 2h before the deadline');
      expect(part).toContain('Fri, Nov 20, 2026, 3:00 PM EST (2026-11-20 20:00 UTC)');
      expect(part).toContain('Operational Flow Order');
    }
  });

  it('sends several alerts as one digest message with a section each', async () => {
    const tetco = noticeAlert({ id: 300, subject: 'OFO lifted' }, 'r|notice:300:v1|x');
    tetco.payload = {
      ...tetco.payload,
      pipeline: { slug: 'texas-eastern', name: 'Texas Eastern' },
    };
    const alerts = [noticeAlert(), updatedAlert(), tetco, deadlineAlert(), capacityAlert()];
    const before = fake.messages.length;
    const { mail } = await deliver(alerts, {
      kind: 'email',
      to: ['a@example.com', 'b@example.com'],
    });
    expect(fake.messages.length).toBe(before + 1);
    expect(mail.subject).toBe('[pipewatch] 5 alerts: Transco, Texas Eastern');
    expect(fake.messages.at(-1)!.envelope.to).toEqual(['a@example.com', 'b@example.com']);
    for (const part of [mail.text!, mail.html as string]) {
      expect(part).toContain('5 alerts');
      expect(part).toContain('[Texas Eastern] Capacity Constraint: OFO lifted');
      expect(part).toContain('[Transco] Response due in 5 h 55 min');
      expect(part).toContain('[Transco] Low OAC at STATION 85');
      expect(part).toContain('[Transco] Updated Capacity Constraint');
    }
    expect(channel.maxDigest).toBe(20);
  });

  it('threads a digest under the root of every alert it carries', async () => {
    const tetco = noticeAlert({ id: 300, subject: 'OFO lifted' }, 'r|notice:300:v1|x');
    tetco.payload = {
      ...tetco.payload,
      pipeline: { slug: 'texas-eastern', name: 'Texas Eastern' },
    };
    const digest = (await deliver([updatedAlert(), tetco, deadlineAlert({ id: 101 })])).mail;
    const single = (await deliver([noticeAlert()])).mail;
    const tetcoRoot = '<notice-texas-eastern-300@pipewatch.example.com>';
    expect(digest.inReplyTo).toBe(ROOT);
    expect([digest.references].flat()).toEqual([ROOT, tetcoRoot]);
    expect(digest.messageId).not.toBe(single.messageId);
    expect(single.inReplyTo).toBe(ROOT);

    const firing = (await deliver([capacityAlert()])).mail;
    const recovered = (
      await deliver([capacityAlert([location({ identifier: '42', oac: 90_000 })], 'resolved')])
    ).mail;
    const both = (await deliver([noticeAlert(), capacityAlert()])).mail;
    expect(firing.inReplyTo).toMatch(/^<capacity-transco-[0-9a-f]{16}@pipewatch\.example\.com>$/);
    expect(recovered.inReplyTo).toBe(firing.inReplyTo);
    expect(both.inReplyTo).toBe(ROOT);
    expect([both.references].flat()).toEqual([ROOT, firing.inReplyTo]);
  });

  it('sends 17 locations breaching in one cycle as one message with one table', async () => {
    const seventeen = Array.from({ length: 17 }, (_, i) =>
      location({ id: i, location: `STATION ${80 + i}`, identifier: String(1_001_200 + i) }),
    );
    const { mail } = await deliver([capacityAlert(seventeen)]);
    expect(mail.subject).toBe(
      '[Transco] Low OAC at 17 locations — timely cycle, gas day 2026-11-21',
    );
    expect((mail.html as string).match(/<table border="1"/g)).toHaveLength(1);
    expect((mail.html as string).match(/<tr><td>STATION \d+<\/td>/g)).toHaveLength(17);
    expect(mail.text!.split('\n').filter((l) => l.startsWith('STATION'))).toHaveLength(17);
  });
});
