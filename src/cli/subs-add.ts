/**
 * `pipewatch subs add TARGET WORDS…`: a subscription made from the command line with the
 * words chat takes after `/pipewatch` (`subs add slack:#gas subscribe transco
 * type:constraint`), checked by the same grammar and the same rule schema, and stored as
 * chat stores one. Every problem is printed with the word it is about; nothing is stored.
 */
import { type ChatRuleCommand, parseChatCommand } from '../chat/grammar.js';
import { storeSubscription } from '../chat/subscribe.js';
import { type Target, targetKey, targetLabel } from '../domain/targets.js';
import { toUtcIso } from '../lib/time.js';
import { ruleSummary } from '../rules/summary.js';
import type { CliContext } from './context.js';
import { ExitCode } from './exit-status.js';
import { cliUser, withStore } from './store-command.js';

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

/** Parses, checks and stores; prints what was made or every problem. */
export async function addSubscription(
  ctx: CliContext,
  target: Target,
  words: readonly string[],
): Promise<void> {
  let stored = false;
  withStore(ctx, (store) => {
    const text = rejoin(words);
    const parsed = parseChatCommand(text, {
      pipelines: store.pipelines.all().map((p) => p.slug),
      ...store.notices.vocabulary(),
    });
    if (!parsed.ok) {
      for (const p of parsed.problems)
        ctx.err(`pipewatch: column ${p.column} '${p.word}': ${p.message}`);
      ctx.exitCode = ExitCode.Usage;
      return;
    }
    if (!RULE_VERBS.has(parsed.command.verb)) {
      ctx.err(
        `pipewatch: subs add makes subscriptions: subscribe, remind or oac, not ${parsed.command.verb}`,
      );
      ctx.exitCode = ExitCode.Usage;
      return;
    }
    const chat = target.kind === 'slack' || target.kind === 'discord';
    const made = storeSubscription(
      store,
      { target, channel: chat ? targetKey(target) : null, source: 'cli', by: cliUser() },
      parsed.command as ChatRuleCommand,
      toUtcIso(ctx.clock.now()),
    );
    if ('problem' in made) {
      ctx.err(`pipewatch: not stored: ${made.problem}`);
      ctx.exitCode = ExitCode.Usage;
      return;
    }
    ctx.out(`sub-${made.id}: ${ruleSummary(made.rule)} → ${targetLabel(target)}`);
    stored = true;
  });
  if (!stored) return;
  const missing = await missingSetting(ctx, target);
  if (missing)
    ctx.err(
      `pipewatch: note: ${target.kind} is not set up here (${missing}); the daemon holds this subscription's alerts until it is`,
    );
}
