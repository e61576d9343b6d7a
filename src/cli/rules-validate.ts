/**
 * What `rules validate` does once it runs: loads the rule files as the daemon will, and
 * checks their pipeline slugs and location entries against what the API has (stored, or
 * asked for). Apart from the command's definition, so `--help` loads none of it.
 */
import { resolve } from 'node:path';
import { mergeBooks, pipelinesWithCapacity, storedLocations } from '../alerts/known-locations.js';
import { ConfigError } from '../config/index.js';
import { errorMessage } from '../lib/error-text.js';
import { counted } from '../lib/words.js';
import { loadRules } from '../rules/loader.js';
import {
  checkLocations,
  type LocationBook,
  type PipelineScope,
  ruleLocationPipelines,
} from '../rules/location-check.js';
import { unknownPipelines } from '../rules/pipeline-check.js';
import { formatProblem, type Rule, type RuleProblem } from '../rules/types.js';
import type { AsyncStore } from '../store/async-store.js';
import type { StoreLocation } from '../store/open.js';
import { type ApiTarget, openApi } from './api-target.js';
import type { CliContext } from './context.js';
import { toJson } from './format.js';
import { latestLocations } from './latest-locations.js';
import { openStoreToRead } from './open-store.js';

/** What the rules name that the API does not have, and why what was not checked was not. */
interface NameCheck {
  problems: RuleProblem[];
  pipelinesNote?: string;
  locationsNote?: string;
}

/**
 * The rules' pipeline slugs and location entries that the API does not have: slugs
 * against the pipeline list stored by `run` (or, when none is and PIPEWATCH_API_URL is
 * set, the API's), location entries against the capacity stored in the last 7 days and,
 * for those it does not settle, the API's latest capacity when PIPEWATCH_API_URL is set.
 * Never the built-in simulator: its pipelines and locations are invented.
 */
async function checkNames(ctx: CliContext, rules: readonly Rule[]): Promise<NameCheck> {
  let at: StoreLocation;
  let apiUrl: string | null;
  try {
    at = { dataDir: ctx.config.dataDir, databaseUrl: ctx.config.databaseUrl };
    apiUrl = ctx.config.api.url;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const why = `the configuration is invalid (${error.lines[0]})`;
    return { problems: [], pipelinesNote: why, locationsNote: why };
  }
  const opened = await openStoreToRead(at);
  const store = opened?.store;
  const api = apiUrl === null ? undefined : await openApi(ctx);
  try {
    const none = await noStore(at);
    const pipelines = await pipelineList(ctx, store, api, none);
    const problems: RuleProblem[] = unknownPipelines(rules, pipelines.tracked);
    const locations = await checkRuleLocations(ctx, rules, pipelines, store, api, none);
    problems.push(...locations.unknown);
    return {
      problems,
      ...(pipelines.note ? { pipelinesNote: pipelines.note } : {}),
      ...(locations.note ? { locationsNote: locations.note } : {}),
    };
  } finally {
    await opened?.close();
    await api?.close();
  }
}

/**
 * `no database at <data dir>`, or `no pipewatch database at <URL>` (its password left
 * out) on PostgreSQL: why the names were not checked against what `run` stored.
 */
async function noStore(at: StoreLocation): Promise<string> {
  if (at.databaseUrl === undefined) return `no database at ${at.dataDir}`;
  const { shownPostgresUrl } = await import('../store/postgres/connect.js');
  return `no pipewatch database at ${shownPostgresUrl(at.databaseUrl)}`;
}

/** The API's pipeline slugs, stored or asked for; `note` says why there are none. */
async function pipelineList(
  ctx: CliContext,
  store: AsyncStore | undefined,
  api: ApiTarget | undefined,
  none: string,
): Promise<PipelineScope & { note?: string }> {
  if (store) {
    const tracked = (await store.pipelines.all()).map((p) => p.slug);
    if (tracked.length > 0) return { tracked, withCapacity: await pipelinesWithCapacity(store) };
  }
  let failure: string | undefined;
  if (api) {
    try {
      const { data } = await api.client.pipelines(ctx.signal);
      return { tracked: data.map((p) => p.slug) };
    } catch (error) {
      failure = errorMessage(error);
    }
  }
  const hint = `run 'pipewatch run' once to store the API's pipeline list${api ? '' : ', or set PIPEWATCH_API_URL'}`;
  const note = failure
    ? `the API did not give its pipeline list (${failure})`
    : store
      ? `no pipeline list stored yet; ${hint}`
      : `${none}; ${hint}`;
  return { tracked: [], note };
}

/** Entries listed in a note before the rest are only counted. */
const NOTE_ENTRIES = 3;

