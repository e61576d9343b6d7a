/**
 * Which API a command talks to: the configured one, or a simulator started in this
 * process with its premium user: when asked for (`demo`, `run --simulator`), or for the
 * read-only `api` commands when `PIPEWATCH_API_URL` is unset. The simulator is loaded only
 * then: a daemon watching the real API does not hold it.
 */
import type { Simulator } from '../simulator/index.js';
import { PipelineApiClient } from '../upstream/client.js';
import type { CliContext } from './context.js';

export interface ApiTarget {
  client: PipelineApiClient;
  /** The simulator watched, when it is the one (`demo`, `run --simulator`, `api` without a URL). */
  simulator: Simulator | undefined;
  close(): Promise<void>;
}

/** How a simulator started for a command runs. */
export interface SimulatorSetup {
  live?: boolean;
  speed?: number;
  noticesPerHour?: number;
  startAt?: Date;
  swing?: boolean;
}

/**
 * Builds the client: the simulator's when `source` is `simulator` (whatever
 * `PIPEWATCH_API_URL` says), else the configured API's, or a simulator's when none is
 * configured.
 */
export async function openApi(
  ctx: CliContext,
  simulatorOptions: SimulatorSetup = {},
  source: 'simulator' | 'configured' = 'configured',
): Promise<ApiTarget> {
  const { api } = ctx.config;
  let simulator: Simulator | undefined;
  let baseUrl = source === 'simulator' ? null : api.url;
  let user = api.user;
  let key = api.key;
  if (baseUrl === null) {
    const { simulatorDefaults, startSimulator } = await import('../simulator/index.js');
    simulator = await startSimulator({ ...simulatorOptions, clock: ctx.clock });
    const premium = simulatorDefaults.users.find((u) => u.plan === 'premium');
    if (!premium) throw new Error('the simulator has no premium user to call itself with');
    baseUrl = simulator.url;
    user = premium.username;
    key = premium.key;
    ctx.logger.info(
      { url: simulator.url },
      'watching the built-in simulator: its notices and capacity are invented',
    );
  }
  const client = new PipelineApiClient({
    baseUrl,
    user,
    key,
    clock: ctx.clock,
    logger: ctx.logger,
    rateLimit: { maxConcurrent: api.concurrency, minTimeMs: Math.ceil(1000 / api.ratePerSecond) },
    maxBodyBytes: api.maxBodyBytes,
    timeouts: {
      connectMs: api.timeoutMs,
      headersMs: api.timeoutMs,
      bodyMs: api.timeoutMs,
      totalMs: api.timeoutMs * 2,
    },
  });
  return {
    client,
    simulator,
    close: async () => {
      await client.close();
      await simulator?.close();
    },
  };
}
