/**
 * The first steps of starting a daemon, each refusing to go on with a reason a person can
 * act on, and closing what it opened: the rules read, the channels opened and checked
 * against them, the store and the API opened.
 */
import { storedCharts } from '../channels/charts.js';
import type { ChatCore } from '../chat/service.js';
import { ConfigError } from '../config/index.js';
import { Channels } from '../delivery/channels.js';
import { errorMessage } from '../lib/error-text.js';
import { toUtcIso } from '../lib/time.js';
import { RulesInvalidError } from '../rules/errors.js';
import { loadRules } from '../rules/loader.js';
import type { Rule } from '../rules/types.js';
import type { AsyncStore } from '../store/async-store.js';
import { type OpenedStore, openStore } from '../store/open.js';
import { type ApiTarget, openApi } from './api-target.js';
import type { CliContext } from './context.js';
import { discordAppSettings, slackAppSettings } from './daemon-chat.js';
import { unconfiguredOpsTarget, unconfiguredTargets } from './daemon-checks.js';
import { type Lead, SoleLeader, thisReplica } from './daemon-roles.js';
import type { DaemonSetup } from './daemon-setup.js';

/** The rules of the rule files, refused whole when any is invalid. */
export function rulesInForce(ctx: CliContext, setup: DaemonSetup): Rule[] {
  const loaded = loadRules(setup.rulesDir, { cwd: ctx.io.cwd });
  if (loaded.problems.length > 0) throw new RulesInvalidError(loaded.problems);
  ctx.logger.info(
    { rules: loaded.rules.length, files: loaded.files.length },
    `rules: ${loaded.rules.length} in force`,
  );
  return loaded.rules;
}

/**
 * The channels, with buttons where an app answers them, refused (and closed) when the
 * operations target or a rule's target names a channel that is not set up.
 */
export async function openChannels(
  ctx: CliContext,
  setup: DaemonSetup,
  rules: readonly Rule[],
  late: { chat?: ChatCore; linkKey?: string; store?: AsyncStore },
): Promise<Channels> {
  // Charts read the store once it is open; alerts sent before then go without.
  const history = () => {
    const capacity = late.store?.capacity;
    return capacity ? capacity.oacHistory.bind(capacity) : undefined;
  };
  const channels = await Channels.create(
    setup.channels,
    { clock: ctx.clock, logger: ctx.logger, charts: storedCharts(history) },
    {
      print: setup.print,
      standIn: setup.standIn ?? false,
      // Buttons go on Slack alerts whenever the app is set up, whichever process answers them.
      slackInteractive: slackAppSettings(setup.channels.slack) !== undefined,
      // Components go on Discord alerts whenever Discord's interactions can be verified.
      discordInteractive: discordAppSettings(setup.channels.discord) !== undefined,
      onChannelGone: (platform, channel, reason) =>
        late.chat?.channelGone(platform, channel, reason),
      unsubscribeKey: () => late.linkKey,
    },
  );
  const opsProblem = unconfiguredOpsTarget(setup.opsTarget, channels, setup.standIn ?? false);
  if (opsProblem) {
    await channels.close();
    throw new ConfigError([opsProblem]);
  }
  const missing = setup.standIn ? [] : unconfiguredTargets(rules, channels);
  if (missing.length > 0) {
    await channels.close();
    throw new RulesInvalidError(missing);
  }
  return channels;
}

/**
 * The store, then the API (configured, or a simulator); the channels closed when either
 * fails. On PostgreSQL, the lease too (not yet started: `Terms.run` starts it), whose
 * term fences the store's sending writes; on SQLite, the run lock and the sole leader.
 */
export async function openStoreAndApi(
  ctx: CliContext,
  setup: DaemonSetup,
  channels: Channels,
): Promise<{ opened: OpenedStore; lead: Lead; target: ApiTarget }> {
  const warn = (message: string) => ctx.logger.warn(message);
  let lead: Lead = new SoleLeader();
  let opened: OpenedStore | undefined;
  try {
    if (setup.databaseUrl !== undefined) {
      const lease = await leaseOn(ctx, setup.databaseUrl, setup.leaderLeaseMs);
      lead = lease;
      opened = await openStore(
        { dataDir: setup.dataDir, databaseUrl: setup.databaseUrl },
        {
          warn,
          info: (message) => ctx.logger.info(message),
          fence: () => lease.fence(),
          // A statement never answered (the connection silently lost) fails within a
          // lease, so the work of a term cut off ends before this replica may lead again.
          queryTimeoutMs: lease.leaseMs,
          onPoolError: (error) =>
            ctx.logger.warn(
              `database: a connection failed while idle and is replaced: ${error.message}`,
            ),
        },
      );
    } else {
      opened = await openStore(
        { dataDir: setup.dataDir },
        { warn, runLock: { now: toUtcIso((setup.clock ?? ctx.clock).now()) } },
      );
    }
    const target =
      setup.api ??
      (setup.simulator
        ? await openApi(ctx, setup.simulator, 'simulator')
        : await openApi(ctx, {}, 'configured'));
    return { opened, lead, target };
  } catch (error) {
    await opened?.close();
    await lead.stop();
    await channels.close();
    throw error;
  }
}

/**
 * The leader lease on a pool of its own (one connection: a renewal never waits behind
 * the store's work), its failures said once when they begin and once when they end.
 */
async function leaseOn(ctx: CliContext, url: string, leaseMs: number | undefined) {
  const { createPool } = await import('../store/postgres/connect.js');
  const { LeaderLease } = await import('../store/postgres/lease.js');
  const pool = createPool(url, { max: 1 });
  const lease = new LeaderLease({ pool, ...thisReplica(), ...(leaseMs ? { leaseMs } : {}) });
  let failing = false;
  lease.on('failed', (error) => {
    if (failing) return;
    failing = true;
    ctx.logger.warn(
      { err: error },
      `leader lease: the database cannot be reached (${errorMessage(error)}); a leader stops polling and sending before its lease ends, and tries again`,
    );
  });
  const recovered = () => {
    if (!failing) return;
    failing = false;
    ctx.logger.info('leader lease: the database answers again');
  };
  lease.on('renewed', recovered);
  lease.on('held', recovered);
  // Taking the lease, or finding it taken, is an answer; stepping down in time is not.
  lease.on('role', (change) => {
    if (change.role === 'leader' || change.reason === 'lost') recovered();
  });
  const stop = lease.stop.bind(lease);
  return Object.assign(lease, {
    stop: async () => {
      await stop();
      await pool.end().catch(() => {});
    },
  });
}
