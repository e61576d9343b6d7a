/**
 * Variables that look like pipewatch's but are not: a misspelt name is otherwise ignored
 * without a word and its default silently applies (notices polled every ten minutes after
 * `PIPEWATCH_NOTICES_INTERVAL` was set to `2m` under a name missing one letter). Each gets
 * a warning naming where it was set and, when one is close, the variable most likely
 * meant.
 */
import { suggest } from '../lib/suggest.js';
import type { EnvironmentSources } from './env-file.js';
import { VARIABLES } from './variables.js';

/** Prefixes of names pipewatch owns: any other name under them is a mistake. */
export const OWN_PREFIXES = ['PIPEWATCH_', 'SLACK_', 'DISCORD_', 'SMTP_'] as const;

const KNOWN: readonly string[] = Object.values(VARIABLES).map((v) => v.name);

/** The prefix `name` starts with, in any case (`pipewatch_api_url` is a mistake too). */
function ownPrefix(name: string): string | undefined {
  const upper = name.toUpperCase();
  return OWN_PREFIXES.find((p) => upper.startsWith(p));
}

/** The variable `name` was most likely meant to be, if any. */
function meant(name: string): string | undefined {
  // `PIPEWATCH_LOG_LEVEL` for `LOG_LEVEL`: a known name behind one of the prefixes.
  const prefix = ownPrefix(name);
  const bare = prefix === undefined ? undefined : name.slice(prefix.length).toUpperCase();
  if (bare !== undefined && KNOWN.includes(bare)) return bare;
  return suggest(name, KNOWN);
}

/** `the environment`, `.env line 3`, or both. */
function origin(name: string, sources: EnvironmentSources | undefined): string {
  const places: string[] = [];
  if (sources === undefined || sources.environment.has(name)) places.push('the environment');
  const line = sources?.dotEnv.get(name);
  if (line !== undefined) places.push(line > 0 ? `.env line ${line}` : '.env');
  return places.join(' and ');
}

/**
 * One warning for each name of `env` under a pipewatch prefix that is not a pipewatch
 * variable: `<name> is not a pipewatch variable — did you mean <variable>? (set in .env
 * line 3)`. Without `sources`, every name counts as set in the environment.
 */
export function unknownVariableWarnings(
  env: NodeJS.ProcessEnv,
  sources?: EnvironmentSources,
): string[] {
  const warnings: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (ownPrefix(name) === undefined || KNOWN.includes(name)) continue;
    const guess = meant(name);
    const advice = guess === undefined ? '; it is ignored' : ` — did you mean ${guess}?`;
    warnings.push(`${name} is not a pipewatch variable${advice} (set in ${origin(name, sources)})`);
  }
  return warnings;
}
