/**
 * Reading a request to `POST /discord/interactions` and writing its answer: the body up
 * to a limit, a larger one discarded unread (so a client cannot make pipewatch hold
 * megabytes it will refuse), and answers as one line of text (a refusal) or JSON (an
 * interaction response).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The largest request body read: 1 MiB, room for a click on a full message. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** What reading a body gave: the bytes, more than the limit, or a client that went away. */
export type Read = { raw: Buffer } | 'too-large' | 'aborted';

/** The body, up to `limit` bytes; beyond that the rest is discarded unread. */
export function readBody(req: IncomingMessage, limit: number): Promise<Read> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.resolve('too-large');
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      req.off('data', onData);
      req.resume();
      resolve('too-large');
    };
    req.on('data', onData);
    req.once('end', () => resolve({ raw: Buffer.concat(chunks) }));
    // Whichever settles first counts: past the limit, or after a complete body, the
    // events that follow change nothing.
    req.once('error', () => resolve('aborted'));
    req.once('close', () => resolve('aborted'));
  });
}

/**
 * Writes an answer once: a string as one line of text, anything else as JSON. `close`
 * ends the connection too, for a request whose body was left unread.
 */
export function answer(res: ServerResponse, status: number, body: unknown, close = false): void {
  if (res.headersSent) return;
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  if (close) headers.connection = 'close';
  if (typeof body === 'string') {
    res.writeHead(status, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
    res.end(`${body}\n`);
  } else {
    res.writeHead(status, { ...headers, 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }
}
