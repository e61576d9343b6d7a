/**
 * The daemon's HTTP endpoints: `/healthz` (200 or 503 with the reasons), `/status`
 * (JSON) and `/metrics` (Prometheus text). Later stages mount their endpoints here too.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../lib/logger.js';
import type { HealthReport } from './health.js';
import type { Metrics } from './metrics.js';

export interface HttpServerDeps {
  port: number;
  host?: string;
  metrics: Metrics;
  health: () => HealthReport;
  status: () => unknown;
  logger: Logger;
}

export interface RunningHttpServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
  });
  res.end(`${JSON.stringify(body, null, 2)}\n`);
}

/** Starts the server; `port` 0 picks a free one. */
export async function startHttpServer(deps: HttpServerDeps): Promise<RunningHttpServer> {
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/healthz') {
      const report = deps.health();
      const reasons = report.feeds.flatMap((f) => (f.reason ? [f.reason] : []));
      reasons.push(...(report.delivery?.reasons ?? []));
      json(res, report.healthy ? 200 : 503, {
        status: report.healthy ? 'ok' : 'unhealthy',
        reasons,
        feeds: report.feeds,
        ...(report.delivery ? { delivery: report.delivery } : {}),
      });
    } else if (path === '/status') {
      json(res, 200, deps.status());
    } else if (path === '/metrics') {
      const text = await deps.metrics.text();
      res.writeHead(200, { 'content-type': deps.metrics.contentType });
      res.end(text);
    } else {
      json(res, 404, {
        error: `not found: ${path}`,
        endpoints: ['/healthz', '/status', '/metrics'],
      });
    }
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      deps.logger.error({ err: error, path: req.url }, 'http handler failed');
      if (!res.headersSent) json(res, 500, { error: 'internal error' });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.port, deps.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
