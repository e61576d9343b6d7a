/**
 * What the chat core is given by whoever runs it (the daemon): the database (the
 * asynchronous store, which a standby replica shares with the leader), the engine
 * that puts subscriptions in force, the time, and the policy and limits it applies.
 */
import type { AlertEngine } from '../alerts/engine.js';
import type { Target, TargetKind } from '../domain/targets.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { KnownLocation } from '../rules/location-check.js';
import type { AsyncStore } from '../store/async-store.js';
import type { ChatLimits } from './limits.js';
import type { ChatPolicy } from './permissions.js';

export interface ChatCoreDeps {
  store: AsyncStore;
  engine: AlertEngine;
  clock: Clock;
  logger: Logger;
  policy: ChatPolicy;
  /** Where a channel that went away is reported. */
  opsTarget?: Target | undefined;
  /** Called when something was queued for delivery (the operations alert of a channel gone). */
  wake?: (() => void) | undefined;
  /**
   * The setting missing for alerts of `kind` to go out (`DISCORD_BOT_TOKEN`), undefined
   * when they can: a subscription whose alerts could never arrive is refused. Unset:
   * every kind can.
   */
  undelivered?: ((kind: TargetKind) => string | undefined) | undefined;
  /** How much chat may store (`chat/limits.ts`); each one unset: its variable's default. */
  limits?: Partial<ChatLimits> | undefined;
  /**
   * The API's latest locations of a pipeline, asked for when an `oac` names a pipeline
   * with no capacity stored in the last 7 days, so that its location is checked before
   * anything is stored. Unset: such a location is taken unchecked, and the daemon checks
   * it when that capacity arrives.
   */
  latestLocations?: ((slug: string) => Promise<readonly KnownLocation[]>) | undefined;
}
