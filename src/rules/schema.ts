/**
 * The rule-file format as one zod schema: it validates what the YAML loader reads, turns a
 * valid rule into the `Rule` the rest of pipewatch uses, and generates `rules/schema.json`
 * so that editors check and complete rule files with the very same definition.
 *
 * Regenerate the JSON Schema with `node --import tsx scripts/rules-schema.ts`.
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { targetSchema } from '../domain/targets.js';
import { parseDuration } from '../lib/duration.js';
import { exactlyOne, whenMapping } from '../lib/zod-checks.js';
import { words } from './match.js';
import { PATTERN_MAX_LENGTH, patternProblem } from './pattern.js';

export { TARGET_KINDS } from '../domain/targets.js';

import { type Target, targetKey, targetLabel } from '../domain/targets.js';
import type { NoticeFilter, Rule } from './types.js';

/** A rule as the schema produces it; the loader adds where it was written (`at`). */
export type RuleBody = Rule extends infer R ? (R extends Rule ? Omit<R, 'at'> : never) : never;

export const RULE_KINDS = ['notices', 'deadlines', 'capacity'] as const;
export const CYCLES = ['latest', 'timely', 'evening', 'id1', 'id2', 'id3'] as const;
export const DEADLINE_FIELDS = ['response_at', 'effective_at', 'end_at'] as const;

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
/** The names of subscriptions (`sub-12`), which rule files may not take. */
export const SUBSCRIPTION_NAME = /^sub-\d+$/i;
const DURATION_PATTERN = '^\\s*(\\d+(\\.\\d+)?([mM][sS]|[sSmMhHdDwW]))+\\s*$';

/** An optional number of at least 0 (and at most `max`). */
function amount(description: string, max = Number.POSITIVE_INFINITY) {
  return z.number().min(0).max(max).describe(description).optional();
}

const entry = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => words(v).length > 0, 'must contain a letter or a digit');
/** Checked after trimming and lower-casing, so not as a JSON Schema pattern, which would not be. */
const slug = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => SLUG.test(v), "must be a pipeline slug such as 'texas-eastern'");

/** A non-empty list, without repeats. */
function list<T extends z.ZodType<string, string>>(item: T, description: string) {
  return z
    .array(item)
    .min(1, 'must not be empty; leave it out to match all')
    .describe(description)
    .transform((v) => [...new Set(v)])
    .optional();
}

/** A duration text, in milliseconds. */
const duration = z
  .string({ error: 'must be a duration such as 90s, 10m, 24h or 2d' })
  .meta({ pattern: DURATION_PATTERN })
  .transform((v, ctx) => {
    const ms = parseDuration(v);
    if (ms === undefined || ms <= 0) {
      ctx.addIssue({
        code: 'custom',
        message:
          ms === undefined
            ? `'${v}' is not a duration (a number and a unit: s, m, h or d, such as 24h)`
            : 'must be longer than 0s',
      });
      return z.NEVER;
    }
    return ms;
  });

