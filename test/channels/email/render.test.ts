/**
 * Email rendering without a server: subjects, ids, thread roots, the sanitiser's
 * allow-list, links, capacity levels and pacing of the pool.
 */
import { describe, expect, it } from 'vitest';
import { breakable } from '../../../src/channels/email/html.js';
import {
  pacing,
  renderEmail,
  safeUrl,
  sanitizeNoticeHtml,
  senderDomain,
} from '../../../src/channels/email/index.js';
import { capacityAlert, deadlineAlert, location, noticeAlert } from '../../fakes/alerts.js';

const options = { from: 'pipewatch <alerts@Example.COM>', now: '2026-11-20T14:05:00Z' };

describe('renderEmail', () => {
  it('clips a long subject to 200 characters on one line', () => {
    const m = renderEmail([noticeAlert({ subject: `${'x'.repeat(300)}\r\nBcc: a@b.c` })], options);
    expect(m.subject).toHaveLength(200);
    expect(m.subject.endsWith('…')).toBe(true);
    expect(m.subject).not.toMatch(/[\r\n]/);
  });

  it('derives the Message-ID from the alert keys, whatever their order', () => {
    const a = noticeAlert();
    const b = deadlineAlert();
    const one = renderEmail([a, b], options).messageId;
    expect(renderEmail([b, a], { ...options, now: '2027-01-01T00:00:00Z' }).messageId).toBe(one);
    expect(one).toMatch(/^<[0-9a-f]{32}@pipewatch\.example\.com>$/);
    expect(renderEmail([a], options).messageId).not.toBe(one);
  });

  it('threads capacity alerts per rule and pipeline, whatever their locations', () => {
    const firing = renderEmail([capacityAlert()], options);
    const resolved = renderEmail(
      [capacityAlert([location({ identifier: '42' }), location()], 'resolved')],
      options,
    );
    const other = capacityAlert();
    other.payload = { ...other.payload, rule: 'another-rule' };
    const tetco = capacityAlert();
    tetco.payload = { ...tetco.payload, pipeline: { slug: 'texas-eastern', name: 'TETCO' } };
    expect(firing.inReplyTo).toMatch(/^<capacity-transco-[0-9a-f]{16}@pipewatch\.example\.com>$/);
    expect(firing.references).toEqual([firing.inReplyTo]);
    expect(resolved.inReplyTo).toBe(firing.inReplyTo);
    expect(renderEmail([other], options).inReplyTo).not.toBe(firing.inReplyTo);
    expect(renderEmail([tetco], options).inReplyTo).toMatch(/^<capacity-texas-eastern-/);
  });

  it('threads a digest under every root it carries, the first as its parent', () => {
    const one = renderEmail([noticeAlert(), deadlineAlert({ id: 101 })], options);
    expect(one.inReplyTo).toBe('<notice-transco-101@pipewatch.example.com>');
    expect(one.references).toEqual(['<notice-transco-101@pipewatch.example.com>']);
    const mixed = renderEmail([noticeAlert(), capacityAlert()], options);
    expect(mixed.inReplyTo).toBe('<notice-transco-101@pipewatch.example.com>');
    expect(mixed.references).toEqual([
      '<notice-transco-101@pipewatch.example.com>',
      renderEmail([capacityAlert()], options).inReplyTo,
    ]);
    const many = Array.from({ length: 30 }, (_, i) => noticeAlert({ id: i }, `r|notice:${i}|x`));
    expect(renderEmail(many, options).references).toHaveLength(20);
  });

  it('merges capacity alerts of two rules for one cycle into one table and subject', () => {
    const other = capacityAlert([location({ location: 'STATION 86', identifier: '1001235' })]);
    other.payload = { ...other.payload, rule: 'station-86-watch' };
    const m = renderEmail([capacityAlert(), other], options);
    expect(m.subject).toBe('[Transco] Low OAC at 2 locations — timely cycle, gas day 2026-11-21');
    expect(m.text).toContain(
      'OAC is below the threshold of rules transco-low-oac, station-86-watch at 2 locations.',
    );
    expect(m.html.match(/<table border="1"/g)).toHaveLength(1);
    expect(m.references).toHaveLength(2);
    const resolved = renderEmail(
      [
        capacityAlert(
          [location(), location({ identifier: '9' }), location({ identifier: '8' })],
          'resolved',
        ),
      ],
      options,
    );
    expect(resolved.subject).toBe(
      '[Transco] OAC recovered at 3 locations — timely cycle, gas day 2026-11-21',
    );
  });

  it('shows percent thresholds with their quantity and says when a reminder is late', () => {
    const alert = capacityAlert([location({ opc: 800_000 })]);
    const loc = alert.payload.capacity!.locations[0]!;
    Object.assign(loc, { unit: 'percent', threshold: 10 });
    expect(renderEmail([alert], options).text).toContain('10% of OPC (80,000 Dth)');
    const late = deadlineAlert();
    late.payload.deadline!.late = true;
    expect(renderEmail([late], options).text).toContain('This reminder is late');
  });

  it('leaves out a link that is not http(s) and renders a notice without HTML as text', () => {
    const m = renderEmail(
      [noticeAlert({ url: 'javascript:alert(1)', html: '', notice: 'Line one\nLine <two>' })],
      options,
    );
    expect(m.text).not.toContain('javascript:');
    expect(m.html).not.toContain('javascript:');
    expect(m.html).toContain('Line one\nLine &lt;two&gt;');
  });

  it('marks messages as automatic and names the rule', () => {
    const { headers } = renderEmail([noticeAlert()], options);
    expect(headers).toMatchObject({
      'Auto-Submitted': 'auto-generated',
      'X-Pipewatch-Rule': 'transco-constraints',
      'X-Pipewatch-Kind': 'notice/new',
    });
  });
});

