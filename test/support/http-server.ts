/**
 * The daemon's HTTP server with nothing behind its own endpoints, for tests (and benches)
 * of what other parts mount on it: the Slack and Discord apps, unsubscribe links. They
 * go through the server's real routing, limits and timeouts, as in the daemon.
 */
import { Metrics } from '../../src/http/metrics.js';
import { type RunningHttpServer, startHttpServer } from '../../src/http/server.js';
import { assessHealth } from '../../src/ingest/health.js';
import type { HttpRoute } from '../../src/lib/http-route.js';
import { type Logger, silentLogger } from '../../src/lib/logger.js';
import type { UnverifiedLimits } from '../../src/lib/request-body.js';

/** What a test changes of the server. */
export interface ServeRoutesOptions {
  /** Default silent. */
  logger?: Logger;
  /** Default the server's own (`REQUEST_TIMEOUT_MS`). */
  requestTimeoutMs?: number;
  /** What bodies get before they are trusted; default the server's own (`UNVERIFIED_LIMITS`). */
  unverified?: Partial<UnverifiedLimits>;
}

/** The server on a free loopback port with `routes` mounted; its own endpoints say little. */
export function serveRoutes(
  routes: readonly HttpRoute[],
  options: ServeRoutesOptions = {},
): Promise<RunningHttpServer> {
  return startHttpServer({
    port: 0,
    requestTimeoutMs: options.requestTimeoutMs,
    unverified: options.unverified,
    metrics: new Metrics({ processMetrics: false }),
    logger: options.logger ?? silentLogger,
    health: async () => assessHealth([], [], new Date(0), new Date(0)),
    status: async () => ({}),
    publicStatus: async () => ({}),
    routes,
  });
}