const regex = z
  .string()
  .min(1, 'must not be empty; leave it out to match all')
  .meta({ maxLength: PATTERN_MAX_LENGTH })
  .superRefine((v, ctx) => {
    const problem = patternProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .describe(
    'regular expression (RE2: no look-around or back-references), case-insensitive, on the first 64 K characters of subject and of notice text',
  );

const filterShape = {
  pipelines: list(slug, 'pipeline slugs; omitted: all'),
  types: list(entry, 'notice types, whole words; omitted: all'),
  categories: list(entry, 'notice categories, whole words; omitted: all'),
  statuses: list(entry, 'notice statuses, whole words; omitted: all'),
  text: regex.optional(),
};

type FilterInput = { [K in keyof NoticeFilter]?: NoticeFilter[K] | undefined };

/** Only the fields that are there. */
function filterOf(f: FilterInput): NoticeFilter {
  const out: NoticeFilter = {};
  for (const key of ['pipelines', 'types', 'categories', 'statuses', 'text'] as const) {
    if (f[key] !== undefined) (out as Record<string, unknown>)[key] = f[key];
  }
  return out;
}

const exclusion = z
  .strictObject(filterShape)
  .refine((f) => Object.keys(f).length > 0, 'must have at least one field')
  .describe('notices matching this are left out')
  .transform(filterOf)
  .optional();

const notices = z
  .strictObject({
    ...filterShape,
    on: z
      .array(z.enum(['new', 'updated']))
      .min(1, 'must not be empty')
      .describe('default [new]')
      .optional(),
    not: exclusion,
  })
  .describe('alert on notices as they arrive or change')
  .transform(({ on, not, ...filter }) => ({
    filter: filterOf(filter),
    ...(not ? { not } : {}),
    on: [...new Set(on ?? (['new'] as const))],
  }));

const deadlines = z
  .strictObject({
    field: z.enum(DEADLINE_FIELDS).describe('default response_at').optional(),
    before: z
      .union([duration, z.array(duration).min(1, 'must not be empty')], {
        error: 'must be a duration or a list of durations, such as [24h, 2h]',
      })
      .describe('reminders this long before the deadline'),
    ...filterShape,
    not: exclusion,
  })
  .describe("remind before a notice's deadline")
  .transform(({ field, before, not, ...filter }) => ({
    field: field ?? 'response_at',
    beforeMs: [...new Set(Array.isArray(before) ? before : [before])].sort((a, b) => b - a),
    filter: filterOf(filter),
    ...(not ? { not } : {}),
  }));

const capacity = z
  .strictObject({
    pipelines: list(slug, 'pipeline slugs; omitted: all'),
    locations: list(entry, 'location names or identifiers; omitted: all'),
    flow: list(entry, 'flow indicators such as D, R, BD; omitted: all'),
    cycles: list(z.enum(CYCLES), 'nomination cycles; omitted: all'),
    oac_below: amount('fire when OAC (Dth) falls below this'),
    oac_pct_below: amount('fire when OAC falls below this percentage of OPC', 100),
    clear_above: amount('resolve when back above this (same unit); default 10% above threshold'),
    repeat_every: duration.describe('while low, remind this often').optional(),
  })
  .superRefine(
    exactlyOne(
      ['oac_below', 'oac_pct_below'],
      'needs oac_below or oac_pct_below',
      () => 'oac_below and oac_pct_below exclude each other; keep one',
    ),
    whenMapping,
  )
  .superRefine((c, ctx) => {
    const below = c.oac_below ?? c.oac_pct_below;
    const given = [c.oac_below, c.oac_pct_below].filter((v) => v !== undefined).length;
    if (typeof below !== 'number' || typeof c.clear_above !== 'number' || given > 1) return;
    if (c.clear_above <= below) {
      ctx.addIssue({
        code: 'custom',
        path: ['clear_above'],
        message: `must be above the threshold (${below})`,
      });
    } else if (c.oac_pct_below !== undefined && c.clear_above > 100) {
      ctx.addIssue({ code: 'custom', path: ['clear_above'], message: 'must be at most 100 (%)' });
    }
  }, whenMapping)
  .meta({ oneOf: [{ required: ['oac_below'] }, { required: ['oac_pct_below'] }] })
  .describe('OAC below a threshold (firing) and back above a recovery level (resolved)')
  .transform(({ oac_below, oac_pct_below, clear_above, repeat_every, ...where }, ctx) => {
    const unit = oac_pct_below === undefined ? ('absolute' as const) : ('percent' as const);
    const below = oac_below ?? oac_pct_below;
    // The check above refused a condition with neither: nothing more to say of it.
    if (below === undefined) {
      if (ctx.issues.length === 0)
        ctx.addIssue({ code: 'custom', message: 'needs oac_below or oac_pct_below' });
      return z.NEVER;
    }
    const fallback = Math.round((below + below / 10) * 1e6) / 1e6;
    return {
      ...where,
      unit,
      below,
      clearAbove: clear_above ?? (unit === 'percent' ? Math.min(fallback, 100) : fallback),
      ...(repeat_every === undefined ? {} : { repeatEveryMs: repeat_every }),
    };
  });

/** The shortest and longest wait before an escalation. */
export const ESCALATE_AFTER_MIN_MS = 60_000;
export const ESCALATE_AFTER_MAX_MS = 7 * 86_400_000;

/** The target kinds whose messages carry an Acknowledge button: the only way to stop an escalation. */
export const ACKNOWLEDGING_KINDS: readonly Target['kind'][] = ['slack', 'discord'];

/** Repeats within a list of targets, each named by its label (a secret never shows). */
function noRepeats(targets: readonly Target[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  targets.forEach((t, i) => {
    const key = targetKey(t);
    if (seen.has(key))
      ctx.addIssue({ code: 'custom', path: [i], message: `repeats ${targetLabel(t)}` });
    seen.add(key);
  });
}

const targets = (description: string) =>
  z
    .array(targetSchema)
    .min(1, 'must list at least one target')
    .superRefine((list, ctx) => {
      if (ctx.issues.length === 0) noRepeats(list, ctx);
    })
    .describe(description);

const escalate = z
  .strictObject({
    after: duration
      .refine(
        (ms) => ms >= ESCALATE_AFTER_MIN_MS && ms <= ESCALATE_AFTER_MAX_MS,
        'must be between 1m and 7d',
      )
      .describe('how long an alert may go unacknowledged, such as 30m'),
    to: targets('where an unacknowledged alert goes, once, such as a PagerDuty service'),
  })
  .describe(
    'a notice alert nobody acknowledged (the Acknowledge button, on Slack or Discord) within `after` goes to `to`, once; an acknowledgement after that resolves its PagerDuty incidents',
  )
  .transform(({ after, to }) => ({ afterMs: after, to }));

/** One rule, on its own. */
export const ruleSchema = z
  .strictObject({
    name: z
      .string()
      .trim()
      .max(100, 'must be at most 100 characters')
      .regex(NAME, "must be letters, digits, '-', '_' or '.', such as 'transco-constraints'")
      .refine(
        (v) => !SUBSCRIPTION_NAME.test(v),
        "names such as 'sub-12' are kept for subscriptions made from chat; choose another",
      )
      .describe('unique across all rule files'),
    notices: notices.optional(),
    deadlines: deadlines.optional(),
    capacity: capacity.optional(),
    notify: targets('where alerts go'),
    escalate: escalate.optional(),
  })
  .superRefine(
    exactlyOne(
      RULE_KINDS,
      `needs one of ${RULE_KINDS.join(', ')}`,
      (key) => `a rule has exactly one of ${RULE_KINDS.join(', ')}; this one also has '${key}'`,
    ),
    whenMapping,
  )
  .superRefine((r, ctx) => {
    if (!r.escalate || ctx.issues.length > 0) return;
    if (!r.notices) {
      ctx.addIssue({
        code: 'custom',
        path: ['escalate'],
        message: 'is for notices rules: only a notice alert can be acknowledged',
      });
      return;
    }
    if (!r.notify.some((t) => ACKNOWLEDGING_KINDS.includes(t.kind))) {
      ctx.addIssue({
        code: 'custom',
        path: ['escalate'],
        message:
          'needs a slack or discord channel in notify: the Acknowledge button on its message is what stops an escalation, and without one every alert would escalate',
      });
    }
    const notified = new Set(r.notify.map(targetKey));
    r.escalate.to.forEach((t, i) => {
      if (notified.has(targetKey(t)))
        ctx.addIssue({
          code: 'custom',
          path: ['escalate', 'to', i],
          message: `${targetLabel(t)} is in notify already: it hears of every alert at once`,
        });
    });
  }, whenMapping)
  .meta({ oneOf: RULE_KINDS.map((k) => ({ required: [k] })) })
  .transform(({ name, notify, escalate, ...kinds }, ctx): RuleBody => {
    if (kinds.notices)
      return { name, kind: 'notices', ...kinds.notices, notify, ...(escalate ? { escalate } : {}) };
    if (kinds.deadlines) return { name, kind: 'deadlines', ...kinds.deadlines, notify };
    if (kinds.capacity) return { name, kind: 'capacity', ...kinds.capacity, notify };
    // The check above refused a rule of no kind: nothing more to say of it.
    if (ctx.issues.length === 0)
      ctx.addIssue({ code: 'custom', message: `needs one of ${RULE_KINDS.join(', ')}` });
    return z.NEVER;
  });

/** A whole rule file. */
export const ruleFileSchema = z
  .strictObject({ rules: z.array(ruleSchema).describe('the rules of this file') })
  .meta({
    title: 'pipewatch rule file',
    description: 'Alert rules: notices, deadline reminders and capacity thresholds.',
  });

/** Where the generated JSON Schema is committed, next to the example rule files. */
export const RULES_SCHEMA_FILE = fileURLToPath(new URL('../../rules/schema.json', import.meta.url));

/** The JSON Schema of a rule file (draft-07, which YAML editors support widely), as file text. */
export function rulesJsonSchemaText(): string {
  const schema = z.toJSONSchema(ruleFileSchema, { io: 'input', target: 'draft-07' });
  return `${JSON.stringify(schema, null, 2)}\n`;
}

/** The keys a mapping at `path` of a rule file may have, or `undefined` when it is no mapping. */
export function knownKeys(path: readonly PropertyKey[]): string[] | undefined {
  let s: z.ZodType | undefined = ruleFileSchema;
  for (const segment of [...path, undefined]) {
    for (;;) {
      if (s instanceof z.ZodOptional) s = s.unwrap() as z.ZodType;
      else if (s instanceof z.ZodPipe) s = s.in as z.ZodType;
      else if (s instanceof z.ZodUnion) s = s.options.find((o) => o instanceof z.ZodObject);
      else break;
    }
    if (segment === undefined) break;
    if (s instanceof z.ZodObject) s = s.shape[segment as string];
    else if (s instanceof z.ZodArray) s = s.element as z.ZodType;
    else return undefined;
  }
  return s instanceof z.ZodObject ? Object.keys(s.shape) : undefined;
}
