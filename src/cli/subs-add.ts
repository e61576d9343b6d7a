/**
 * `pipewatch subs add TARGET WORDS…`: a subscription made from the command line with the
 * words chat takes after `/pipewatch` (`subs add slack:#gas subscribe transco
 * type:constraint`), checked by the same grammar and the same rule schema, and stored as
 * chat stores one. Every problem is printed with the word it is about; nothing is stored.
 * An `oac` location is checked against the pipeline's capacity of the last 7 days, or
 * the API's latest when none is stored and PIPEWATCH_API_URL is set.
 */

import { LOCATIONS_SEEN_WITHIN_MS } from '../alerts/known-locations.js';
import { type ChatRuleCommand, parseChatCommand } from '../chat/grammar.js';
import { storeSubscription } from '../chat/subscribe.js';
import { type Target, targetKey, targetLabel } from '../domain/targets.js';
import { errorMessage } from '../lib/error-text.js';
import { toUtcIso } from '../lib/time.js';
import type { KnownLocation } from '../rules/location-check.js';
import { ruleSummary } from '../rules/summary.js';
import type { AsyncStore } from '../store/async-store.js';
import { openApi } from './api-target.js';
import type { CliContext } from './context.js';
import { ExitCode } from './exit-status.js';
import { latestLocationsOf } from './latest-locations.js';
import { openExistingStore } from './open-store.js';
import { cliUser } from './store-command.js';

/**
 * The shell took the quotes away: a word with a space in it is quoted again (`Station 85`
 * → `"Station 85"`, `text:force majeure` → `text:"force majeure"`), so the grammar reads
 * it as one value.
 */
