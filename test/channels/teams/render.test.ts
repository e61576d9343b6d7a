/**
 * The Teams card: every alert kind makes a card the Adaptive Cards library finds no
 * problem with; text from the pipelines can neither link, format, mention nor list;
 * and the message stays within Teams' 28 KB, the notice's text giving way (with a note)
 * and never the headline or the link.
 */
import { describe, expect, it } from 'vitest';
import type { AlertPayload } from '../../../src/alerts/payload.js';
import { block, inline } from '../../../src/channels/teams/escape.js';
import { CARD_BUDGET_BYTES, messageBytes } from '../../../src/channels/teams/limits.js';
import { renderTeams } from '../../../src/channels/teams/render.js';
import {
  capacityAlert,
  deadlineAlert,
  hostileAlerts,
  location,
  noticeAlert,
} from '../../fakes/alerts.js';
import { messageProblems } from '../../fakes/teams.js';
import { DIGESTS, SAMPLE_KINDS, SENT_AT, sampleAlerts } from '../payload-samples.js';

const NOW = '2026-11-20T15:00:00Z';

/** Every text of the card: text blocks, facts, table cells. */
function texts(payload: AlertPayload): string[] {
  const card = renderTeams(payload, NOW).attachments[0]!.content;
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        if ((k === 'text' || k === 'value') && typeof x === 'string') out.push(x);
        else walk(x);
      }
  };
  walk(card.body);
  return out;
}

const HOSTILE =
  'See [x](http://evil) and [y]: http://evil and <http://evil> **bold** __under__ ~~gone~~ `code` ' +
  '<at>Everyone</at> <b>html</b> &lt;at&gt; \u0007bell\u001b[31mred \u202eesrever\u202c\n' +
  '- a list\n1. numbered\n# heading\n> quote\n---';

describe('the Teams card', () => {
  it.each(SAMPLE_KINDS.filter((k) => !DIGESTS.includes(k)))(
    '%s is a card the Adaptive Cards library finds no problem with',
    (kind) => {
      const [alert] = sampleAlerts(kind, 'teams:https://example.powerplatform.com/x');
      expect(messageProblems(renderTeams(alert!.payload, SENT_AT))).toEqual([]);
    },
  );

  it('keeps text from the pipelines from linking, formatting, mentioning or listing', () => {
    const alert = noticeAlert({
      subject: HOSTILE,
      type: `Notice **${HOSTILE}`,
      category: HOSTILE,
      status: '<at>ops</at>',
      identifier: '[id](http://evil)',
      notice: HOSTILE,
      html: '',
    });
    const all = texts(alert.payload).join('\n');
    expect(all).not.toMatch(/\]\(|\]:|\*\*[^*]|__|~~|`/);
    expect(all).not.toMatch(/<[a-z/!]/i);
    expect(all).not.toMatch(/&[a-z]+;/i);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for them
    expect(all).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e]/);
    for (const line of all.split('\n')) expect(line).not.toMatch(/^\s*([-+#>]|\d+\.\s)/);
    // What was written is still there to read.
    expect(all).toContain('Everyone');
    expect(all).toContain('http://evil');
    expect(messageProblems(renderTeams(alert.payload, NOW))).toEqual([]);
  });

  it('shows a hostile link only as the button, percent-encoded', () => {
    for (const a of hostileAlerts()) {
      const card = renderTeams(a.payload, NOW).attachments[0]!.content;
      expect(card.actions?.[0]?.url).toBe('https://evil.example/x?a=1&b=%3C2%3E');
      expect(messageProblems(renderTeams(a.payload, NOW))).toEqual([]);
    }
  });

  it('keeps our own bold marks but not the text they wrap', () => {
    expect(inline('a **b** c', 100)).toBe('a \u2217\u2217b\u2217\u2217 c');
    expect(inline('snake_case_id', 100)).toBe('snake_case_id');
    expect(block('one\r\ntwo\n\n\n\nthree')).toBe('one\ntwo\n\nthree');
  });

  it('fits a 200 KB notice in 28 KB, the text shortened with a note, headline and link whole', () => {
    const huge = 'Receipt meter 4012 scheduled at 50%. \u00e9\u4e2d '.repeat(5000);
    expect(Buffer.byteLength(huge)).toBeGreaterThan(200_000);
    const alert = noticeAlert({ notice: huge, html: '', subject: 'Force Majeure at Station 85' });
    const message = renderTeams(alert.payload, NOW);
    const bytes = messageBytes(message);
    expect(bytes).toBeLessThanOrEqual(CARD_BUDGET_BYTES);
    expect(bytes).toBeGreaterThan(CARD_BUDGET_BYTES - 200);
    const card = message.attachments[0]!.content;
    const all = texts(alert.payload);
    expect(all[0]).toBe('Transco: Capacity Constraint');
    expect(all).toContain('Force Majeure at Station 85');
    const body = all.find((t) => t.startsWith('Receipt meter'));
    expect(body?.endsWith('…')).toBe(true);
    expect(
      all.some((t) => /^Text shortened to [\d,]+ of [\d,]+ characters\. Open the notice/.test(t)),
    ).toBe(true);
    expect(card.actions).toEqual([
      {
        type: 'Action.OpenUrl',
        title: 'Open notice',
        url: 'https://www.1line.williams.com/xhtml/notice.jsf?id=101',
      },
    ]);
    expect(messageProblems(message)).toEqual([]);
  });

  it('keeps a reminder to its shorter text and a notice of ordinary length whole', () => {
    const long = 'word '.repeat(400);
    const reminder = texts(deadlineAlert({ notice: long, html: '' }).payload);
    expect(reminder.some((t) => t.length === 1000 && t.endsWith('…'))).toBe(true);
    const notice = texts(noticeAlert({ notice: long, html: '' }).payload);
    expect(notice).toContain(long.trim());
  });

  it('fits a capacity alert of many locations, saying how many more there are', () => {
    const many = Array.from({ length: 400 }, (_, i) =>
      location({
        id: i,
        identifier: `${1_000_000 + i}`,
        location: `RECEIPT METER ${'X'.repeat(20)} ${i}`,
      }),
    );
    const message = renderTeams(capacityAlert(many).payload, NOW);
    expect(messageBytes(message)).toBeLessThanOrEqual(CARD_BUDGET_BYTES);
    const all = texts(capacityAlert(many).payload);
    expect(all.some((t) => /^…and \d+ more locations$/.test(t))).toBe(true);
    expect(all[0]).toMatch(/^\S+ Transco: Low OAC at 400 locations/);
    expect(messageProblems(message)).toEqual([]);
  });
});
