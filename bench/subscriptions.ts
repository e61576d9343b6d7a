/**
 * Subscriptions made the way people make them, for the benchmarks that need many: the
 * `/pipewatch subscribe …` words a person would type (one or two pipelines, busy
 * pipelines more often, usually a type, sometimes a category, a place name as a text
 * pattern, or updates too; Discord sends the same choices as options), sent through the
 * real chat core, which parses them with the grammar, checks them with the rule schema
 * and stores them; and the simulator's pipeline catalog stored first, so that the
 * grammar checks the slugs as it does in the daemon.
 * And the `rules` benchmark's 10,000 of them, with what putting them in force costs.
 */

import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AlertEngine } from '../src/alerts/engine.js';
import type { ChatLimits } from '../src/chat/limits.js';
import { ChatCore } from '../src/chat/service.js';
import type { ChatCaller, ChatPlatform } from '../src/chat/types.js';
import { systemClock } from '../src/lib/clock.js';
import { silentLogger } from '../src/lib/logger.js';
import { toUtcIso } from '../src/lib/time.js';
import type { Rule } from '../src/rules/types.js';
import { PIPELINES, wirePipeline } from '../src/simulator/pipelines.js';
import { asyncStoreOf } from '../src/store/async-sqlite.js';
import { Store } from '../src/store/index.js';
import { parseRecords } from '../src/upstream/records.js';
import { PipelineSchema } from '../src/upstream/schemas.js';
import { seededRandom } from '../test/support/seeded-random.js';

export { seededRandom };

/** Stores the simulator's pipelines, as the pipelines feed would. */
export function storeCatalogPipelines(store: Store, at: Date): void {
  const context = { method: 'GET', endpoint: '/ip/pipelines', host: 'bench' };
  const wire = PIPELINES.map((p) => wirePipeline(p, at));
  const { records } = parseRecords(PipelineSchema, wire, context, 'data');
  const seen = toUtcIso(at);
  store.transaction(() => {
    for (const p of records) store.pipelines.upsert(p, seen);
  });
}

/** The busiest pipelines are subscribed to four times as often as the others. */
const BUSY = new Set(['transco', 'tennessee', 'texas-eastern', 'columbia', 'anr', 'ngpl']);
const WEIGHTED = PIPELINES.flatMap((p) =>
  Array.from({ length: BUSY.has(p.slug) ? 4 : 1 }, () => p),
);

/** Type words as people mean them; each matches the notice types it is a whole word of. */
const TYPE_WORDS = [
  'constraint',
  'constraint',
  'constraint',
  'force majeure',
  'maintenance',
  'maintenance',
  'curtailment',
  'outage',
  'operational flow order',
  'critical period',
];

const pick = <T>(random: () => number, list: readonly T[]): T =>
  list[Math.floor(random() * list.length)]!;

/**
 * What one channel subscription asks for, before it is written on a platform: Slack
 * types it as words, Discord sends it as the subcommand's options.
 */
export interface SubscribeChoice {
  pipelines: string[];
  types: string[];
  category?: string;
  /** A place name, matched as text. */
  text?: string;
  on?: string;
}

/** One or two pipelines, busy ones more often, usually a type, sometimes more. */
export function subscribeChoice(random: () => number): SubscribeChoice {
  const first = pick(random, WEIGHTED);
  const choice: SubscribeChoice = { pipelines: [first.slug], types: [] };
  if (random() < 0.3) {
    const second = pick(random, WEIGHTED);
    if (second.slug !== first.slug) choice.pipelines.push(second.slug);
  }
  const r = random();
  if (r < 0.65) choice.types.push(pick(random, TYPE_WORDS));
  else if (r < 0.75) choice.types.push(pick(random, TYPE_WORDS), pick(random, TYPE_WORDS));
  if (random() < 0.15) choice.category = 'critical';
  if (random() < 0.1) choice.text = pick(random, first.places).toLowerCase();
  if (random() < 0.1) choice.on = 'new,updated';
  return choice;
}

/** A value as one word: in double quotes when it holds a space. */
const quoted = (value: string) => (value.includes(' ') ? `"${value}"` : value);

/** The words after `/pipewatch` that ask for `choice`, as a person types them. */
export function subscribeWords(choice: SubscribeChoice): string {
  const words = ['subscribe', choice.pipelines.join(',')];
  if (choice.types.length > 0) words.push(`type:${choice.types.map(quoted).join(',')}`);
  if (choice.category) words.push(`category:${choice.category}`);
  if (choice.text) words.push(`text:"${choice.text}"`);
  if (choice.on) words.push(`on:${choice.on}`);
  return words.join(' ');
}

/** What Discord sends for `choice`: `/pipewatch subscribe`'s options, lists comma-separated. */
export function subscribeOptions(choice: SubscribeChoice): Record<string, string> {
  return {
    pipelines: choice.pipelines.join(','),
    ...(choice.types.length > 0 ? { type: choice.types.join(',') } : {}),
    ...(choice.category ? { category: choice.category } : {}),
    ...(choice.text ? { text: choice.text } : {}),
    ...(choice.on ? { on: choice.on } : {}),
  };
}

/**
 * The words after `/pipewatch` of one channel subscription: `transco type:constraint`,
 * `anr,ngpl type:maintenance category:critical`, `columbia text:"leach xpress"`.
 */
export function subscribeText(random: () => number): string {
  return subscribeWords(subscribeChoice(random));
}

