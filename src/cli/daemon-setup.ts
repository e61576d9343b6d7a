/**
 * What a daemon is started with: the settings read from the environment and the command
 * line, and the parts a test or the demo puts in place of the real ones.
 */
import type { ChatLimits } from '../chat/limits.js';
import type { Config } from '../config/index.js';
import type { ChannelConfig } from '../delivery/channels.js';
import type { Target } from '../domain/targets.js';
import type { IngestHooks } from '../ingest/events.js';
import type { FeedSettings } from '../ingest/feeds.js';
import type { Clock } from '../lib/clock.js';
import type { ApiTarget, SimulatorSetup } from './api-target.js';

/** What `Daemon.create` starts from. */
export interface DaemonSetup {
  settings: FeedSettings;
  dataDir: string;
  /**
   * `PIPEWATCH_DATABASE_URL`: the PostgreSQL store replicas share, the lease deciding
   * which of them leads; undefined: SQLite in `dataDir`, this process alone.
   */
  databaseUrl?: string | undefined;
  /** `PIPEWATCH_LEADER_LEASE`, on PostgreSQL; default the lease's own (15 s). */
  leaderLeaseMs?: number | undefined;
  rulesDir: string;
  /** HTTP port; undefined: no HTTP server. */
  httpPort?: number | undefined;
  /** Address the HTTP port listens on; default loopback. */
  httpHost?: string | undefined;
  /** Bearer token of the full `/status`. */
  statusToken?: string | undefined;
  /** Ingest events, besides deciding alerts on them (the demo prints them). */
  hooks?: IngestHooks;
  /** Credentials of the delivery channels. */
  channels: ChannelConfig;
  delivery: Config['delivery'];
  /** Where operations alerts go: schema drift, outages (`alerts/outages.ts`). */
  opsTarget?: Target | undefined;
  /**
   * `PIPEWATCH_HEARTBEAT_URL`: pinged after each notices poll while the daemon runs, and
   * once at the end of `runOnce`; undefined: none (the demo never pings).
   */
  heartbeatUrl?: string | undefined;
  /** Where console alerts are printed. */
  print: (text: string) => void;
  /** Print alerts for channels that are not configured (the demo) instead of refusing them. */
  standIn?: boolean;
  /** `PIPEWATCH_SECRET_KEY`: the key of unsubscribe links; unset, one kept in the database. */
  secretKey?: string | undefined;
  /** Values scrubbed from anything delivery records (tokens, passwords). */
  secrets?: readonly string[];
  /** How often due reminders are decided. */
  alertsIntervalMs?: number;
  /**
   * What stops it; default the context's signal, which also fires once stdout or stderr is
   * gone. `run` passes the process's stop signal alone: its work is the alerts it sends,
   * and a log pipe that breaks must not switch them off.
   */
  signal?: AbortSignal;
  /** How long `runOnce` waits for retries that fall due soon. */
  onceDrainMs?: number;
  /**
   * Answer people in chat: the chat core, and the Slack app when its credentials are set;
   * undefined (`run --once`): alerts only. `admins` is `PIPEWATCH_CHAT_ADMINS`.
   */
  chat?: { admins: readonly string[]; limits?: Partial<ChatLimits> | undefined } | undefined;
  /**
   * Watch a simulator started in this process, with these options (`run --simulator`);
   * undefined: the API of `PIPEWATCH_API_URL`.
   */
  simulator?: SimulatorSetup | undefined;
  /** An API already opened (the demo opens its simulator first); closed with the daemon. */
  api?: ApiTarget;
  /**
   * The time of polling, decisions and the outbox; default the context's. The demo runs
   * it as fast as its simulator. Channels always pace by the context's clock, the
   * platforms' limits being in real time.
   */
  clock?: Clock;
}
