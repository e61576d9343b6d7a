/**
 * One-click unsubscribe links for alert email (RFC 8058, RFC 2369, RFC 2919): the link
 * `<public URL>/unsubscribe/<token>` and the `List-*` headers that offer it to mail
 * clients. The token names the addresses the email went to and the rules of its alerts,
 * signed with HMAC-SHA256, so nothing needs to be stored per email and a changed or cut
 * link is refused: `v1.<payload>.<signature>`, each part base64url, the payload being
 * the addresses (comma-separated) and the rules, one a line (`*`: every rule; rule names
 * cannot be `*`). Operations alerts and silence summaries are never held back by a
 * silence, so an email of those alone carries no link: it could not stop them.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AlertPayload } from '../alerts/payload.js';
import type { UnsubscribeScope } from './silences.js';

/** The path the links live under, on the daemon's HTTP port. */
export const UNSUBSCRIBE_PATH = '/unsubscribe/';

/**
 * The longest link. Mail header lines may not pass 998 characters (RFC 5322 2.1.1), and
 * the URL in `List-Unsubscribe` cannot be folded, so it must fit on one line with its
 * `<…>`. A digest whose rules do not fit gets a link that stops every alert to its
 * addresses, and says so on its page; one that does not fit even then gets no link.
 */
export const MAX_LINK_LENGTH = 960;

/** Longest token `verifyToken` looks at; a longer one is refused unread. */
const MAX_TOKEN_LENGTH = 2048;
const VERSION = 'v1';
/** What the MAC covers before the payload, so the key signs nothing else by accident. */
const CONTEXT = `pipewatch unsubscribe ${VERSION}\n`;
const EVERY_RULE = '*';
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const RULE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const MAC_BYTES = 32;

/** Kinds of alert a silence never holds back (`alerts/context.ts`). */
const NEVER_HELD: ReadonlySet<AlertPayload['kind']> = new Set(['operations', 'silence']);

function mac(payload: Buffer, key: string): Buffer {
  return createHmac('sha256', key).update(CONTEXT).update(payload).digest();
}

/** The token of `scope` under `key`: compact, URL-safe, versioned. */
export function makeToken(scope: UnsubscribeScope, key: string): string {
  const rules = scope.rules === 'all' ? [EVERY_RULE] : scope.rules;
  const payload = Buffer.from([scope.addresses.join(','), ...rules].join('\n'), 'utf8');
  return `${VERSION}.${payload.toString('base64url')}.${mac(payload, key).toString('base64url')}`;
}

/**
 * The scope a token names, when `key` signed it; undefined for anything else (cut,
 * changed, another key, another version). The signature is compared in constant time.
 */
export function verifyToken(token: string, key: string): UnsubscribeScope | undefined {
  if (token.length > MAX_TOKEN_LENGTH) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== VERSION) return undefined;
  const [, body, signature] = parts as [string, string, string];
  if (!BASE64URL.test(body) || !BASE64URL.test(signature)) return undefined;
  const payload = Buffer.from(body, 'base64url');
  const given = Buffer.from(signature, 'base64url');
  // Base64url that does not round-trip (stray trailing bits) is not what was signed.
  if (payload.toString('base64url') !== body || given.toString('base64url') !== signature)
    return undefined;
  const expected = mac(payload, key);
  if (given.length !== MAC_BYTES || !timingSafeEqual(given, expected)) return undefined;
  const [first = '', ...rules] = payload.toString('utf8').split('\n');
  const addresses = first.split(',');
  if (addresses.some((a) => !a.includes('@')) || rules.length === 0) return undefined;
  if (rules.length === 1 && rules[0] === EVERY_RULE) return { addresses, rules: 'all' };
  if (!rules.every((r) => RULE_NAME.test(r))) return undefined;
  return { addresses, rules };
}

/** The rules a silence can stop among these alerts, sorted, each once. */
export function stoppableRules(payloads: readonly AlertPayload[]): string[] {
  const rules = payloads.filter((p) => !NEVER_HELD.has(p.kind)).map((p) => p.rule);
  return [...new Set(rules)].sort();
}

/** `https://host/base` of the public URL: no trailing slash, query or fragment. */
function base(publicUrl: string): string {
  const url = new URL(publicUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** The link for a token. */
export function unsubscribeUrl(publicUrl: string, token: string): string {
  return `${base(publicUrl)}${UNSUBSCRIBE_PATH}${token}`;
}

/**
 * The link that stops, for `addresses`, the rules of these alerts; every rule when
 * they do not all fit in `MAX_LINK_LENGTH`; none when the alerts are all of kinds no
 * silence holds, or when not even that fits.
 */
export function unsubscribeLink(
  publicUrl: string,
  addresses: readonly string[],
  payloads: readonly AlertPayload[],
  key: string,
): string | undefined {
  const rules = stoppableRules(payloads);
  if (rules.length === 0) return undefined;
  for (const scope of [
    { addresses, rules },
    { addresses, rules: 'all' as const },
  ]) {
    const link = unsubscribeUrl(publicUrl, makeToken(scope, key));
    if (link.length <= MAX_LINK_LENGTH) return link;
  }
  return undefined;
}

/**
 * `pipewatch alerts <alerts.pipewatch.example.com>` (RFC 2919), from the public URL's
 * host, so mail clients can file and filter pipewatch's email as one list.
 */
export function listId(publicUrl: string): string {
  const host = new URL(publicUrl).hostname
    .toLowerCase()
    .replace(/[^a-z0-9.-]/g, '-')
    .replace(/^[.-]+|[.-]+$/g, '');
  return `pipewatch alerts <alerts.${host || 'localhost'}>`;
}

/**
 * The list headers of an email: `List-Id` always; with a link, `List-Unsubscribe`, and
 * for an https link `List-Unsubscribe-Post`, which tells mail clients a POST to it
 * unsubscribes at once (RFC 8058 allows one-click over https only).
 */
export function listHeaders(publicUrl: string, link: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'List-Id': listId(publicUrl) };
  if (link === undefined) return headers;
  headers['List-Unsubscribe'] = `<${link}>`;
  if (link.startsWith('https://')) headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  return headers;
}
