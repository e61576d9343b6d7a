/**
 * Reading a response body no further than a limit, so that what an API sends cannot
 * exhaust the daemon's memory or reach the database: a longer body is abandoned, which
 * closes the connection, and its request fails with `BodyTooLargeError`.
 */
import type { Dispatcher } from 'undici';
import { formatByteSize } from '../lib/byte-size.js';
import { BodyTooLargeError, type RequestContext } from './errors.js';

/**
 * The body as text, read up to `limit` bytes; throws as soon as its `Content-Length` or
 * the bytes arrived so far exceed the limit.
 */
export async function readLimitedBody(
  res: Dispatcher.ResponseData,
  limit: number,
  context: RequestContext,
): Promise<string> {
  const tooLarge = (what: string) => {
    res.body.destroy();
    return new BodyTooLargeError(
      `response body ${what} the ${formatByteSize(limit)} pipewatch reads (PIPEWATCH_API_MAX_BODY)`,
      { context, status: res.statusCode, limitBytes: limit },
    );
  };
  const declared = Number(res.headers['content-length']);
  if (declared > limit) throw tooLarge(`of ${formatByteSize(declared)} is larger than`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) throw tooLarge('is larger than');
    chunks.push(buf);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
