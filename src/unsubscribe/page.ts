/**
 * The pages of email unsubscribe links: one small HTML document each, with its style
 * inline and allowed by its hash alone, so the Content-Security-Policy can refuse every
 * script, image, font, frame and outside resource. Every text that came from a link or
 * the database is escaped, and shown as one line without control characters or
 * bidirectional controls (`shown`): a signed link names what it was made for, and an
 * address with a right-to-left override in it must not read as another one.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { escapeHtml as esc } from '../lib/escape-html.js';
import { inlineText, terminalSafe } from '../lib/terminal.js';
import type { UnsubscribeScope } from './silences.js';

/**
 * A text from a link or the database as a page shows it: line breaks and tabs as `\n`
 * and `\t`, control characters and bidirectional controls (U+202E) removed, as a
 * terminal gets it, then escaped for HTML.
 */
const shown = (text: string): string => esc(terminalSafe(inlineText(text)));

// biome-ignore format: one rule a line reads best
const STYLE = [
  'body{margin:0;background:#f4f5f7;color:#1f2328;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}',
  'main{box-sizing:border-box;max-width:36rem;margin:3rem auto;padding:2rem 2.25rem;background:#fff;border:1px solid #dde1e6;border-radius:8px}',
  '.brand{margin:0 0 1.25rem;color:#57606a;font-size:.875rem;font-weight:600;letter-spacing:.03em}',
  'h1{margin:0 0 1rem;font-size:1.5rem;line-height:1.25}',
  'p{margin:0 0 1rem}',
  'ul{margin:0 0 1rem;padding-left:1.25rem}',
  'li{margin:0 0 .25rem}',
  'strong,code{display:inline-block;box-sizing:border-box;max-width:100%;overflow-wrap:anywhere}',
  'code{font:.875em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f4f5f7;border:1px solid #dde1e6;border-radius:4px;padding:.05em .35em}',
  'form{margin:1.5rem 0 1rem}',
  'button{font:inherit;font-weight:600;color:#fff;background:#0b5cad;border:0;border-radius:6px;padding:.625rem 1.25rem;cursor:pointer}',
  'button:hover{background:#094a8c}',
  'button:focus-visible{outline:3px solid #7fb2e5;outline-offset:2px}',
  '.note{color:#57606a;font-size:.875rem;margin:0}',
  '@media (max-width:38rem){body{background:#fff}main{margin:0;border:0;border-radius:0;padding:1.5rem}}',
].join('\n');

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/**
 * The headers of every page: nothing but its own inline style may load or run, it posts
 * forms only to its own origin, it cannot be framed, cached, or sent as a referrer.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'content-security-policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

/** A page: its status, title and HTML body. */
export interface Page {
  status: number;
  title: string;
  body: string;
}

