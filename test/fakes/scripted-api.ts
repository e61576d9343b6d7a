/**
 * A loopback HTTP server whose answers a test scripts, for upstream behaviours the
 * simulator does not have on purpose: pagination that lies, a server that ignores
 * `page`, shapes that break the spec, bodies streamed without end. It records every
 * request it receives, and how much of each answer it got to send.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeChunk } from '../../src/simulator/hostile.js';

export interface ScriptedRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  /** Bytes of the answer's body written so far; for a stream, until the client hung up. */
  sent: number;
  /** The answer was written to its end. */
  finished: boolean;
}

export interface ScriptedResponse {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON unless it is a string. */
  body?: unknown;
  /** Sent chunk by chunk instead of `body`, as the client takes them, until it hangs up. */
  stream?: Iterable<Buffer | string>;
}

export interface ScriptedApi {
  url: string;
  requests: ScriptedRequest[];
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1 answering each request with `handler`'s response. */
export async function startScriptedApi(
  handler: (req: ScriptedRequest) => ScriptedResponse,
): Promise<ScriptedApi> {
  const requests: ScriptedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const request: ScriptedRequest = {
      method: req.method ?? 'GET',
      url: new URL(req.url ?? '/', 'http://localhost'),
      headers: req.headers,
      sent: 0,
      finished: false,
    };
    requests.push(request);
    const answer = handler(request);
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
    if (answer.stream) {
      void stream(res, answer.stream, request);
      return;
    }
    const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    request.sent = Buffer.byteLength(body);
    request.finished = true;
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes the chunks as fast as the client reads them; stops when it hangs up. */
async function stream(
  res: ServerResponse,
  chunks: Iterable<Buffer | string>,
  request: ScriptedRequest,
): Promise<void> {
  for (const chunk of chunks) {
    if (res.destroyed) return;
    const written = writeChunk(res, chunk);
    request.sent += Buffer.byteLength(chunk);
    if (!(await written)) return;
  }
  res.end();
  request.finished = true;
}

/** `count` chunks of `size` bytes, made one at a time: a body of any size in little memory. */
export function* chunks(first: string, size: number, count: number, last = ''): Generator<Buffer> {
  yield Buffer.from(first);
  const chunk = Buffer.alloc(size, 'x');
  for (let i = 0; i < count; i++) yield chunk;
  if (last) yield Buffer.from(last);
}

/** A success envelope. */
export function envelope(data: unknown, meta: unknown = {}, messages: string[] = []) {
  return { status: 'success', messages, meta, data };
}
