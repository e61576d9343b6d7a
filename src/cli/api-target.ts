/**
 * Which API a command talks to: the configured one, or, when `PIPEWATCH_API_URL` is
 * unset (demo mode), a simulator started in this process with its premium user. The
 * simulator is loaded only then: a daemon watching the real API does not hold it.
 */
import type { Simulator } from '../simulator/index.js';
import { PipelineApiClient } from '../upstream/client.js';
import type { CliContext } from './context.js';

export interface ApiTarget {
  client: PipelineApiClient;
  /** The simulator serving demo mode, if any. */
  simulator: Simulator | undefined;
  close(): Promise<void>;
}

/** Builds the client from the configuration, starting a simulator in demo mode. */
export async function openApi(
  ctx: CliContext,
  simulatorOptions: {
    live?: boolean;
    speed?: number;
    noticesPerHour?: number;
    startAt?: Date;
  } = {},
): Promise<ApiTarget> {
  const { api } = ctx.config;
  let simulator: Simulator | undefined;
  let baseUrl = api.url;
  let user = api.user;
  let key = api.key;
  if (baseUrl === null) {
    const { simulatorDefaults, startSimulator } = await import('../simulator/index.js');
    simulator = await startSimulator({ ...simulatorOptions, clock: ctx.clock });
    const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
    baseUrl = simulator.url;
    user = premium.username;
    key = premium.key;
    ctx.logger.info(
      { url: simulator.url },
      'PIPEWATCH_API_URL is not set: using the built-in simulator (demo mode)',
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
