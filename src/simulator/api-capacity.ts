/**
 * GET /ip/capacity/{slug}: one cycle of operationally available capacity, resolved from
 * the `cycle` and `gas_day` parameters against the NAESB posting timeline.
 */
import { isDate, NOMINATION_CYCLES } from '../domain/gas-day.js';
import { DEMO_CAPACITY_SLUG, type SimulatorCore } from './core.js';
import { type ApiResponse, failure, success } from './http.js';
import type { SimulatorUser } from './options.js';
import { pipelineBySlug } from './pipelines.js';
import type { CycleQuery } from './types.js';

const CYCLE_QUERIES: readonly CycleQuery[] = ['latest', ...NOMINATION_CYCLES];

/** The response to GET /ip/capacity/{slug}. */
export function capacityResponse(
  core: SimulatorCore,
  user: SimulatorUser,
  slug: string,
  params: URLSearchParams,
): ApiResponse {
  const demo = user.plan === 'demo';
  const messages = demo ? [core.demoMessage] : [];
  if (demo && slug !== DEMO_CAPACITY_SLUG) {
    return failure(
      403,
      `The demo account can only access capacity for ${DEMO_CAPACITY_SLUG}.`,
      messages,
    );
  }
  const pipeline = pipelineBySlug(slug);
  if (!pipeline) return failure(404, `Unknown pipeline '${slug}'.`, messages);
  if (!pipeline.capacity) {
    return failure(404, `Capacity data is not available for pipeline '${slug}'.`, messages);
  }
  const cycleParam = params.get('cycle') ?? 'latest';
  const cycle = CYCLE_QUERIES.find((c) => c === cycleParam);
  if (!cycle) {
    return failure(
      400,
      `Invalid cycle '${cycleParam}': expected one of ${CYCLE_QUERIES.join(', ')}.`,
      messages,
    );
  }
  let gasDay = params.get('gas_day') ?? undefined;
  if (gasDay !== undefined && !isDate(gasDay)) {
    return failure(400, `Invalid gas_day '${gasDay}': expected a date as YYYY-MM-DD.`, messages);
  }
  if (demo) {
    if (gasDay !== undefined && gasDay !== core.demoGasDay) {
      return failure(
        403,
        `The demo account can only access capacity for gas day ${core.demoGasDay}.`,
        messages,
      );
    }
    gasDay = core.demoGasDay;
  }
  const horizon = core.horizon();
  const ref = core.capacity.resolve(slug, cycle, gasDay, horizon);
  if (!ref) {
    const day = gasDay === undefined ? '' : `, gas day ${gasDay}`;
    return failure(404, `No capacity data found for ${slug}, cycle ${cycle}${day}.`, messages);
  }
  const data = core.capacity.result(pipeline, ref, horizon);
  if (pipeline.capacity.beta) {
    messages.push(
      `Capacity data for ${pipeline.name} is in beta: values and locations may change.`,
    );
  }
  return success(data, { total_locations: data.locations.length }, messages);
}
