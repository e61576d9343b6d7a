/**
 * Steps the stories of the chat apps share when pipewatch runs as a process: stopping a
 * daemon as an operator does, and the constraint a channel subscribed from chat is
 * waiting for.
 */
import { expect } from 'vitest';
import type { DaemonProcess } from '../fakes/daemon-process.js';
import type { SimulatedApi } from '../fakes/simulated-api.js';

/** Stops a daemon with SIGTERM; it must exit 0 having logged no error. */
export async function stopCleanly(d: DaemonProcess): Promise<void> {
  expect(await d.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  expect(d.logs().filter((l) => l.level >= 50)).toEqual([]);
}

/** A new Transco capacity constraint at the simulator: what `subscribe transco type:constraint` waits for. */
export function addTranscoConstraint(api: SimulatedApi) {
  return api.sim.control.addNotice({
    pipeline_slug: 'transco',
    type: 'Capacity Constraint',
    category: 'Critical',
    status: 'Initiate',
    subject: 'Capacity Constraint - Station 180 - Zone 6 deliveries',
    response_at: '',
  });
}
