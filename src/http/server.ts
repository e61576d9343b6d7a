/**
 * The daemon's HTTP endpoints: `/healthz` (200 or 503 with the reasons), `/status`
 * (JSON) and `/metrics` (Prometheus text), and the routes other parts mount on it
 * (`POST /slack/events`, `GET` and `POST` under `/unsubscribe/`), which answer their own
 * requests: the server knows only their method and path, and gives them the one budget
 * their bodies are read within until they are trusted (`UnverifiedBodies`), so that a
 * flood of forged requests holds a bounded amount of memory whatever route it aims at.
 * A mounted `GET` answers `HEAD` too; the server's own paths cannot be mounted over.
 *
 * It listens on loopback unless told otherwise. `/healthz` and `/metrics` are open: the
 * first says healthy or not per feed with error codes only, the second's labels are fixed
 * vocabularies (feeds, results, error codes, channel kinds). `/status` in full needs the
 * status token as a bearer token; without one, a loopback address serves its public
 * summary (see `public-view.ts`) and any other address refuses it, so that a reverse
 * proxy on the same host cannot make a remote reader look local.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { BlockList, isIPv6 } from 'node:net';
import type { HttpRoute } from '../lib/http-route.js';
import type { Logger } from '../lib/logger.js';
import { UnverifiedBodies, type UnverifiedLimits } from '../lib/request-body.js';
import type { HealthReport } from './health.js';
import type { Metrics } from './metrics.js';
import { healthBody } from './public-view.js';

/** Where the server listens when not told: loopback only. */
export const DEFAULT_HOST = '127.0.0.1';

/** The server's own paths, which no route may take. */
const OWN_PATHS = ['/healthz', '/status', '/metrics'];

/** Refuses routes that would shadow the server's own paths or every path. */
function checkRoutes(routes: readonly HttpRoute[]): void {
  for (const r of routes) {
    if (!r.path.startsWith('/')) throw new Error(`HTTP route ${r.path}: a path begins with '/'`);
    if (r.prefix && (r.path === '/' || !r.path.endsWith('/')))
      throw new Error(`HTTP route ${r.path}: a prefix ends with '/' and is not '/' alone`);
    const own = OWN_PATHS.find((p) => (r.prefix ? p.startsWith(r.path) : p === r.path));
    if (own) throw new Error(`HTTP route ${r.path}: ${own} is the server's own`);
  }
}

/** The routes mounted on `path`: those on it exactly, else those of its longest prefix. */
function routesFor(routes: readonly HttpRoute[], path: string): HttpRoute[] {
  const exact = routes.filter((r) => !r.prefix && r.path === path);
  if (exact.length > 0) return exact;
  const prefixed = routes.filter((r) => r.prefix && path.startsWith(r.path));
  const longest = Math.max(0, ...prefixed.map((r) => r.path.length));
  return prefixed.filter((r) => r.path.length === longest);
}

/** The methods a path's routes take, a `GET` taking `HEAD` too. */
function allowed(mounted: readonly HttpRoute[]): string {
  const methods: string[] = mounted.map((r) => r.method);
  if (methods.includes('GET')) methods.push('HEAD');
  return [...new Set(methods)].join(', ');
}

/**
 * Connections the kernel holds until the server accepts them (capped by the kernel's
 * `net.core.somaxconn`, 4096 on current Linux). With Node's default of 511, a burst of
 * more connections than that while the event loop is busy (a flood of forged requests)
 * has its excess dropped, and a monitor's connection among them waits for its SYN to be
 * sent again, a second or more later: `/healthz` would look stalled when it is not.
 */
export const LISTEN_BACKLOG = 4096;

/** How long a client has to send a whole request, headers and body; then 408 and closed. */
export const REQUEST_TIMEOUT_MS = 15_000;

/** The longest delay a Node timer takes: Node's own connection checks never come. */
const NEVER_MS = 2 ** 31 - 1;

/**
 * A client that drips its request (a slow-loris) is cut off with 408 once `timeoutMs`
 * passed since it connected or since its last answer, without its whole request: Slack's
 * requests are small and sent at once. Each connection has one timer, cleared when it
 * closes, so that a server nobody talks to runs nothing.
 */
export function cutOffDrips(server: Server, timeoutMs: number): void {
  const open = new WeakMap<
    Socket,
    { timer?: NodeJS.Timeout; req?: IncomingMessage; res?: ServerResponse }
  >();
  const arm = (socket: Socket) => {
    const state = open.get(socket);
    if (!state || socket.destroyed) return;
    clearTimeout(state.timer);
    state.timer = setTimeout(() => {
      if (state.req?.complete) return;
      if (state.res?.headersSent) socket.destroy();
      else
        socket.end(
          'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n',
        );
    }, timeoutMs);
  };
  server.on('connection', (socket: Socket) => {
    open.set(socket, {});
    arm(socket);
    socket.once('close', () => clearTimeout(open.get(socket)?.timer));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const state = open.get(req.socket);
    if (!state) return;
    state.req = req;
    state.res = res;
    res.once('finish', () => {
      state.req = undefined;
      state.res = undefined;
      arm(req.socket);
    });
  });
}

