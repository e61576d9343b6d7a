/**
 * The HTTP server: dispatches /api/v1 and /_control, applies queued faults to API
 * requests, logs each request, and can close promptly with keep-alive sockets and held
 * (delayed) responses still open.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { routeApi } from './api.js';
import type { SimulatorControl } from './control.js';
import { routeControl } from './control-http.js';
import type { SimulatorCore } from './core.js';
import type { ActiveFault } from './faults.js';
import { sendDeepRecord, sendLargeBody } from './hostile.js';
import { type ApiResponse, BodyTooLargeError, failure, readBody, send } from './http.js';

const API_PREFIX = '/api/v1';
const CONTROL_PREFIX = '/_control';

/** A node:http server bound to one simulator, with a way to end everything it holds. */
export interface SimulatorServer {
  server: Server;
  /** Aborts held responses and destroys every open connection. */
  shutdown(): Promise<void>;
}

/** Creates the server; call `listen` on `server` to start it. */
export function createSimulatorServer(
  core: SimulatorCore,
  control: SimulatorControl,
  fallbackOrigin: () => string,
): SimulatorServer {
  const held = new Set<AbortController>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = Date.now();
    const url = new URL(req.url ?? '/', 'http://simulator.invalid');
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/$/, '') : url.pathname;
    const method = req.method ?? 'GET';
    let fault: ActiveFault | undefined;
    res.once('finish', () => {
      const entry = { method, path: url.pathname + url.search, status: res.statusCode };
      const fields = {
        ...entry,
        ms: Date.now() - started,
        ...(fault ? { fault: fault.kind } : {}),
      };
      if (fault) core.opts.logger?.warn(fields, 'simulator request (fault injected)');
      else core.opts.logger?.info(fields, 'simulator request');
    });

    const body = await readBody(req);
    if (path.startsWith(CONTROL_PREFIX) && core.opts.control) {
      send(res, routeControl(core, control, method, path.slice(CONTROL_PREFIX.length), body));
      return;
    }
    if (path !== API_PREFIX && !path.startsWith(`${API_PREFIX}/`)) {
      send(res, failure(404, `Not found: ${url.pathname}`));
      return;
    }
    const apiPath = path.slice(API_PREFIX.length);
    core.sync();
    fault = core.faults.take(apiPath);
    if (fault?.kind === 'reset') {
      core.opts.logger?.warn(
        { method, path: url.pathname + url.search, fault: 'reset' },
        'simulator request (fault injected)',
      );
      req.socket.destroy();
      return;
    }
    const immediate = fault && faultResponse(fault);
    if (immediate) {
      send(res, immediate);
      return;
    }
    if (fault?.kind === 'delay') {
      const abort = new AbortController();
      held.add(abort);
      const onClose = () => {
        if (!res.writableFinished) abort.abort(new Error('client disconnected'));
      };
      res.once('close', onClose);
      try {
        await core.opts.clock.sleep(fault.delayMs ?? 0, abort.signal);
      } catch {
        return;
      } finally {
        held.delete(abort);
        res.off('close', onClose);
      }
      if (res.destroyed) return;
      core.sync();
    }
    const host = req.headers.host;
    const response = routeApi(core, {
      method,
      path: apiPath,
      params: url.searchParams,
      authorization: req.headers.authorization,
      contentType: req.headers['content-type'],
      body,
      origin: host ? `http://${host}` : fallbackOrigin(),
    });
    if (fault?.kind === 'broken-record') breakRecord(response);
    if (fault?.kind === 'large-body' && response.status === 200) {
      const written = await sendLargeBody(res, response, fault.bytes ?? 0, fault.field);
      if (!res.writableFinished) {
        core.opts.logger?.warn(
          { method, path: url.pathname + url.search, fault: fault.kind, written },
          'simulator request (client hung up)',
        );
      }
      return;
    }
    if (fault?.kind === 'deep-record' && response.status === 200) {
      sendDeepRecord(res, response, fault.depth ?? 1, fault.field);
      return;
    }
    send(res, response, fault?.kind === 'malformed-json');
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof BodyTooLargeError) send(res, failure(413, 'Request body too large.'));
      else {
        core.opts.logger?.warn({ err: String(error) }, 'simulator request failed');
        send(res, failure(500, 'Internal server error.'));
      }
    });
  });

  return {
    server,
    shutdown: () =>
      new Promise<void>((resolve) => {
        for (const abort of held) abort.abort(new Error('simulator closing'));
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The response of a fault that replaces the real one, if this fault does. */
function faultResponse(fault: ActiveFault): ApiResponse | undefined {
  const retry =
    fault.retryAfter === undefined ? undefined : { 'Retry-After': String(fault.retryAfter) };
  switch (fault.kind) {
    case '500':
      return failure(500, 'Internal server error.');
    case '503':
      return failure(503, 'Service temporarily unavailable. Please try again later.', [], retry);
    case '429':
      return failure(429, 'Too many requests.', [], retry);
    default:
      return undefined;
  }
}

/** Breaks one field of one record of a list response, keeping the record's id valid. */
function breakRecord(response: ApiResponse): void {
  const data = response.body.data;
  if (Array.isArray(data) && data.length > 0) {
    const record = data[Math.floor(data.length / 2)] as Record<string, unknown>;
    if ('posted_at' in record) record.posted_at = 'not-a-date';
    else record.service_updated_at = 'not-a-date';
    return;
  }
  const locations = (data as { locations?: unknown } | null)?.locations;
  if (Array.isArray(locations) && locations.length > 0) {
    (locations[Math.floor(locations.length / 2)] as Record<string, unknown>).oac = 'n/a';
  }
}
