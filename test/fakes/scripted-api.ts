/**
 * A loopback HTTP server whose answers a test scripts, for upstream behaviours the
 * simulator does not have on purpose: pagination that lies, a server that ignores
 * `page`, shapes that break the spec. It records every request it receives.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
}

export interface ScriptedResponse {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON unless it is a string. */
  body: unknown;
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
    const request = {
      method: req.method ?? 'GET',
      url: new URL(req.url ?? '/', 'http://localhost'),
      headers: req.headers,
    };
    requests.push(request);
    const answer = handler(request);
    const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
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

/** A success envelope. */
export function envelope(data: unknown, meta: unknown = {}, messages: string[] = []) {
  return { status: 'success', messages, meta, data };
}