export function rejoin(words: readonly string[]): string {
  return words
    .map((w) => {
      if (!/\s/.test(w) || /["“”]/.test(w)) return w;
      const option = /^([A-Za-z]+):(.*)$/s.exec(w);
      return option ? `${option[1]}:"${option[2]}"` : `"${w}"`;
    })
    .join(' ');
}

const RULE_VERBS = new Set(['subscribe', 'remind', 'oac']);

/**
 * The setting a target's channel lacks here, if it lacks one: the daemon would hold its
 * alerts, failing, until it is set. Undefined when the configuration cannot be read.
 */
async function missingSetting(ctx: CliContext, target: Target): Promise<string | undefined> {
  let config: CliContext['config'];
  try {
    config = ctx.config;
  } catch {
    return undefined;
  }
  const configured: Partial<Record<Target['kind'], boolean>> = {
    slack: Boolean(config.slack.botToken),
    slack_dm: Boolean(config.slack.botToken),
    discord: Boolean(config.discord.botToken),
    discord_dm: Boolean(config.discord.botToken),
    email: Boolean(config.email.smtpUrl && config.email.from),
  };
  if (configured[target.kind] !== false) return undefined;
  const { CHANNEL_SETTINGS } = await import('../delivery/channels.js');
  return CHANNEL_SETTINGS[target.kind];
}

/**
 * Asks the API for the latest locations of `slug` into `into`; undefined when it gave
 * them, or why it could not be asked or did not answer.
 */
async function askApi(
  ctx: CliContext,
  slug: string,
  into: Map<string, readonly KnownLocation[]>,
): Promise<string | undefined> {
  if (ctx.config.api.url === null) return 'PIPEWATCH_API_URL is unset';
  const api = await openApi(ctx);
  try {
    into.set(slug, await latestLocationsOf(api.client, slug, ctx.signal));
    return undefined;
  } catch (error) {
    return `the API did not give its latest capacity (${errorMessage(error)})`;
  } finally {
    await api.close();
  }
}

/** Parses, checks and stores; prints what was made or every problem. */
export async function addSubscription(
  ctx: CliContext,
  target: Target,
  words: readonly string[],
): Promise<void> {
  const opened = await openExistingStore(ctx);
  if (!opened) return;
  let stored = false;
  try {
    stored = await add(ctx, opened.store, target, words);
  } finally {
    await opened.close();
  }
  if (!stored) return;
  const missing = await missingSetting(ctx, target);
  if (missing)
    ctx.err(
      `pipewatch: note: ${target.kind} is not set up here (${missing}); the daemon holds this subscription's alerts until it is`,
    );
}

/**
 * Reads the words with what the store knows (and, for an `oac` on a pipeline with no
 * capacity stored in the last 7 days, the API's latest locations), then stores the
 * subscription; whether it was stored.
 */
async function add(
  ctx: CliContext,
  store: AsyncStore,
  target: Target,
  words: readonly string[],
): Promise<boolean> {
  const text = rejoin(words);
  const now = ctx.clock.now();
  const fetched = new Map<string, readonly KnownLocation[]>();
  const since = toUtcIso(new Date(now.getTime() - LOCATIONS_SEEN_WITHIN_MS));
  // The grammar asks for a pipeline's locations as it reads, and cannot wait: those it
  // asks for are read from the store, and the words read again, until it asks for no more.
  const stored = new Map<string, readonly KnownLocation[]>();
  const asked = new Set<string>();
  const locations = (slug: string) => {
    const own = stored.get(slug);
    if (own === undefined) asked.add(slug);
    const known = [...(own ?? []), ...(fetched.get(slug) ?? [])];
    return known.length > 0 || fetched.has(slug) ? known : undefined;
  };
  const vocabulary = {
    pipelines: (await store.pipelines.all()).map((p) => p.slug),
    ...(await store.notices.vocabulary()),
    locations,
  };
  const parse = async () => {
    for (;;) {
      asked.clear();
      const result = parseChatCommand(text, vocabulary);
      if (asked.size === 0) return result;
      for (const slug of asked)
        stored.set(slug, await store.capacity.locationsSeenSince(slug, since));
    }
  };
  let parsed = await parse();
  let unchecked: string | undefined;
  if (parsed.ok && parsed.command.verb === 'oac') {
    const slug = parsed.command.capacity.pipelines?.[0];
    const location = parsed.command.capacity.locations?.[0];
    if (slug && !stored.has(slug))
      stored.set(slug, await store.capacity.locationsSeenSince(slug, since));
    if (slug && location && !locations(slug)) {
      const why = await askApi(ctx, slug, fetched);
      if (why === undefined) parsed = await parse();
      else
        unchecked = `location '${location}' was not checked: no capacity of ${slug} is stored from the last 7 days, and ${why}; the daemon checks it when that capacity arrives, and reports it if nothing matches`;
    }
  }
  if (!parsed.ok) {
    for (const p of parsed.problems)
      ctx.err(`pipewatch: column ${p.column} '${p.word}': ${p.message}`);
    ctx.exitCode = ExitCode.Usage;
    return false;
  }
  if (!RULE_VERBS.has(parsed.command.verb)) {
    ctx.err(
      `pipewatch: subs add makes subscriptions: subscribe, remind or oac, not ${parsed.command.verb}`,
    );
    ctx.exitCode = ExitCode.Usage;
    return false;
  }
  const chat = target.kind === 'slack' || target.kind === 'discord';
  const made = await storeSubscription(
    store,
    { target, channel: chat ? targetKey(target) : null, source: 'cli', by: cliUser() },
    parsed.command as ChatRuleCommand,
    toUtcIso(now),
    { maxPerChannel: ctx.config.chatLimits.subscriptionsPerChannel },
  );
  if ('problem' in made) {
    ctx.err(`pipewatch: not stored: ${made.problem}`);
    ctx.exitCode = ExitCode.Usage;
    return false;
  }
  ctx.out(`sub-${made.id}: ${ruleSummary(made.rule)} → ${targetLabel(target)}`);
  if (unchecked) ctx.err(`pipewatch: note: ${unchecked}`);
  return true;
}
