/**
 * What `pipewatch discord register` does once it runs: talks to Discord's REST API
 * (`@discordjs/rest`), reads what the application has registered and sends the list back
 * when it changed. A module of its own so that only this command loads Discord's client.
 */

import { DiscordAPIError, HTTPError, RateLimitError, REST } from '@discordjs/rest';
import { Routes } from 'discord-api-types/v10';
import { z } from 'zod';
import { ConfigError } from '../config/index.js';
import { pipewatchCommand } from '../frontends/discord/commands.js';
import { errorCause, errorCode, errorMessage, errorName } from '../lib/error-text.js';
import { redactor } from '../lib/redact.js';
import { issuePath } from '../lib/zod-checks.js';
import type { CliContext } from './context.js';
import { commandLabel, type RegisteredCommand, registrationPlan } from './discord-changes.js';
import { ExitCode } from './exit-status.js';

/** How long one request to Discord may take, its answer included. */
export const REGISTER_TIMEOUT_MS = 15_000;

const DISCORD_API = 'https://discord.com/api';

/** Where the command goes, for messages: the application, and the server if one. */
export interface Place {
  application?: string;
  guild?: string;
  /** What was being done: `reading the registered commands`. */
  step: string;
  api: string;
}

/** Discord's own words for a refusal, on one line: `Missing Access`, or the form's errors. */
function discordSays(error: DiscordAPIError): string {
  const said: object = error.rawError;
  const own = 'message' in said ? said.message : undefined;
  const lines = error.message.split('\n').filter((l) => l.trim() !== '');
  const detail = error.status === 400 ? lines.join('; ') : String(own ?? lines[0] ?? '');
  return `${error.status} ${detail}`.trim();
}

/** What pipewatch reads of Discord's answers; the rest of each is kept as it came. */
const applicationAnswer = z.looseObject({ id: z.string(), name: z.string().optional() });
const commandsAnswer = z.array(z.looseObject({ name: z.string() })) satisfies z.ZodType<
  RegisteredCommand[]
>;

/** Discord answered with something pipewatch does not read: what, and where. */
class UnreadAnswer extends Error {}

/** Discord's answer read through `schema`; `UnreadAnswer` naming the field when it does not fit. */
function answerOf<S extends z.ZodType>(schema: S, answer: unknown): z.output<S> {
  const read = schema.safeParse(answer);
  if (read.success) return read.data;
  const [issue] = read.error.issues;
  const field = issue ? issuePath(issue.path) || '(answer)' : '(answer)';
  throw new UnreadAnswer(
    `an answer pipewatch cannot read: ${field}: ${issue?.message ?? 'invalid'}`,
  );
}

/** The one line that says why a request to Discord failed and what to check. */
export function failureLine(error: unknown, at: Place): string {
  const server = at.guild ? `server ${at.guild}` : undefined;
  const app = at.application ? `application ${at.application}` : 'the application';
  if (error instanceof RateLimitError) {
    const seconds = Math.max(1, Math.ceil(error.retryAfter / 1000));
    return `Discord is rate limiting ${at.step}: try again in ${seconds} s`;
  }
  if (error instanceof DiscordAPIError) {
    const said = discordSays(error);
    if (error.status === 401)
      return `Discord refused the bot token (${said}): check DISCORD_BOT_TOKEN`;
    if (server && error.status === 403) {
      return `Discord refused access to ${server} (${said}): is the bot in that server, invited with the applications.commands scope?`;
    }
    if (error.status === 403) {
      return `Discord refused access to the commands of ${app} (${said}): does DISCORD_APPLICATION_ID belong to DISCORD_BOT_TOKEN's bot?`;
    }
    if (server && error.status === 404 && error.code !== 10002) {
      return `Discord knows no ${server} (${said}): check --guild`;
    }
    if (error.status === 404) {
      return `Discord knows no ${app} (${said}): check DISCORD_APPLICATION_ID, or unset it to ask Discord`;
    }
    if (error.status === 400) return `Discord refused the command (${said})`;
    return `Discord failed ${at.step} (${said})`;
  }
  if (error instanceof HTTPError) {
    return `Discord failed ${at.step} (HTTP ${error.status}): try again later`;
  }
  if (error instanceof UnreadAnswer) return `Discord answered ${at.step} with ${error.message}`;
  const name = errorName(error);
  if (name === 'AbortError' || name === 'TimeoutError') {
    return `Discord did not answer within ${REGISTER_TIMEOUT_MS / 1000} s, ${at.step}`;
  }
  const why = errorCode(errorCause(error)) ?? errorCode(error) ?? errorMessage(error);
  return `could not reach Discord at ${at.api}, ${at.step}: ${why}`;
}

