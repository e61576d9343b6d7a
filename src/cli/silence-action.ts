/**
 * What the `silence` subcommands do once they run, on the daemon's database. Apart from
 * their definitions, so `--help` loads none of it.
 */
import { equalValues } from '../alerts/silence-matchers.js';
import { silenceReachWarning } from '../alerts/silence-reach.js';
import { targetKey } from '../domain/targets.js';
import { formatDuration } from '../lib/duration.js';
import { toUtcIso, type UtcIso } from '../lib/time.js';
import { counted } from '../lib/words.js';
import { subscriptionName } from '../rules/subscription.js';
import type { AsyncStore } from '../store/async-store.js';
import { type SilenceRow, silenceEnd } from '../store/silences.js';
import type { CliContext } from './context.js';
import { BadInputError } from './errors.js';
import { table, toJson, when } from './format.js';
import { loadRuleSources, type RuleSources } from './rule-sources.js';
import { matchersLine, matchesEverything, parseMatchers, shownTarget } from './silence-matchers.js';
import { RECENTLY_ENDED_MS, silenceWindow } from './silence-window.js';
import { cliUser, withStore } from './store-command.js';

/** `active`, `pending`, `ended`, or `lifted by alice`, at `now`. */
export function silenceState(s: SilenceRow, now: UtcIso): string {
  const end = silenceEnd(s);
  if (s.lifted_at !== null && end === s.lifted_at) return `lifted by ${s.lifted_by ?? 'someone'}`;
  if (end !== null && Date.parse(end) <= Date.parse(now)) return 'ended';
  if (Date.parse(s.starts_at) > Date.parse(now)) return 'pending';
  return 'active';
}

/** The options of `silence add`, as commander parses them. */
export interface SilenceAddOptions {
  for?: number;
  start?: Date;
  end?: Date;
  comment?: string;
  everything?: boolean;
}

/** Targets some rule in force sends to: a silence on another one holds nothing back. */
function usedTargets(sources: RuleSources): Set<string> {
  return new Set([
    ...sources.rules.flatMap((r) => r.notify.map(targetKey)),
    ...sources.subscriptions.map((s) => s.target),
  ]);
}

/** `silence add`: checks the matchers against what exists, then stores the silence. */
export async function addSilence(
  ctx: CliContext,
  words: string[],
  opts: SilenceAddOptions,
): Promise<void> {
  if (opts.everything && words.length > 0)
    throw new BadInputError(['--everything silences every alert: give it no matchers']);
  await withStore(ctx, async (store) => {
    const sources = await loadRuleSources(ctx, store);
    const parsed = parseMatchers(words, {
      pipelines: (await store.pipelines.all()).map((p) => p.slug),
      rules: [
        ...sources.rules.filter((r) => !r.origin).map((r) => r.name),
        ...sources.subscriptions.map((s) => subscriptionName(s.id)),
      ],
      rulesNote:
        sources.fileProblems.length > 0
          ? "the rule files have problems; see 'pipewatch rules validate'"
          : undefined,
    });
    if (parsed.problems.length > 0) throw new BadInputError(parsed.problems);
    if (matchesEverything(parsed.matchers) && !opts.everything)
      throw new BadInputError([
        'a silence needs at least one matcher (pipeline=…, target=…, rule=…, type=…, category=…, status=…); to hold back every alert, say --everything',
      ]);
    const used = usedTargets(sources);
    for (const t of equalValues(parsed.matchers, 'target') ?? [])
      if (!used.has(t))
        ctx.err(
          `pipewatch: no rule or subscription sends to ${shownTarget(t)} now; the silence holds nothing back for it until one does`,
        );
    const now = ctx.clock.now();
    const window = silenceWindow(now, opts);
    if ('problem' in window) throw new BadInputError([window.problem]);
    const { startsAt, endsAt, ms } = window;
    const createdAt = toUtcIso(now);
    const id = await store.silences.add({
      matchers: parsed.matchers,
      starts_at: startsAt,
      ends_at: endsAt,
      created_by: cliUser(),
      comment: opts.comment?.trim() || null,
      created_at: createdAt,
    });
    const reach = await silenceReachWarning(store, parsed.matchers, createdAt);
    if (reach) ctx.err(`pipewatch: warning: ${reach}`);
    const from = startsAt > createdAt ? ` from ${startsAt}` : '';
    const pending = from ? '; pending: it holds nothing back before its start' : '';
    ctx.out(
      `silence ${id}: ${matchersLine(parsed.matchers)}${from} until ${endsAt} (${formatDuration(ms)})${pending}`,
    );
  });
}

/** A silence as `silence list --json` prints it: ISO 8601 UTC datetimes, null for absent. */
function silenceJson(s: SilenceRow, held: number, now: UtcIso) {
  return {
    id: s.id,
    matchers: s.matchers.map((m) => ({
      key: m.key,
      op: m.op,
      value: m.key === 'target' && (m.op === '=' || m.op === '!=') ? shownTarget(m.value) : m.value,
    })),
    starts_at: s.starts_at,
    ends_at: s.ends_at,
    state: silenceState(s, now),
    held,
    created_by: s.created_by,
    created_at: s.created_at,
    comment: s.comment,
    lifted_at: s.lifted_at,
    lifted_by: s.lifted_by,
  };
}

