/**
 * Answers of a hostile or broken API, for the faults that test a client's limits: a body
 * of any size, streamed without being held in memory, and a record nested deeper than any
 * recursive code can follow. Both keep the rest of the response as the API would send it,
 * so a client that copes loses only the record at fault.
 */
import type { ServerResponse } from 'node:http';
import type { ApiResponse } from './http.js';

/** Fields that take the oversized or nested value, in order of preference. */
const FIELDS = ['notice', 'reason', 'name'];
const MARK = '__pipewatch_simulator_splice__';
const PADDING = Buffer.alloc(64 * 1024, 'x');

/**
 * The response's JSON text cut around one value: `field` of the middle record of a list
 * (a notice's `notice`, a location's `reason`, a pipeline's `name`), or `meta.padding`
 * when there is no record. The caller writes its own value between the two parts.
 */
function cut(response: ApiResponse, field?: string): [string, string] {
  const data = response.body.data as unknown;
  const list = Array.isArray(data) ? data : (data as { locations?: unknown } | null)?.locations;
  const records = Array.isArray(list) ? (list as Array<Record<string, unknown>>) : [];
  const record = records[Math.floor(records.length / 2)];
  if (record) {
    const name = field ?? FIELDS.find((f) => f in record) ?? FIELDS[0];
    record[name] = MARK;
  } else {
    response.body.meta = { ...response.body.meta, padding: MARK };
  }
  const [before, after] = JSON.stringify(response.body).split(`"${MARK}"`);
  return [before ?? '', after ?? ''];
}

/** Writes `chunk`, waiting while the socket is full; false once the client has gone. */
export function writeChunk(res: ServerResponse, chunk: Buffer | string): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  if (res.write(chunk)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (open: boolean) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(open);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}

function head(res: ServerResponse, response: ApiResponse, length?: number): void {
  res.writeHead(response.status, {
    ...response.headers,
    'Content-Type': 'application/json; charset=utf-8',
    ...(length === undefined ? {} : { 'Content-Length': String(length) }),
    'Cache-Control': 'no-store',
  });
}

/**
 * Sends `response` padded to about `bytes` bytes in one text field, in chunks and without
 * a `Content-Length`, as a server streaming a huge page does. Stops when the client hangs
 * up; resolves to the bytes written.
 */
export async function sendLargeBody(
  res: ServerResponse,
  response: ApiResponse,
  bytes: number,
  field?: string,
): Promise<number> {
  const [before, after] = cut(response, field);
  const open = Buffer.from(`${before}"`);
  const close = Buffer.from(`"${after}`);
  let left = Math.max(0, bytes - open.length - close.length);
  head(res, response);
  let written = 0;
  if (!(await writeChunk(res, open))) return written;
  written += open.length;
  while (left > 0) {
    const chunk = left >= PADDING.length ? PADDING : PADDING.subarray(0, left);
    if (!(await writeChunk(res, chunk))) return written;
    written += chunk.length;
    left -= chunk.length;
  }
  res.end(close);
  return written + close.length;
}

/** Sends `response` with one field replaced by `depth` levels of nested arrays: `[[[…]]]`. */
export function sendDeepRecord(
  res: ServerResponse,
  response: ApiResponse,
  depth: number,
  field?: string,
): void {
  const [before, after] = cut(response, field);
  const body = Buffer.from(`${before}${'['.repeat(depth)}${']'.repeat(depth)}${after}`);
  head(res, response, body.length);
  res.end(body);
}