/** What `discord register` was asked. */
export interface RegisterOptions {
  guild?: string;
  dryRun?: boolean;
}

/** Registers `/pipewatch` with Discord as `opts` say, printing what changed. */
export async function register(ctx: CliContext, opts: RegisterOptions): Promise<void> {
  const { discord } = ctx.config;
  if (!discord.botToken) {
    throw new ConfigError([
      'discord register needs DISCORD_BOT_TOKEN, the bot token of the Discord application',
    ]);
  }
  const api = (discord.apiUrl ?? DISCORD_API).replace(/\/+$/, '').replace(/\/v\d+$/, '');
  const rest = new REST({
    api,
    version: '10',
    retries: 0,
    timeout: REGISTER_TIMEOUT_MS,
    offset: 0,
    // A one-off command tells the user to come back rather than wait in silence.
    rejectOnRateLimit: () => true,
  }).setToken(discord.botToken);
  const scrub = redactor([discord.botToken]);
  const at: Place = { step: 'looking up the application', api };
  if (opts.guild) at.guild = opts.guild;
  const signal = ctx.signal;
  try {
    if (discord.applicationId) at.application = discord.applicationId;
    let name: string | undefined;
    if (!at.application) {
      const me = answerOf(
        applicationAnswer,
        await rest.get(Routes.currentApplication(), { signal }),
      );
      at.application = me.id;
      name = me.name;
    }
    const route = opts.guild
      ? Routes.applicationGuildCommands(at.application, opts.guild)
      : Routes.applicationCommands(at.application);
    at.step = 'reading the registered commands';
    // With their localizations: the other commands go back into the PUT whole.
    const query = new URLSearchParams({ with_localizations: 'true' });
    const registered = answerOf(commandsAnswer, await rest.get(route, { query, signal }));
    const global = !opts.guild;
    const plan = registrationPlan(registered, pipewatchCommand({ guild: !global }), global);
    const where = opts.guild ? `server ${opts.guild}` : 'global commands';
    ctx.out(
      `Discord application ${name ? `${name} (${at.application})` : at.application}, ${where}:`,
    );
    ctx.out(`/pipewatch: ${plan.pipewatch}`);
    for (const other of plan.others) {
      ctx.out(`${commandLabel(other)}: kept as it is (not pipewatch's)`);
    }
    if (!plan.changed) {
      ctx.out('nothing to register: Discord has this definition already');
      return;
    }
    if (opts.dryRun) {
      ctx.out('dry run: nothing registered');
      return;
    }
    at.step = 'registering the commands';
    await rest.put(route, { body: plan.body, signal });
    ctx.out(
      global
        ? 'registered: Discord clients show a global command within about an hour'
        : 'registered: it shows in that server at once',
    );
  } catch (error) {
    if (signal.aborted) throw error;
    ctx.err(`pipewatch: ${scrub(failureLine(error, at)).replace(/\s*\n\s*/g, ' ')}`);
    ctx.exitCode = ExitCode.Failed;
  } finally {
    rest.clearHashSweeper();
    rest.clearHandlerSweeper();
  }
}