/** Sends `page` with `PAGE_HEADERS` (and `extra`), the body left out for `HEAD`. */
export function sendPage(
  res: ServerResponse,
  page: Page,
  extra: Record<string, string> = {},
): void {
  const html = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><meta name="robots" content="noindex">
<title>${esc(page.title)} · pipewatch</title>
<style>${STYLE}</style></head>
<body><main>
<p class="brand">pipewatch</p>
${page.body}
</main></body></html>
`;
  res.writeHead(page.status, { ...PAGE_HEADERS, ...extra });
  res.end(html);
}

/** `<strong>a@example.com</strong>`, or the addresses joined: `… and …`. */
function addressesHtml(scope: UnsubscribeScope): string {
  const names = scope.addresses.map((a) => `<strong>${shown(a)}</strong>`);
  const last = names.pop() ?? '';
  return names.length === 0 ? last : `${names.join(', ')} and ${last}`;
}

/** One rule as a list item: its name, and that it is a subscription when it is one. */
function ruleItem(rule: string): string {
  const what = /^sub-\d+$/.test(rule) ? ' <span class="note">(a subscription)</span>' : '';
  return `<li><code>${shown(rule)}</code>${what}</li>`;
}

/**
 * What stops, in a sentence or a list: `will` before it is done, `now` after:
 * `pipewatch will stop sending alerts of the rule x to a@example.com.`
 */
function whatStops(scope: UnsubscribeScope, when: 'will' | 'now'): string {
  const to = addressesHtml(scope);
  const sends = when === 'will' ? 'will stop sending' : 'no longer sends';
  if (scope.rules === 'all')
    return `<p>pipewatch ${sends} ${when === 'will' ? 'every alert' : 'any alert'} to ${to}.</p>`;
  if (scope.rules.length === 1)
    return `<p>pipewatch ${sends} alerts of the rule <code>${shown(scope.rules[0])}</code> to ${to}.</p>`;
  return `<p>pipewatch ${sends} alerts of these rules to ${to}:</p>\n<ul>${scope.rules.map(ruleItem).join('')}</ul>`;
}

/** For a list of addresses: one message goes to all of them, so it stops for all. */
function shared(scope: UnsubscribeScope): string {
  return scope.addresses.length > 1
    ? '<p class="note">These addresses get each alert as one message together, so it stops for all of them.</p>\n'
    : '';
}

/** How to undo: the command that lifts each silence. */
function undo(silences: readonly number[]): string {
  const commands = silences.map((id) => `<code>pipewatch silence expire ${id}</code>`);
  return `<p class="note">Changed your mind? Whoever runs pipewatch for you can undo this with ${commands.join(' and ')}.</p>`;
}

/** The page a link opens: what will stop, and the button that stops it. Changes nothing. */
export function confirmPage(scope: UnsubscribeScope): Page {
  return {
    status: 200,
    title: 'Unsubscribe',
    body: `<h1>Unsubscribe from these alerts?</h1>
${whatStops(scope, 'will')}
${shared(scope)}<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>
<p class="note">Nothing changes until you press the button.</p>`,
  };
}

/**
 * The answer to a POST that did not say `List-Unsubscribe=One-Click` (a scanner's
 * probe, a client that sent no body): nothing changed, and the button, for a person.
 */
export function notAskedPage(scope: UnsubscribeScope): Page {
  const page = confirmPage(scope);
  const [heading, ...rest] = page.body.split('\n');
  const note =
    '<p>Nothing was changed: this request did not say <code>List-Unsubscribe=One-Click</code>. Press the button to unsubscribe.</p>';
  return { ...page, status: 400, body: [heading, note, ...rest].join('\n') };
}

/** What a link opens when what it stops is stopped already. */
export function alreadyPage(scope: UnsubscribeScope, silences: readonly number[]): Page {
  return {
    status: 200,
    title: 'Already unsubscribed',
    body: `<h1>You are already unsubscribed</h1>
${whatStops(scope, 'now')}
${shared(scope)}${undo(silences)}`,
  };
}

/** The answer to the button or a mail client's one-click POST, the same each time. */
export function donePage(scope: UnsubscribeScope, silences: readonly number[]): Page {
  return {
    status: 200,
    title: 'Unsubscribed',
    body: `<h1>You are unsubscribed</h1>
${whatStops(scope, 'now')}
${shared(scope)}${undo(silences)}`,
  };
}

/** A link that is not one pipewatch made with its key: cut, changed, or from elsewhere. */
export function invalidPage(): Page {
  return {
    status: 400,
    title: 'Link not valid',
    body: `<h1>This unsubscribe link is not valid</h1>
<p>It may have been cut short or changed on its way here, or it was signed with a key this pipewatch no longer has. Nothing was changed.</p>
<p class="note">Open the link from the email again, whole, or ask whoever runs pipewatch for you to stop the alerts.</p>`,
  };
}

/** A request body over the limit, refused unread. */
export function tooLargePage(limit: number): Page {
  return {
    status: 413,
    title: 'Request too large',
    body: `<h1>That request was too large</h1>
<p>An unsubscribe request carries at most ${limit} bytes. Nothing was changed.</p>`,
  };
}

/** Too many requests being read at once: this one was turned away unread. */
export function busyPage(): Page {
  return {
    status: 503,
    title: 'Busy',
    body: `<h1>pipewatch is busy</h1>
<p>Too many requests are arriving at once. Nothing was changed; please try again in a moment.</p>`,
  };
}

/** Something failed on pipewatch's side; the reason is logged, not shown. */
export function failedPage(): Page {
  return {
    status: 500,
    title: 'Something went wrong',
    body: `<h1>Something went wrong</h1>
<p>pipewatch could not handle this request just now. Please try the link again in a few minutes.</p>`,
  };
}
