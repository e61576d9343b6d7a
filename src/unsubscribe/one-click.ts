/**
 * Whether a POST to an unsubscribe link asks to unsubscribe: its body carries
 * `List-Unsubscribe=One-Click` (RFC 8058), as a mail client's one-click request and the
 * page's own button both send it, as a form: `application/x-www-form-urlencoded`,
 * `multipart/form-data`, or a body of that one line under another type (a `text/plain`
 * form). A POST without it (empty, or a scanner's probe) asks for nothing.
 */

const KEY = 'list-unsubscribe';
const VALUE = 'one-click';

/** Whether `name=value` is the one-click pair; names and values are read without case. */
const isPair = (name: string, value: string) =>
  name.trim().toLowerCase() === KEY && value.trim().toLowerCase() === VALUE;

/** The boundary of a `multipart/form-data` type, or undefined for any other type. */
function boundaryOf(contentType: string): string | undefined {
  const [type, ...params] = contentType.split(';');
  if (type?.trim().toLowerCase() !== 'multipart/form-data') return undefined;
  for (const param of params) {
    const [name, ...rest] = param.split('=');
    if (name?.trim().toLowerCase() !== 'boundary') continue;
    const value = rest.join('=').trim();
    return value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  }
  return undefined;
}

/** Whether a multipart body has a part named `List-Unsubscribe` whose value is `One-Click`. */
function multipartSays(text: string, boundary: string): boolean {
  for (const part of text.split(`--${boundary}`)) {
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) continue;
    const head = part.slice(0, split);
    const name = /^content-disposition:\s*form-data;(?:.*;)?\s*name="([^"]*)"/im.exec(head)?.[1];
    if (name !== undefined && isPair(name, part.slice(split + 4).replace(/\r\n$/, ''))) return true;
  }
  return false;
}

/** Whether the body of a POST with `contentType` says `List-Unsubscribe=One-Click`. */
export function saysOneClick(raw: Buffer, contentType: string): boolean {
  const text = raw.toString('utf8');
  const boundary = boundaryOf(contentType);
  if (boundary) return multipartSays(text, boundary);
  for (const [name, value] of new URLSearchParams(text.trim())) {
    if (isPair(name, value)) return true;
  }
  return false;
}
