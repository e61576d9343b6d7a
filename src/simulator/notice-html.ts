/**
 * The three forms of a notice body the service serves: the pipeline's HTML, a mobile
 * variant of it, and plain text with the tags stripped, derived the way a scraper would.
 */

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  ndash: '\u2013',
  mdash: '\u2014',
  rsquo: '\u2019',
  lsquo: '\u2018',
  rdquo: '\u201d',
  ldquo: '\u201c',
  deg: '\u00b0',
};

/** Decodes named and numeric character references; unknown ones are left as they are. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code =
        ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/** Plain text of an HTML body: block ends become line breaks, cells are tab-separated. */
export function htmlToText(html: string): string {
  return decodeEntities(
    html
      .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '')
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<\/(p|div|tr|li|h[1-6]|table)\s*>/gi, '\n')
      .replace(/<\/t[dh]\s*>/gi, '\t')
      .replace(/<[^>]*>/g, ''),
  )
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+$/g, '').replace(/^[ \u00a0]+/g, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The mobile variant: the same markup with fixed table layout dropped and a narrow wrapper. */
export function htmlToMobile(html: string): string {
  const body = html
    .replace(/<table\b[^>]*>/gi, '<table style="width:100%;font-size:12px">')
    .replace(/\s(border|cellpadding|cellspacing|width)="[^"]*"/gi, '');
  return `<div class="notice-mobile" style="max-width:480px">${body}</div>`;
}
