/**
 * Reading a request body up to a limit, for the endpoints other services call (Slack's
 * and Discord's requests, unsubscribe links). A body declared or found larger is
 * discarded unread past the limit, so a client cannot make pipewatch hold megabytes it
 * will refuse.
 */
import type { IncomingMessage } from 'node:http';

/** What reading a body gave: the bytes, more than the limit, or a client that went away. */
export type BodyRead = { raw: Buffer } | 'too-large' | 'aborted';

/** The body, up to `limit` bytes; beyond that the rest is discarded unread. */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
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
    req.once('end', () => resolve(size <= limit ? { raw: Buffer.concat(chunks) } : 'too-large'));
    // Whichever settles first counts: past the limit, or after a complete body, the
    // events that follow change nothing.
    req.once('error', () => resolve('aborted'));
    req.once('close', () => resolve('aborted'));
  });
}
