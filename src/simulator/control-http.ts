/**
 * The control API over HTTP, outside /api/v1, so scripts and other processes can drive a
 * simulator the way in-process tests do. Served only when the `control` option is on.
 */
import { z } from 'zod';
import type { SimulatorControl } from './control.js';
import { catalogSchema, parseInput } from './control.js';
import type { SimulatorCore } from './core.js';
import { SimulatorInputError } from './errors.js';
import { type ApiResponse, failure, success } from './http.js';
import { formatDateTime } from './sim-time.js';
import type { FaultSpec } from './types.js';

const updateSchema = z.looseObject({ id: z.number().int() });
const clockSchema = z.strictObject({ advance_ms: z.number().nonnegative().finite() });

type Operation = (body: unknown) => ApiResponse;

/** Answers one /_control request; `path` is the part after /_control. */
export function routeControl(
  core: SimulatorCore,
  control: SimulatorControl,
  method: string,
  path: string,
  rawBody: string,
): ApiResponse {
  const routes: Record<string, Record<string, Operation>> = {
    '/notices': {
      POST: (body) => {
        if (body !== null && typeof body === 'object' && 'id' in body) {
          const { id, ...changes } = parseInput(updateSchema, body, 'notice update');
          return success(control.updateNotice(id, changes));
        }
        return success(control.addNotice(body as Parameters<SimulatorControl['addNotice']>[0]));
      },
    },
    '/capacity': {
      POST: (body) => success(control.publishCycle(body as never)),
    },
    '/faults': {
      POST: (body) => {
        control.injectFault(body as FaultSpec);
        return success({ queued: body });
      },
      DELETE: () => {
        control.clearFaults();
        return success({});
      },
    },
    '/catalog': {
      POST: (body) => {
        const { table, field } = parseInput(catalogSchema, body, 'catalog change');
        control.changeCatalog(table, field);
        return success(core.catalog.hashes());
      },
    },
    '/clock': {
      GET: () => success({ now: formatDateTime(core.time.nowMs()) }),
      POST: (body) => {
        control.advance(parseInput(clockSchema, body, 'clock change').advance_ms);
        return success({ now: formatDateTime(core.time.nowMs()) });
      },
    },
  };
  const route = routes[path];
  if (!route) return failure(404, `Not found: /_control${path}`);
  const operation = route[method];
  if (!operation) {
    return failure(405, `Method ${method} is not allowed for /_control${path}.`, [], {
      Allow: Object.keys(route).join(', '),
    });
  }
  try {
    return operation(parseBody(method, rawBody));
  } catch (error) {
    if (error instanceof SimulatorInputError) return failure(400, error.message);
    throw error;
  }
}

function parseBody(method: string, raw: string): unknown {
  if (method === 'GET' || method === 'DELETE' || raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    throw new SimulatorInputError('the request body is not valid JSON');
  }
}
