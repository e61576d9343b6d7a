/**
 * A notice's body as plain text: its `notice` field, or, when upstream sent only HTML,
 * the HTML converted (the converter loads on that first HTML-only notice).
 */
import { describe, expect, it } from 'vitest';
import { htmlToText, noticeText, subjectAfter } from '../../src/channels/text.js';

const HTML =
  '<p>Station 165 <b>limited</b>, see <a href="https://example.com/n/1">the notice</a>.' +
  '<img src="https://example.com/x.png"></p><table><tr><td>Cycle</td><td>Timely</td></tr></table>';

describe('notice text', () => {
  it('converts the HTML when the notice has no text', () => {
    const text = noticeText({ notice: ' ', html: HTML });
    expect(text).toContain('Station 165 limited, see the notice [https://example.com/n/1].');
    expect(text).toMatch(/Cycle\s+Timely/);
    expect(text).not.toMatch(/<|png/);
  });

  it('keeps the text upstream sent, with its line ends made plain', () => {
    expect(noticeText({ notice: 'Line one\r\nLine two\r', html: HTML })).toBe('Line one\nLine two');
  });

  it('makes nothing of empty HTML', () => {
    expect(htmlToText('  ')).toBe('');
  });
});

describe('a subject that begins with the notice type', () => {
  it('loses the type, so that a headline says it once', () => {
    expect(subjectAfter('Capacity Constraint', 'Capacity Constraint - Station 165')).toBe(
      'Station 165',
    );
    expect(subjectAfter('Force Majeure', 'FORCE MAJEURE: Compressor 4')).toBe('Compressor 4');
    expect(subjectAfter('Maintenance', 'Maintenance \u2014 Line 3 pigging')).toBe('Line 3 pigging');
    expect(subjectAfter('OFO', 'OFO')).toBe('');
  });

  it('keeps a subject that only begins with the same letters, or another type', () => {
    expect(subjectAfter('Maintenance', 'Maintenance Schedule for December')).toBe(
      'Maintenance Schedule for December',
    );
    expect(subjectAfter('OFO', 'OFOs lifted')).toBe('OFOs lifted');
    expect(subjectAfter('Capacity Constraint', 'Station 165 limited')).toBe('Station 165 limited');
    expect(subjectAfter('', 'Station 165 limited')).toBe('Station 165 limited');
  });
});
