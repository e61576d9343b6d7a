/**
 * `pipewatch rules test`: a dry run of the rules over stored notices (or one notice, or a
 * notice in a JSON file) and the latest stored capacity: which rules would fire, to which
 * targets, and why the others would not. Sends nothing and writes nothing.
 */
import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import { z } from 'zod';
import { measure } from '../alerts/capacity-decisions.js';
import { explainNotice, type Verdict } from '../alerts/explain.js';
import { compileRules } from '../alerts/rules.js';
import { formatDuration, parseDuration } from '../lib/duration.js';
import { loadRules } from '../rules/loader.js';
import { formatProblem } from '../rules/types.js';
import { Store } from '../store/index.js';
import { type Notice, NoticeSchema, toUtcIso } from '../upstream/schemas.js';
import type { CliContext } from './context.js';
import { clip } from './format.js';

interface TestOptions {
  notice?: number;
  since: number;
  file?: string;
}

function readNoticeFile(path: string): Notice[] {
  const raw: unknown = JSON.parse(readFileSync(path, 'utf8'));
  const items = Array.isArray(raw) ? raw : [raw];
  return z.array(NoticeSchema).parse(items);
}

/** Adds `test` to the `rules` command. */
export function addRulesTestCommand(rules: Command, ctx: CliContext): Command {
  return rules
    .command('test')
    .description(
      'dry run: which rules would fire on stored notices and capacity, and why not; sends and writes nothing',
    )
    .option('--notice <id>', 'only this stored notice', (v) => {
      if (!/^\d+$/.test(v)) throw new InvalidArgumentError('must be a notice id');
      return Number(v);
    })
    .option(
      '--since <duration>',
      'notices posted within this long',
      (v) => {
        const ms = parseDuration(v);
        if (ms === undefined)
          throw new InvalidArgumentError('must be a duration such as 7d or 12h');
        return ms;
      },
      7 * 86_400_000,
    )
    .option(
      '--file <file.json>',
      "a notice (or a list) in the API's JSON form instead of stored ones",
    )
    .action((opts: TestOptions) => {
      const { config } = ctx;
      const loaded = loadRules(config.rulesDir, { cwd: ctx.io.cwd });
      if (loaded.problems.length > 0) {
        for (const p of loaded.problems) ctx.out(formatProblem(p));
        ctx.exitCode = 1;
        return;
      }
      const compiled = compileRules(loaded.rules);
      const now = ctx.clock.now();
      let store: Store | undefined;
      try {
        let notices: Notice[];
        if (opts.file) {
          notices = readNoticeFile(opts.file);
        } else {
          store = Store.openReadonly(config.dataDir);
          if (opts.notice !== undefined) {
            const one = store.notices.get(opts.notice);
            if (!one) throw new Error(`notice ${opts.notice} is not stored`);
            notices = [one];
          } else {
            notices = store.notices.postedSince(toUtcIso(new Date(now.getTime() - opts.since)));
          }
        }
        const single = notices.length === 1;
        const tally = new Map<string, { fires: number; reasons: Map<string, number> }>();
        for (const n of notices) {
          const verdicts = explainNotice(compiled, n, now, config.maxAlertAgeMs).filter(
            (v) => v.kind !== 'capacity',
          );
          const firing = verdicts.filter((v) => v.fires);
          if (single || firing.length > 0)
            ctx.out(`#${n.id} ${n.pipeline_slug} ${n.posted_at ?? '-'} ${clip(n.subject, 70)}`);
          for (const v of single ? verdicts : firing) ctx.out(`  ${line(v)}`);
          for (const v of verdicts) {
            const t = tally.get(v.rule) ?? { fires: 0, reasons: new Map() };
            if (v.fires) t.fires++;
            else
              t.reasons.set(
                v.reason.replace(/ \d{4}-.*$/, ''),
                (t.reasons.get(v.reason.replace(/ \d{4}-.*$/, '')) ?? 0) + 1,
              );
            tally.set(v.rule, t);
          }
        }
        if (!single) {
          ctx.out(
            `\n${notices.length} notices${opts.file ? ` from ${opts.file}` : ` posted in the last ${formatDuration(opts.since)}`}:`,
          );
          for (const [rule, t] of tally) {
            const why = [...t.reasons]
              .sort((a, b) => b[1] - a[1])
              .map(([r, c]) => `${r} (${c})`)
              .join('; ');
            ctx.out(`  ${rule}: fires on ${t.fires}${why ? `; not: ${why}` : ''}`);
          }
        }
        if (store && !opts.notice) testCapacity(ctx, store, compiled);
      } finally {
        store?.close();
      }
    });
}

function line(v: Verdict): string {
  return v.fires
    ? `${v.rule}: fires → ${v.targets.join(', ')} (${v.reason})`
    : `${v.rule}: no: ${v.reason}`;
}

function testCapacity(
  ctx: CliContext,
  store: Store,
  compiled: ReturnType<typeof compileRules>,
): void {
  for (const c of compiled.capacity) {
    const r = c.rule;
    const slugs = store.pipelines
      .all()
      .map((p) => p.slug)
      .filter((s) => c.pipeline(s));
    const lows: string[] = [];
    for (const slug of slugs) {
      const cycle = store.capacity.latest(slug);
      if (!cycle || !c.cycle(cycle.cycle)) continue;
      for (const l of store.capacity.locations(cycle.id)) {
        if (!c.location(l.location, l.identifier) || !c.flow(l.flow)) continue;
        const value = measure(l, r.unit);
        if (value !== null && value < r.below)
          lows.push(
            `${slug} ${l.location} (${cycle.cycle} ${cycle.gas_day}): ${Math.round(value).toLocaleString('en-US')}`,
          );
      }
    }
    ctx.out(
      `\n${r.name} (capacity below ${r.below}${r.unit === 'percent' ? '% of OPC' : ''}, latest stored cycles):`,
    );
    ctx.out(
      lows.length > 0
        ? lows.map((l) => `  below: ${l}`).join('\n')
        : '  nothing below the threshold',
    );
  }
}
