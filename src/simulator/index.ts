/**
 * A local, faithful simulator of the Pipeline Information API, for the demo, the tests
 * and dry runs without internet. It speaks only the wire format: nothing here knows the
 * pipewatch client.
 */
import type { AddressInfo } from 'node:net';
import { createControl, type SimulatorControl } from './control.js';
import { SimulatorCore } from './core.js';
import { resolveOptions, type SimulatorOptions } from './options.js';
import { createSimulatorServer } from './server.js';

export type { SimulatorControl } from './control.js';
export { SimulatorInputError } from './errors.js';
export { type SimulatorOptions, type SimulatorUser, simulatorDefaults } from './options.js';
export type * from './types.js';

/** A running simulator. */
export interface Simulator {
  /** The service's base_url, e.g. "http://127.0.0.1:43211"; clients append /api/v1. */
  url: string;
  port: number;
  /** Simulated time. */
  now(): Date;
  /** The control operations, for in-process tests. */
  control: SimulatorControl;
  /** Closes the server and its open keep-alive sockets promptly. */
  close(): Promise<void>;
}

/** Starts a simulator on `host:port` (default 127.0.0.1 and a free port). */
export async function startSimulator(
  opts: Partial<SimulatorOptions> & { port?: number; host?: string } = {},
): Promise<Simulator> {
  const { port = 0, host = '127.0.0.1', ...rest } = opts;
  const core = new SimulatorCore(resolveOptions(rest));
  const control = createControl(core);
  let url = '';
  const { server, shutdown } = createSimulatorServer(core, control, () => url);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  url = `http://${urlHost(host)}:${bound}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    port: bound,
    now: () => core.time.now(),
    control,
    close: () => {
      closing ??= shutdown();
      return closing;
    },
  };
}

/** A host clients can connect to: wildcard addresses become loopback. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
