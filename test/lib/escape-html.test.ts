import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../src/lib/escape-html.js';
import { decodeEntities } from '../../src/simulator/notice-html.js';

describe('escapeHtml', () => {
  it('escapes the five characters that end text or a quoted attribute, and only those', () => {
    expect(escapeHtml(`<a href="x" title='y'>R&D</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;R&amp;D&lt;/a&gt;',
    );
    expect(escapeHtml('Station 85 — 50,000 Dth/d; naïve 🔥\n\t')).toBe(
      'Station 85 — 50,000 Dth/d; naïve 🔥\n\t',
    );
  });

  it('escapes an entity again rather than letting it through', () => {
    expect(escapeHtml('&lt;script&gt; &amp;')).toBe('&amp;lt;script&amp;gt; &amp;amp;');
  });

  it('reads back as the same text', () => {
    const text = `O'Brien & Sons <ops@example.com> "urgent"`;
    expect(decodeEntities(escapeHtml(text))).toBe(text);
  });
});