/** A Slack channel of the benchmarks: `C0BENCH007`. */
export function benchChannel(n: number): string {
  return `C0BENCH${String(n).padStart(3, '0')}`;
}

/** A Discord channel of the benchmarks, a snowflake: `1350000000000000007`. */
export function discordBenchChannel(n: number): string {
  return `135${String(n).padStart(16, '0')}`;
}

/** A Discord member of the benchmarks, a snowflake: `1450000000000000003`. */
export function discordBenchUser(u: number): string {
  return `145${String(u).padStart(16, '0')}`;
}

/**
 * Who types the `i`th command in channel `n`, the channel's `u`th person: on Slack
 * `U0BENCH<u>` in `benchChannel(n)`; on Discord `discordBenchUser(u)` in
 * `discordBenchChannel(n)`, a member who may manage the channel, as a subscription there
 * needs. Each channel is named `gas-desk-<n>`, each person `trader<u>`.
 */
export function benchCaller(platform: ChatPlatform, n: number, u: number): ChatCaller {
  const named = { channelName: `gas-desk-${n}`, userName: `trader${u}` };
  if (platform === 'slack')
    return { platform, channel: benchChannel(n), user: `U0BENCH${u}`, ...named };
  const discord = { channel: discordBenchChannel(n), user: discordBenchUser(u) };
  return { platform, ...discord, ...named, canManageChannel: true, direct: false };
}

/**
 * The chat limits out of the way: the benchmarks make a busy install's chat state
 * through the chat core, typed by a few people in one workspace, which the defaults
 * (`PIPEWATCH_CHAT_*`) refuse long before; what they measure is the cost of that state.
 */
export const UNLIMITED_CHAT: ChatLimits = {
  subscriptionsPerChannel: Number.MAX_SAFE_INTEGER,
  subscriptionsPerWorkspace: Number.MAX_SAFE_INTEGER,
  remindersPerUser: Number.MAX_SAFE_INTEGER,
  remindersPerWorkspace: Number.MAX_SAFE_INTEGER,
  silencesPerUser: Number.MAX_SAFE_INTEGER,
  silencesPerWorkspace: Number.MAX_SAFE_INTEGER,
};

/**
 * Makes `count` channel subscriptions through the chat core, spread evenly over
 * `channels` channels, each typed by one of a few people (`caller`, by default Slack's
 * `benchCaller`); waits for each one's follow-up, as a busy channel would before typing
 * the next. Throws when one is refused: the benchmarks must measure what they say.
 */
export async function makeSubscriptions(
  core: ChatCore,
  count: number,
  channels: number,
  random: () => number,
  caller: (n: number, u: number) => ChatCaller = (n, u) => benchCaller('slack', n, u),
): Promise<void> {
  for (let i = 0; i < count; i++) {
    const text = subscribeText(random);
    const answer = await core.command(caller(i % channels, i % 7), text);
    if (!answer.reply.text.includes('subscribed this channel'))
      throw new Error(`'${text}' was not stored: ${answer.reply.text}`);
    await answer.followUp;
  }
}

const SUBSCRIPTIONS = 10_000;
/** 50 subscriptions a channel, half the most a channel may have. */
const SUBSCRIBED_CHANNELS = 200;

/**
 * `fileRules` and 10,000 subscriptions made through the chat core into a Store in a temp
 * dir, in force in an `AlertEngine`; and `reloads`, which makes 5 more, one at a time,
 * and times what the engine pays to put each in force (its `rules`, as a hook reads them).
 */
export async function storedSubscriptions(fileRules: readonly Rule[]) {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-bench-'));
  const store = Store.open(dir);
  storeCatalogPipelines(store, new Date());
  const deps = { store, clock: systemClock, logger: silentLogger, maxAlertAgeMs: 1e12 };
  const engine = new AlertEngine({ ...deps, store: asyncStoreOf(store) }, fileRules);
  const core = new ChatCore({
    ...deps,
    store: asyncStoreOf(store),
    engine,
    policy: { admins: new Set() },
    limits: UNLIMITED_CHAT,
  });
  const random = seededRandom(1);
  await makeSubscriptions(core, SUBSCRIPTIONS, SUBSCRIBED_CHANNELS, random);
  const expected = fileRules.length + SUBSCRIPTIONS;
  if ((await engine.rules()).length !== expected)
    throw new Error(`${(await engine.rules()).length} rules in force`);
  const reloads = async () => {
    const ms: number[] = [];
    for (const k of [1, 2, 3, 4, 5]) {
      const caller = { platform: 'slack' as const, channel: benchChannel(k), user: 'U0BENCH0' };
      const made = await core.command(caller, subscribeText(random));
      if (!made.reply.text.includes('subscribed')) throw new Error(made.reply.text);
      const started = performance.now();
      if ((await engine.rules()).length !== expected + k) throw new Error('not in force');
      ms.push(performance.now() - started);
    }
    return ms;
  };
  return { dir, store, engine, reloads };
}

/** Milliseconds a fresh process takes to construct the engine on the subscriptions in `dir`. */
export function coldLoad(dir: string): number {
  const script = fileURLToPath(new URL('./subscriptions-load.ts', import.meta.url));
  const child = spawnSync(process.execPath, ['--import', 'tsx', script, dir], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (child.status !== 0) throw new Error(`loading the subscriptions failed (${child.status})`);
  const { ms, rules } = JSON.parse(child.stdout) as { ms: number; rules: number };
  if (rules < SUBSCRIPTIONS) throw new Error(`the engine loaded ${rules} rules`);
  return ms;
}
