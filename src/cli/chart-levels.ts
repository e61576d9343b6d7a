/**
 * The levels `pipewatch chart` draws: those given (`--threshold`, `--clear`), or else
 * those of the capacity rule in the rules directory that names the location, so that the
 * chart shows the lines its alerts are judged by without copying them by hand.
 */
import { quantity } from '../lib/quantity.js';
import { loadRules } from '../rules/loader.js';
import { textListMatcher } from '../rules/match.js';
import type { CapacityRule } from '../rules/types.js';
import { formatProblem } from '../rules/types.js';
import type { CliContext } from './context.js';

/** Options of `chart`. */
export interface ChartOptions {
  days: number;
  output?: string;
  threshold?: number;
  clear?: number;
  percent?: boolean;
}

/** What the chart draws its lines at, and why. */
export interface ChartLevels {
  threshold: number | null;
  clear: number | null;
  unit: 'absolute' | 'percent';
  /** Where the levels came from, a line for stderr; undefined when they were given. */
  said?: string;
}

/** A location as the store names it. */
export interface NamedLocation {
  identifier: string;
  location: string;
}

/**
 * The levels of the chart of `where` on `pipeline`: the options', when `--threshold` or
 * `--clear` is given; otherwise the first capacity rule (in file order) whose `locations`
 * name it, as alerts match them (name or identifier, whole words, any case), on its
 * pipeline; otherwise none.
 */
export function chartLevels(
  ctx: CliContext,
  pipeline: string,
  where: NamedLocation,
  opts: ChartOptions,
): ChartLevels {
  const unit = opts.percent ? 'percent' : 'absolute';
  if (opts.threshold !== undefined || opts.clear !== undefined)
    return { threshold: opts.threshold ?? null, clear: opts.clear ?? null, unit };
  const naming = loadRules(ctx.config.rulesDir, { cwd: ctx.io.cwd }).rules.filter(
    (r): r is CapacityRule => r.kind === 'capacity' && names(r, pipeline, where),
  );
  const [rule] = naming;
  if (!rule) return { threshold: null, clear: null, unit };
  const at = formatProblem({ ...rule.at, message: '' }).slice(0, -2);
  if (opts.percent && rule.unit !== 'percent')
    return {
      threshold: null,
      clear: null,
      unit,
      said: `pipewatch chart: no lines: rule ${rule.name} (${at}) compares OAC in Dth, not as a percentage; give --threshold and --clear`,
    };
  const others = naming.length - 1;
  const also =
    others > 0
      ? `; ${others} other rule${others === 1 ? ' names' : 's name'} it too (--threshold and --clear choose)`
      : '';
  const percent = rule.unit === 'percent';
  const shown = (v: number) => (percent ? `${v}%` : `${quantity(v)} Dth`);
  return {
    threshold: rule.below,
    clear: rule.clearAbove,
    unit: rule.unit,
    said: `pipewatch chart: lines of rule ${rule.name} (${at}): below ${shown(rule.below)}, clear above ${shown(rule.clearAbove)}${percent ? ' of OPC' : ''}${also}`,
  };
}

function names(rule: CapacityRule, pipeline: string, where: NamedLocation): boolean {
  if (!rule.locations) return false;
  if (rule.pipelines && !textListMatcher(rule.pipelines)(pipeline)) return false;
  const matches = textListMatcher(rule.locations);
  return matches(where.location) || (where.identifier !== '' && matches(where.identifier));
}
