/**
 * The daemon's HTTP endpoints, served from what the daemon reports, and a word in the log
 * about who can reach them when they listen beyond loopback.
 */
import type { HealthReport } from '../http/health.js';
import type { Metrics } from '../http/metrics.js';
import { type FullStatus, publicStatus } from '../http/public-view.js';
import { type RunningHttpServer, startHttpServer } from '../http/server.js';
import type { HttpRoute } from '../lib/http-route.js';
import type { Logger } from '../lib/logger.js';

/** What the endpoints show: health with error codes only, and the full status. */
export interface DaemonReports {
  publicHealth(): Promise<HealthReport>;
  status(): Promise<FullStatus>;
}

/** Where the endpoints listen and who may read the full status. */
export interface DaemonHttpOptions {
  port: number;
  /** Address the port listens on; default loopback. */
  host?: string | undefined;
  /** Bearer token of the full `/status`. */
  statusToken?: string | undefined;
  metrics: Metrics;
  logger: Logger;
  /** Endpoints other parts mount (`POST /slack/events`). */
  routes?: readonly HttpRoute[];
}

/** Serves `/healthz`, `/status` and `/metrics` from `reports`, read afresh on each request. */
export function startDaemonHttp(
  reports: DaemonReports,
  options: DaemonHttpOptions,
): Promise<RunningHttpServer> {
  return startHttpServer({
    port: options.port,
    host: options.host,
    statusToken: options.statusToken,
    metrics: options.metrics,
    logger: options.logger,
    routes: options.routes ?? [],
    health: () => reports.publicHealth(),
    status: () => reports.status(),
    publicStatus: async () => publicStatus(await reports.status(), await reports.publicHealth()),
  });
}

/** Says what a port listening beyond loopback serves to whom. */
export function reportExposure(logger: Logger, http: RunningHttpServer, withToken: boolean): void {
  if (http.loopback) return;
  const fields = { listening: http.listening, statusToken: withToken };
  if (withToken)
    logger.info(
      fields,
      `HTTP on ${http.listening}, reachable from other hosts: /healthz and /metrics are open, /status needs the status token`,
    );
  else
    logger.warn(
      fields,
      `HTTP on ${http.listening}, reachable from other hosts, without PIPEWATCH_STATUS_TOKEN: /status refuses every request; /healthz and /metrics are open`,
    );
}
