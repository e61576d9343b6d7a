/**
 * A slash command's text as its user typed it. Slack escapes `&`, `<` and `>` as
 * entities and writes what it recognised as tokens between real angle brackets: channel
 * and user mentions (`<#C0GAS|gas>`, `<@U0ALICE>`), special mentions (`<!here>`), links
 * (`<https://x.example|x.example>`). Tokens become their readable form and the entities
 * characters again, so the chat core reads the words the user wrote.
 */

/** A Slack token's readable form: `#gas`, `@U0ALICE`, `@here`, the link's URL. */
function token(inner: string): string {
  const bar = inner.indexOf('|');
  const ref = bar === -1 ? inner : inner.slice(0, bar);
  const label = bar === -1 ? '' : inner.slice(bar + 1);
  if (ref.startsWith('#')) return `#${label || ref.slice(1)}`;
  if (ref.startsWith('@')) return `@${ref.slice(1)}`;
  if (ref.startsWith('!date^')) return label;
  if (ref.startsWith('!subteam^')) return label || `@${ref.slice('!subteam^'.length)}`;
  if (ref.startsWith('!')) return `@${ref.slice(1)}`;
  return ref;
}

/** The command's text with Slack's tokens and entities undone. */
export function commandText(raw: string): string {
  return raw
    .replace(/<([^<>]*)>/g, (_m, inner: string) => token(inner))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