describe('sanitizeNoticeHtml', () => {
  it('keeps formatting and tables, drops scripts, styles, frames, objects, images and handlers', () => {
    const html = sanitizeNoticeHtml(
      '<style>p{}</style><p style="position:fixed" onclick="x()">Hi <b>there</b></p>' +
        '<iframe src="https://e.x"></iframe><object data="x"></object><img src="https://e.x/a.png">' +
        '<table border="1" style="width:9999px"><tr><td onmouseover="x()" colspan="2">1</td></tr></table>' +
        '<svg><script>alert(1)</script></svg><form action="https://e.x"><input></form>',
    );
    expect(html).toBe(
      '<p>Hi <b>there</b></p><table style="border-collapse:collapse"><tr>' +
        '<td colspan="2" style="border:1px solid #dde1e6;padding:4px 8px">1</td></tr></table>',
    );
  });

  it('keeps only http(s) and mailto links, each with rel="noopener noreferrer"', () => {
    const html = sanitizeNoticeHtml(
      '<a href="https://ok.example/a">a</a><a href="JaVaScRiPt:alert(1)">b</a>' +
        '<a href="data:text/html,x">c</a><a href="//evil.example">d</a><a href="mailto:x@y.z">e</a>',
    );
    expect(html).toBe(
      '<a href="https://ok.example/a" rel="noopener noreferrer" target="_blank">a</a>' +
        '<a rel="noopener noreferrer" target="_blank">b</a><a rel="noopener noreferrer" target="_blank">c</a>' +
        '<a rel="noopener noreferrer" target="_blank">d</a>' +
        '<a href="mailto:x@y.z" rel="noopener noreferrer" target="_blank">e</a>',
    );
  });
});

describe('breakable', () => {
  it('cuts runs of 16 or more characters without a space every 8, escaped, and leaves the rest whole', () => {
    expect(breakable('STATION 85 1,000,000 (3.8%)')).toBe('STATION 85 1,000,000 (3.8%)');
    expect(breakable(`A<${'x'.repeat(14)} ok`)).toBe('A&lt;xxxxxx<wbr>xxxxxxxx ok');
    const flags = '🇺🇸'.repeat(17);
    expect(breakable(flags).split('<wbr>')).toEqual(['🇺🇸'.repeat(8), '🇺🇸'.repeat(8), '🇺🇸']);
  });
});

describe('helpers', () => {
  it('finds the sender domain', () => {
    expect(senderDomain('pipewatch <alerts@Example.COM>')).toBe('example.com');
    expect(senderDomain('alerts@mail.example.org')).toBe('mail.example.org');
    expect(senderDomain('nobody')).toBe('nobody');
    expect(senderDomain('')).toBe('localhost');
  });

  it('accepts only http(s) URLs, normalised', () => {
    expect(safeUrl('https://evil.example/x?a=1&b=<2>')).toBe(
      'https://evil.example/x?a=1&b=%3C2%3E',
    );
    expect(safeUrl('javascript:alert(1)')).toBeUndefined();
    expect(safeUrl('ftp://x.example/')).toBeUndefined();
    expect(safeUrl('not a url')).toBeUndefined();
  });

  it('paces the pool to the rate per second', () => {
    expect(pacing(5)).toEqual({ rateLimit: 5, rateDelta: 1000 });
    expect(pacing(2.5)).toEqual({ rateLimit: 3, rateDelta: 1200 });
    expect(pacing(0.2)).toEqual({ rateLimit: 1, rateDelta: 5000 });
    expect(pacing(Number.POSITIVE_INFINITY)).toEqual({});
    expect(() => pacing(0)).toThrow(RangeError);
  });
});
