/**
 * A silence's summary by email, through a real SMTP server on loopback and parsed by
 * mailparser: its subject, what was muted and when, the held alerts listed with their
 * links or ids in both parts, `…and N more`, its own section in a digest; and, with
 * hostile held alerts, no markup, handler or javascript: link, and a one-line subject.
 */
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailChannel } from '../../../src/channels/email/index.js';
import type { Alert, Channel } from '../../../src/channels/types.js';
import { systemClock } from '../../../src/lib/clock.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { capacityAlert, hostileAlerts, memoryThreads, noticeAlert } from '../../fakes/alerts.js';
import { heldAlert, hostileSilence, manyHeld, silenceAlert } from '../../fakes/silence.js';
import { type SmtpFake, startSmtpFake } from '../../fakes/smtp.js';

const NOW = '2026-11-20T15:00:00Z';
const to = { kind: 'email' as const, to: ['ops@example.com'] };
let fake: SmtpFake;
let channel: Channel<'email'>;

beforeAll(async () => {
  fake = await startSmtpFake();
  channel = createEmailChannel(
    { smtpUrl: fake.url, from: 'pipewatch <alerts@example.com>', ratePerSecond: 1000, ca: fake.ca },
    { clock: systemClock, logger: silentLogger },
  );
});
afterAll(async () => {
  await channel.close?.();
  await fake.close();
});

/** Sends and returns the message as the server received it. */
async function deliver(alerts: Alert[]): Promise<ParsedMail> {
  await channel.send(to, alerts, { now: NOW, threads: memoryThreads() });
  return fake.messages.at(-1)!.parsed!;
}

describe('a silence’s summary by email', () => {
  it('says which silence ended, what it muted and when, and lists what it held', async () => {
    const reminder = heldAlert({
      kind: 'deadline',
      state: 'reminder',
      title: 'Response due in 2 h: OFO',
      notice_id: 7,
      url: null,
    });
    const mail = await deliver([silenceAlert({ alerts: [heldAlert(), reminder] })]);
    expect(mail.subject).toBe('[Transco] Silence #12 ended — while muted: 2 alerts');
    expect(mail.headers.get('x-pipewatch-kind')).toBe('silence/ended');
    const text = mail.text!.split('\n');
    expect(text).toContain('Muted:        pipeline=transco target=slack:C0GAS');
    expect(text).toContain('Until:        Fri, Nov 20, 2026, 3:00 PM UTC (expired)');
    expect(text).toContain('While muted: 2 alerts, newest first:');
    expect(text).toContain(
      '  new notice · Fri, Nov 20, 2026, 3:00 PM UTC · https://www.1line.williams.com/xhtml/notice.jsf?id=101',
    );
    expect(text).toContain('  reminder · notice #7 · Fri, Nov 20, 2026, 3:00 PM UTC');
    const html = mail.html as string;
    expect(html).toContain(
      '<a href="https://www.1line.williams.com/xhtml/notice.jsf?id=101" rel="noopener noreferrer" target="_blank" style="color:#0b5cad">Notice 26-0412: Capacity Constraint - Station 165</a>',
    );
    expect(html).toContain('reminder · notice #7 · ');
  });

  it('lists what the summary carries and counts the rest, in both parts', async () => {
    const mail = await deliver([silenceAlert({ held: 25, alerts: manyHeld(20) })]);
    expect(mail.text!.split('\n').filter((l) => l.startsWith('- Notice'))).toHaveLength(20);
    expect(mail.text).toContain('\n…and 5 more\n');
    expect((mail.html as string).match(/<li /g)).toHaveLength(20);
    expect(mail.html).toContain('…and 5 more</p>');
  });

  it('is a whole section of its own in a digest', async () => {
    const summary = silenceAlert({ held: 25, alerts: manyHeld(20) });
    const mail = await deliver([noticeAlert(), summary, capacityAlert()]);
    expect(mail.subject).toBe('[pipewatch] 3 alerts: Transco');
    expect(mail.text).toContain('[Transco] Silence #12 ended — while muted: 25 alerts');
    expect(mail.text!.split('\n').filter((l) => l.startsWith('- Notice'))).toHaveLength(20);
    expect(mail.text).toContain('…and 5 more');
    expect(mail.headers.get('x-pipewatch-kind')).toBe('notice/new, silence/ended, capacity/firing');
  });
});

describe('a silence’s summary of hostile held alerts by email', () => {
  it('arrives with no markup, handler or javascript: link, alone and in a digest', async () => {
    for (const alerts of [[hostileSilence()], [hostileSilence(), ...hostileAlerts()]]) {
      const mail = await deliver(alerts);
      const html = mail.html as string;
      expect(html).not.toMatch(/<script|<iframe|<object|<img/i);
      // The one stylesheet is pipewatch's own, in the head: none comes from upstream.
      expect(html.match(/<style/gi)).toHaveLength(1);
      expect(html.slice(html.indexOf('<body'))).not.toMatch(/<style/i);
      expect(html).not.toMatch(/\son\w+\s*=/i);
      expect(html).not.toMatch(/javascript:/i);
      expect(html).not.toContain('secret');
      for (const [, href] of html.matchAll(/href="([^"]*)"/g)) expect(href).toMatch(/^https?:\/\//);
      for (const [tag] of html.matchAll(/<a\s[^>]*>/g))
        expect(tag).toContain('rel="noopener noreferrer"');
      expect(mail.subject).not.toMatch(/[\r\n]/);
      expect(mail.subject!.length).toBeLessThanOrEqual(200);
    }
  });

  it('shows hostile titles as text, on one line and clipped, with every link made safe', async () => {
    const mail = await deliver([hostileSilence()]);
    const html = mail.html as string;
    expect(html).toContain(
      '&lt;script&gt;alert(1)&lt;/script&gt; @everyone @here &lt;!channel&gt;',
    );
    expect(html).toContain('href="https://evil.example/x?a=1&amp;b=%3C2%3E|y)(z%20*b*%20_i_"');
    expect(html).not.toContain('x'.repeat(400));
    expect(mail.text).not.toContain('x'.repeat(400));
    expect(mail.text).toContain(
      'pipeline=<!channel> target=@everyone *x* <script>alert(1)</script>',
    );
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
    expect(mail.text).not.toMatch(/\r|\u001b/);
    expect(mail.text!.split('\n').filter((l) => l.startsWith('ALERT'))).toEqual([]);
    expect(mail.text).toContain('…and 5 more');
  });
});
