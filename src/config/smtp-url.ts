/**
 * SMTP_URL: an `smtp://` or `smtps://` URL with a host, its user name and password
 * percent-encoded. A reserved character left as it is in a password cuts the URL short:
 * `smtp://alerts:se/cr#et@mail.example.com` does not parse at all (the host would be
 * `alerts`, the port `se`), and `smtp://alerts:12#x@mail.example.com` parses as host
 * `alerts`, port 12, the rest a fragment, so the mail would go to the wrong server. Both
 * are refused with the rule that mends them, and the value is shown with its password
 * taken out: the operator sees which user and host were read, never the secret.
 */
import { z } from 'zod';
import { REDACTED, redactor } from '../lib/redact.js';

/** What mends a URL cut short by its user name or password. */
export const PERCENT_ENCODING_RULE =
  'reserved characters in the user name or password must be percent-encoded (/ as %2F, # as %23, ? as %3F, @ as %40, : as %3A, % as %25)';

const NOT_SMTP = 'must be an smtp:// or smtps:// URL with a host';

/** The scheme and `//` of a URL, and what follows them. */
const SCHEME = /^([a-z][a-z0-9+.-]*:\/\/)?([\s\S]*)$/i;

/** The host and port of `text`, up to its first `/`, `?` or `#` (IPv6 colons are bracketed). */
function hostAndPort(text: string): [host: string, port: string | undefined] {
  const authority = text.split(/[/?#]/, 1)[0] ?? '';
  const end = authority.startsWith('[') ? authority.indexOf(']') + 1 : 0;
  const colon = authority.indexOf(':', end);
  if (colon < 0) return [authority, undefined];
  return [authority.slice(0, colon), authority.slice(colon + 1)];
}

/**
 * The host of `text` is followed by a `:` and something other than a port number: a
 * password that lost its `@` and host, as in `smtp://alerts:se/cr` when a `.env` file
 * took `#et@mail.example.com` for a comment.
 */
function lostPassword(text: string): boolean {
  const [, port] = hostAndPort(text);
  return port !== undefined && !/^\d*$/.test(port);
}

/**
 * What is wrong with a URL of one of `protocols` (`'smtp:'`) that carries a user name and
 * password, or `undefined` when nothing is; `wrongScheme` when it is not such a URL with a
 * host. SMTP_URL's rules, for every URL that holds credentials (the PostgreSQL store's).
 */
export function credentialUrlProblem(
  value: string,
  protocols: readonly string[],
  wrongScheme: string,
): string | undefined {
  const rest = SCHEME.exec(value)?.[2] ?? value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    const ours = protocols.some((p) => value.toLowerCase().startsWith(`${p}//`));
    return ours && (rest.includes('@') || lostPassword(rest))
      ? `is not a valid URL; ${PERCENT_ENCODING_RULE}`
      : wrongScheme;
  }
  if (!protocols.includes(url.protocol)) return wrongScheme;
  // An `@` after the host: a `/`, `?` or `#` in the user name or password ended the
  // authority early, and the host read is part of the user name or password.
  if (`${url.pathname}${url.search}${url.hash}`.includes('@'))
    return `is cut short by a reserved character in the user name or password, so the host read is not the one after the last @; ${PERCENT_ENCODING_RULE}`;
  if (url.hostname === '')
    return lostPassword(rest) ? `is not a valid URL; ${PERCENT_ENCODING_RULE}` : wrongScheme;
  try {
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    return `is not percent-encoded: a % in the user name or password is not followed by two hexadecimal digits; ${PERCENT_ENCODING_RULE}`;
  }
  return undefined;
}

/** What is wrong with an SMTP_URL value, or `undefined` when nothing is. */
export function smtpUrlProblem(value: string): string | undefined {
  return credentialUrlProblem(value, ['smtp:', 'smtps:'], NOT_SMTP);
}

/** An `smtp://` or `smtps://` URL with a host, its user name and password decodable. */
export const smtpUrl = z.string().superRefine((v, ctx) => {
  const problem = smtpUrlProblem(v);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

/**
 * The host and what follows it, as far as it can be shown: a port that is not a number
 * may be a password that lost its `@`, and a path or query may carry credentials
 * (nodemailer reads `?auth.pass=`), so both give way to `…`.
 */
function shownHost(text: string): string {
  const [host, port] = hostAndPort(text);
  const authority = port === undefined ? host : `${host}:${lostPassword(text) ? REDACTED : port}`;
  const whole = port === undefined ? host : `${host}:${port}`;
  return whole.length < text.length ? `${authority}…` : authority;
}

/**
 * An SMTP_URL value (or any URL that may hold a password) with its password taken out,
 * for an error about it, whatever shape it has: the user name and password are read as a person means them, up to the last `@`
 * (the user name to the first `:`), however the URL parser would cut them. A user name
 * that is the password too (some services use one token for both) goes as well.
 */
export function shownSmtpUrl(value: string): string {
  const [, scheme = '', rest = ''] = SCHEME.exec(value) ?? [];
  const at = rest.lastIndexOf('@');
  if (at < 0) return scheme + shownHost(rest);
  const userinfo = rest.slice(0, at);
  const colon = userinfo.indexOf(':');
  const user = colon >= 0 ? userinfo.slice(0, colon) : userinfo;
  const password = colon >= 0 ? userinfo.slice(colon + 1) : '';
  const decoded = (() => {
    try {
      return decodeURIComponent(password);
    } catch {
      return password;
    }
  })();
  const shown = `${scheme}${user}${colon >= 0 ? `:${REDACTED}` : ''}@${shownHost(rest.slice(at + 1))}`;
  return redactor([password, decoded])(shown);
}

const NOT_POSTGRES = 'must be a postgres:// or postgresql:// URL with a host';

/** What is wrong with a PostgreSQL URL (SMTP_URL's rules), or `undefined` when nothing is. */
export function postgresUrlProblem(url: string): string | undefined {
  return credentialUrlProblem(url, ['postgres:', 'postgresql:'], NOT_POSTGRES);
}

/** `PIPEWATCH_DATABASE_URL`: a PostgreSQL URL with a host. */
export const postgresUrl = z.string().superRefine((v, ctx) => {
  const problem = postgresUrlProblem(v);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

/**
 * A PostgreSQL URL as logs and errors show it: the password `[redacted]` (`shownSmtpUrl`),
 * the database's name kept, since which database is meant is what an operator checks
 * first, and a query (which may hold a password) shown as `?…`. A value that does not
 * parse is shown as `shownSmtpUrl` shows it.
 */
export function shownPostgresUrl(value: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return shownSmtpUrl(value);
  }
  const credentials = parsed.username || parsed.password;
  const server = shownSmtpUrl(
    `${parsed.protocol}//${parsed.username}${parsed.password ? `:${parsed.password}` : ''}${credentials ? '@' : ''}${parsed.host}`,
  );
  let database = parsed.pathname;
  try {
    database = decodeURIComponent(database);
  } catch {}
  return redactor([parsed.password, safeDecode(parsed.password)])(
    `${server}${database}${parsed.search ? '?…' : ''}`,
  );
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