export interface HttpServerDeps {
  port: number;
  /** How long a client has to send a whole request (default `REQUEST_TIMEOUT_MS`). */
  requestTimeoutMs?: number;
  /** Address to listen on; default loopback (`DEFAULT_HOST`). */
  host?: string;
  /** Bearer token of the full `/status`; unset: nobody gets it over HTTP. */
  statusToken?: string | undefined;
  metrics: Metrics;
  /** Health for `/healthz`, built from states whose errors are codes (`withErrorCodes`). */
  health: () => Promise<HealthReport>;
  /** The full status, for a reader with the token. */
  status: () => Promise<unknown>;
  /** The status without addresses or error text, for a reader without it on loopback. */
  publicStatus: () => Promise<unknown>;
  /** Endpoints mounted besides the server's own. */
  routes?: readonly HttpRoute[] | undefined;
  /** What the routes' bodies get before they are trusted (default `UNVERIFIED_LIMITS`). */
  unverified?: Partial<UnverifiedLimits> | undefined;
  logger: Logger;
}

export interface RunningHttpServer {
  /** A URL that reaches the server from this host. */
  url: string;
  port: number;
  /** The address and port it listens on (`0.0.0.0:8080`: every interface). */
  listening: string;
  /** Whether only this host can reach it. */
  loopback: boolean;
  /** The routes' bodies read before they are trusted: what they hold now and at most. */
  bodies: UnverifiedBodies;
  close(): Promise<void>;
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/** Whether listening on `host` keeps the port to this machine. */
export function isLoopbackHost(host: string): boolean {
  if (host.toLowerCase() === 'localhost') return true;
  try {
    return LOOPBACK.check(host, isIPv6(host) ? 'ipv6' : 'ipv4');
  } catch {
    return false;
  }
}

/** Compares tokens in constant time: both are hashed first, so lengths leak nothing either. */
function sameToken(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

type Access = 'full' | 'public' | { refused: string; invalidToken: boolean };

/** Who may read `/status`, from the `Authorization` header and where the server listens. */
function statusAccess(
  req: IncomingMessage,
  token: string | undefined,
  loopback: boolean,
  where: string,
): Access {
  const header = req.headers.authorization;
  if (header !== undefined) {
    const given = /^Bearer +(\S+) *$/i.exec(header)?.[1];
    if (token !== undefined && given !== undefined && sameToken(given, token)) return 'full';
    return { refused: 'the bearer token is not the status token', invalidToken: true };
  }
  if (loopback) return 'public';
  return {
    refused:
      token === undefined
        ? `/status is not served on ${where} without PIPEWATCH_STATUS_TOKEN; run \`pipewatch status\` on the host`
        : '/status needs Authorization: Bearer <PIPEWATCH_STATUS_TOKEN>',
    invalidToken: false,
  };
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(`${JSON.stringify(body, null, 2)}\n`);
}

/** `host:port`, IPv6 in brackets. */
function hostPort(host: string, port: number): string {
  return isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Starts the server; `port` 0 picks a free one. */
export async function startHttpServer(deps: HttpServerDeps): Promise<RunningHttpServer> {
  const host = deps.host ?? DEFAULT_HOST;
  const loopback = isLoopbackHost(host);
  const routes = deps.routes ?? [];
  checkRoutes(routes);
  const bodies = new UnverifiedBodies(deps.unverified);
  const handle = async (req: IncomingMessage, res: ServerResponse, where: string) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const mounted = routesFor(routes, path);
    if (mounted.length > 0) {
      const method = req.method === 'HEAD' ? 'GET' : req.method;
      const route = mounted.find((r) => r.method === method);
      if (route) await route.handle(req, res, bodies);
      else res.writeHead(405, { allow: allowed(mounted) }).end();
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/healthz') {
      const report = await deps.health();
      json(res, report.healthy ? 200 : 503, healthBody(report));
    } else if (path === '/status') {
      const access = statusAccess(req, deps.statusToken, loopback, where);
      if (access === 'full') json(res, 200, await deps.status());
      else if (access === 'public') json(res, 200, await deps.publicStatus());
      else {
        const challenge = access.invalidToken
          ? 'Bearer realm="pipewatch", error="invalid_token"'
          : 'Bearer realm="pipewatch"';
        json(res, 401, { error: access.refused }, { 'www-authenticate': challenge });
      }
    } else if (path === '/metrics') {
      const text = await deps.metrics.text();
      res.writeHead(200, { 'content-type': deps.metrics.contentType });
      res.end(text);
    } else {
      json(res, 404, {
        error: `not found: ${path}`,
        endpoints: [
          ...OWN_PATHS,
          ...new Set(routes.map((r) => (r.prefix ? `${r.path}…` : r.path))),
        ],
      });
    }
  };
  let where = host;
  const requestTimeout = deps.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  // Node's own request timeouts are checked by an interval that runs as long as the
  // server listens, waking an idle daemon; it is pushed out of reach, and each connection
  // gets a timer of its own instead (`cutOffDrips`), which exists only while it is open.
  const server = createServer({ connectionsCheckingInterval: NEVER_MS }, (req, res) => {
    handle(req, res, where).catch((error: unknown) => {
      deps.logger.error({ err: error, path: req.url }, 'http handler failed');
      if (!res.headersSent) json(res, 500, { error: 'internal error' });
      else res.end();
    });
  });
  cutOffDrips(server, requestTimeout);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: deps.port, host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  where = hostPort(address, port);
  // A wildcard address is reached locally through loopback.
  const local = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return {
    url: `http://${hostPort(local, port)}`,
    port,
    listening: where,
    loopback,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
