/**
 * The last line of defence for secrets in delivery reasons and platform answers, which
 * end up in the database, `status` and logs: known secret values are replaced, and so
 * is the password of any URL with credentials.
 */

const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)[^\s/@]+@/gi;

/** `text` with every secret (4 characters or more) and URL password replaced by `***`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text.replace(URL_PASSWORD, '$1***@');
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join('***');
  }
  return out;
}
