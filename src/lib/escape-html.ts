/**
 * Text into HTML: the one escaper for every HTML pipewatch writes (alert email) and the
 * simulator serves (notice bodies), safe in element content and in quoted attributes.
 */

// biome-ignore format: a table reads best on one line
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML content or an attribute quoted with `"` or `'`. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}