/** `silence list`: the silences in force and recently ended, with what each held back. */
export async function listSilences(
  ctx: CliContext,
  opts: { json?: boolean; all?: boolean },
): Promise<void> {
  await withStore(ctx, async (store) => {
    const now = ctx.clock.now();
    const nowIso = toUtcIso(now);
    const rows = await store.silences.list(
      opts.all ? undefined : toUtcIso(new Date(now.getTime() - RECENTLY_ENDED_MS)),
    );
    const held = await store.silences.heldCounts();
    if (opts.json) {
      ctx.out(toJson(rows.map((s) => silenceJson(s, held.get(s.id) ?? 0, nowIso))));
      return;
    }
    if (rows.length === 0) {
      ctx.out(
        opts.all
          ? 'no silences'
          : `no silences in force or ended in the last ${formatDuration(RECENTLY_ENDED_MS)} (--all lists every one)`,
      );
      return;
    }
    ctx.out(
      table(
        ['id', 'matchers', 'starts', 'ends', 'state', 'held', 'by', 'comment'],
        rows.map((s) => [
          String(s.id),
          matchersLine(s.matchers),
          when(s.starts_at),
          s.ends_at === null ? 'until lifted' : when(s.ends_at),
          silenceState(s, nowIso),
          String(held.get(s.id) ?? 0),
          s.created_by,
          s.comment ?? '',
        ]),
        ['right', 'left', 'left', 'left', 'left', 'right'],
      ),
    );
  });
}

/** Silence `id` as stored, or `undefined` after saying there is none (exit status 1). */
async function storedSilence(
  ctx: CliContext,
  store: AsyncStore,
  id: number,
): Promise<SilenceRow | undefined> {
  const s = await store.silences.get(id);
  if (s) return s;
  ctx.err(`pipewatch: no silence ${id} (see 'pipewatch silence list --all')`);
  ctx.exitCode = 1;
  return undefined;
}

/** `silence expire`: lifts a silence now, or says why it cannot. */
export async function expireSilence(ctx: CliContext, id: number): Promise<void> {
  await withStore(ctx, async (store) => {
    const s = await storedSilence(ctx, store, id);
    if (!s) return;
    const now = toUtcIso(ctx.clock.now());
    if (!(await store.silences.lift(id, cliUser(), now))) {
      const state = silenceState(s, now);
      ctx.err(
        state === 'ended'
          ? `pipewatch: silence ${id} already ended at ${silenceEnd(s)}`
          : `pipewatch: silence ${id} was already ${state} at ${s.lifted_at}`,
      );
      ctx.exitCode = 1;
      return;
    }
    const held = (await store.silences.heldCounts()).get(id) ?? 0;
    const what =
      held === 0
        ? 'it held nothing back'
        : `it held back ${counted(held, 'alert')}, which the daemon sums up to their targets`;
    ctx.out(`silence ${id} lifted: ${matchersLine(s.matchers)}; ${what}`);
  });
}

/**
 * `silence extend`: a new end for a silence in force or pending. `--for` counts from its
 * start, as amtool's `silence update --duration` does, so it says how long the silence
 * lasts in all; `--end` names the end. An ended, lifted or endless one is refused.
 */
export async function extendSilence(
  ctx: CliContext,
  id: number,
  opts: { for?: number | undefined; end?: Date | undefined },
): Promise<void> {
  if (opts.for === undefined && opts.end === undefined)
    throw new BadInputError([
      'silence extend needs --for DURATION (from its start) or --end INSTANT',
    ]);
  await withStore(ctx, async (store) => {
    const s = await storedSilence(ctx, store, id);
    if (!s) return;
    const now = toUtcIso(ctx.clock.now());
    const state = silenceState(s, now);
    if (state !== 'active' && state !== 'pending') {
      ctx.err(
        state === 'ended'
          ? `pipewatch: silence ${id} already ended at ${silenceEnd(s)}; add a new one`
          : `pipewatch: silence ${id} was ${state} at ${s.lifted_at}; add a new one`,
      );
      ctx.exitCode = 1;
      return;
    }
    if (s.ends_at === null) {
      ctx.err(`pipewatch: silence ${id} has no end to move: it lasts until lifted`);
      ctx.exitCode = 1;
      return;
    }
    const start = new Date(s.starts_at);
    const window = silenceWindow(start, { for: opts.for, end: opts.end });
    if ('problem' in window) throw new BadInputError([window.problem]);
    if (window.endsAt <= now)
      throw new BadInputError([
        `silence ${id} would end at ${window.endsAt}, before now (it started at ${s.starts_at}; --for counts from its start); to end it now, 'pipewatch silence expire ${id}'`,
      ]);
    if (!(await store.silences.setEnd(id, window.endsAt, now))) {
      ctx.err(`pipewatch: silence ${id} ended meanwhile; add a new one`);
      ctx.exitCode = 1;
      return;
    }
    ctx.out(
      `silence ${id}: ${matchersLine(s.matchers)} from ${s.starts_at} until ${window.endsAt} (${formatDuration(window.ms)} in all; was until ${s.ends_at})`,
    );
  });
}
