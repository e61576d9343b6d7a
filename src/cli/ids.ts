/**
 * Ids as people type them on the command line, read by the commands' argument parsers,
 * which run before any action and so load nothing else.
 */

/** An id as typed: `12`, `#12`, or with its prefix (`sub-12`); undefined when it is none. */
export function parseId(text: string, prefix?: string): number | undefined {
  const t = text.trim().replace(/^#/, '');
  const bare = prefix && t.toLowerCase().startsWith(`${prefix}-`) ? t.slice(prefix.length + 1) : t;
  if (!/^\d{1,15}$/.test(bare)) return undefined;
  const id = Number(bare);
  return id > 0 ? id : undefined;
}
