/**
 * One redaction for every string that leaves the process or enters the database: log
 * lines, error reasons, platform answers, `sync_state`, the outbox, `why` and `status`.
 * It replaces the secrets pipewatch was given (the API key, tokens, the SMTP password,
 * the webhook and status secrets) wherever they appear, and whatever looks like a
 * credential even when pipewatch was not given it: the password of a URL, a Slack
 * token, the value of an `Authorization` header, a Discord bot token, the `sig` of a
 * signed URL (a Teams workflow's, an Azure shared access signature), and a PagerDuty
 * integration key, which rule files hold rather than the environment: as a target
 * (`pagerduty:…a1b2`, its last 4 characters kept to tell keys apart) and as an event's
 * `routing_key`.
 *
 * Redact first, shorten after: a secret cut in half no longer matches its value, and
 * half a token is still most of one.
 */

/** What a secret is replaced by. */
export const REDACTED = '[redacted]';

/** A secret value shorter than this is too likely to be an ordinary word to replace. */
const MIN_SECRET = 4;

/**
 * Credentials recognised by their form, with what each is replaced by: a URL's password
 * (its user is kept, to say which account), Slack tokens (`xoxb-…`, `xapp-…`), the
 * credentials of `Authorization: Basic|Bearer …`, Discord bot tokens (three base64url
 * parts joined by dots), and the `sig=` of a signed URL's query (a Teams workflow's).
 */
const PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)[^\s/@]+@/gi, `$1${REDACTED}@`],
  [/(?<![A-Za-z0-9])xox[a-z]-[A-Za-z0-9-]+/g, REDACTED],
  [/(?<![A-Za-z0-9])xapp-[A-Za-z0-9-]+/g, REDACTED],
  [/\b(Basic|Bearer)\s+[A-Za-z0-9._~+/-]{8,}=*/gi, `$1 ${REDACTED}`],
  [/\b(pagerduty:)[A-Za-z0-9]{28}([A-Za-z0-9]{4})(?![A-Za-z0-9])/gi, '$1…$2'],
  [/("?routing_key"?\s*[:=]\s*"?)[A-Za-z0-9]{32}(?![A-Za-z0-9])/g, `$1${REDACTED}`],
  [/\b[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,}/g, REDACTED],
  [/([?&](?:amp;)?sig=)[^&\s"'<>]+/gi, `$1${REDACTED}`],
];

/** Redacts text with the secrets it was built with. */
export type Redact = (text: string) => string;

/**
 * A redaction for these secret values (empty and very short ones are ignored). A value
 * is also looked for as it appears in a URL (percent-encoded), since passwords travel in
 * `SMTP_URL`. Longer secrets are replaced first, so one that contains another goes whole.
 */
export function redactor(secrets: ReadonlyArray<string | undefined> = []): Redact {
  const values = new Set<string>();
  for (const s of secrets) {
    if (s === undefined || s.length < MIN_SECRET) continue;
    values.add(s);
    values.add(encodeURIComponent(s));
  }
  const ordered = [...values].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const value of ordered) if (out.includes(value)) out = out.split(value).join(REDACTED);
    for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
    return out;
  };
}

/** Redacts what looks like a credential, for code that was given no secrets. */
export const redactPatterns: Redact = redactor();
