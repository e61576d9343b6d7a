/**
 * Just enough Markdown for checking the documentation's links: the inline links outside
 * code, and the anchors GitHub gives headings. Code is blanked character for character,
 * so a link's line is its line in the file.
 */

/** The text with fenced blocks and inline code spans blanked, newlines kept. */
function withoutCode(text: string): string {
  let fenced = false;
  const lines = text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
  return lines.join('\n').replace(/(`+)[\s\S]*?\1/g, (code) => code.replace(/[^\n]/g, ' '));
}

/** Each inline link and reference definition: its target (title dropped) and line. */
export function markdownLinks(text: string): { target: string; line: number }[] {
  const prose = withoutCode(text);
  const lineOf = (index: number) => prose.slice(0, index).split('\n').length;
  const links: { target: string; line: number; at: number }[] = [];
  for (const m of prose.matchAll(/\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    links.push({ target: m[1] ?? '', line: 0, at: m.index ?? 0 });
  }
  for (const m of prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) {
    links.push({ target: m[1] ?? '', line: 0, at: m.index ?? 0 });
  }
  return links.sort((a, b) => a.at - b.at).map(({ target, at }) => ({ target, line: lineOf(at) }));
}

/** The anchors of a page's headings, as GitHub makes them (`-1`, `-2` for repeats). */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = !fenced && /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = (heading[1] ?? '')
      .replace(/`/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}
