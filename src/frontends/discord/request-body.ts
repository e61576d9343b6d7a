/**
 * Reading a request to `POST /discord/interactions` (`lib/request-body.ts`) and writing
 * its answer, as one line of text (a refusal) or JSON (an interaction response).
 */
import type { ServerResponse } from 'node:http';

/** The largest request body read: 1 MiB, room for a click on a full message. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * Writes an answer once: a string as one line of text, anything else as JSON. `close`
 * ends the connection too, for a request whose body was left unread.
 */
export function answer(
  res: ServerResponse,
  status: number,
  body: unknown,
  close = false,
  extra: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  const headers: Record<string, string> = { 'cache-control': 'no-store', ...extra };
  if (close) headers.connection = 'close';
  if (typeof body === 'string') {
    res.writeHead(status, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
    res.end(`${body}\n`);
  } else {
    res.writeHead(status, { ...headers, 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }
}