/** The location entries no known location matches, and why those not checked were not. */
async function checkRuleLocations(
  ctx: CliContext,
  rules: readonly Rule[],
  scope: PipelineScope,
  store: AsyncStore | undefined,
  api: ApiTarget | undefined,
  none: string,
): Promise<{ unknown: RuleProblem[]; note?: string }> {
  const wanted = (names: ReadonlySet<string> | undefined) => {
    const slugs = new Set<string>();
    for (const r of rules)
      if (r.kind === 'capacity' && r.locationRefs && (!names || names.has(r.name)))
        for (const slug of ruleLocationPipelines(r, scope) ?? []) slugs.add(slug);
    return slugs;
  };
  let book: LocationBook = store
    ? await storedLocations(store, wanted(undefined), ctx.clock.now())
    : new Map();
  let result = checkLocations(rules, book, scope);
  let failed = new Map<string, string>();
  if (api && result.unknown.length + result.unchecked.length > 0) {
    const open = new Set([...result.unknown, ...result.unchecked].map((u) => u.rule));
    const latest = await latestLocations(api.client, wanted(open), ctx.signal);
    book = mergeBooks(book, latest.book);
    failed = latest.failed;
    result = checkLocations(rules, book, scope);
  }
  const { unchecked } = result;
  if (unchecked.length === 0) return { unknown: result.unknown };
  const entries = unchecked
    .slice(0, NOTE_ENTRIES)
    .map((u) => `${formatProblem({ ...u, message: '' }).slice(0, -2)} '${u.location}'`);
  if (unchecked.length > NOTE_ENTRIES) entries.push(`and ${unchecked.length - NOTE_ENTRIES} more`);
  const slugs = [...new Set(unchecked.flatMap((u) => u.pipelines))];
  const of = slugs.length > 0 ? slugs.join(', ') : 'any pipeline';
  const stored = store ? `no capacity of ${of} stored in the last 7 days` : none;
  const firstFailure = slugs.map((s) => failed.get(s)).find((f) => f !== undefined);
  const why = !api
    ? `${stored}, and PIPEWATCH_API_URL is unset; run 'pipewatch run' once, or set PIPEWATCH_API_URL`
    : `${stored}, and the API did not give its latest capacity${firstFailure ? ` (${firstFailure})` : ''}`;
  return { unknown: result.unknown, note: `${entries.join(', ')}: ${why}` };
}

const byPosition = (a: RuleProblem, b: RuleProblem) =>
  a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col;

/** Prints the rule files' problems (exit status 1), or a summary of the rules they hold. */
export async function validateRules(
  ctx: CliContext,
  dir: string | undefined,
  opts: { json?: boolean },
): Promise<void> {
  const target = dir === undefined ? ctx.config.rulesDir : resolve(ctx.io.cwd, dir);
  const loaded = loadRules(target, { cwd: ctx.io.cwd });
  const names = await checkNames(ctx, loaded.rules);
  const problems = [...loaded.problems, ...names.problems.toSorted(byPosition)];
  const notes = [
    names.pipelinesNote &&
      `pipeline slugs were not checked against the API: ${names.pipelinesNote}`,
    names.locationsNote && `locations were not checked against capacity: ${names.locationsNote}`,
  ].filter((n): n is string => Boolean(n));
  ctx.exitCode = problems.length > 0 ? 1 : 0;
  const count = (kind: string) => loaded.rules.filter((r) => r.kind === kind).length;
  if (opts.json) {
    const common = {
      pipelines_checked: !names.pipelinesNote,
      pipelines_note: notes.find((n) => n.startsWith('pipeline')) ?? null,
      locations_checked: !names.locationsNote,
      locations_note: notes.find((n) => n.startsWith('locations')) ?? null,
    };
    ctx.out(
      toJson(
        problems.length > 0
          ? {
              valid: false,
              problems: problems.map((p) => ({
                file: p.file,
                line: p.line,
                col: p.col,
                message: p.message,
              })),
              ...common,
            }
          : {
              valid: true,
              rules: loaded.rules.length,
              files: loaded.files.length,
              notices: count('notices'),
              deadlines: count('deadlines'),
              capacity: count('capacity'),
              ...common,
            },
      ),
    );
    return;
  }
  if (problems.length > 0) {
    for (const p of problems) ctx.out(formatProblem(p));
    ctx.out(counted(problems.length, 'problem'));
  } else {
    ctx.out(
      `rules: ${counted(loaded.rules.length, 'rule')} in ${counted(loaded.files.length, 'file')} ` +
        `(${counted(count('notices'), 'notice rule')}, ${counted(count('deadlines'), 'deadline rule')}, ${counted(count('capacity'), 'capacity rule')})`,
    );
  }
  for (const note of notes) ctx.err(`pipewatch: ${note}`);
}
