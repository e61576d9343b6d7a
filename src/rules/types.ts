/**
 * Rules as pipewatch uses them once loaded: validated, durations in milliseconds, every
 * list in lower case, each rule knowing where it was written. The loader produces these
 * from YAML; matching and alert decisions consume them.
 */

/** Where a rule (or a problem with one) was written. */
export interface SourcePosition {
  file: string;
  line: number;
  col: number;
}

/** Where an alert goes. */
export type Target =
  | { kind: 'slack'; channel: string }
  | { kind: 'slack_dm'; user: string }
  | { kind: 'discord'; channel: string }
  | { kind: 'discord_dm'; user: string }
  | { kind: 'email'; to: string[] }
  | { kind: 'webhook'; url: string }
  | { kind: 'console' };

export type TargetKind = Target['kind'];

/** `slack:#ops`, `email:a@b.c,d@e.f`: a stable text form, used in keys and output. */
export function targetKey(t: Target): string {
  switch (t.kind) {
    case 'slack':
    case 'discord':
      return `${t.kind}:${t.channel}`;
    case 'slack_dm':
    case 'discord_dm':
      return `${t.kind}:${t.user}`;
    case 'email':
      return `email:${t.to.join(',')}`;
    case 'webhook':
      return `webhook:${t.url}`;
    case 'console':
      return 'console';
  }
}

/**
 * The target as it may be shown, in output, logs and the audit trail:
 * `slack:#gas-constraints`, `email:a@b.c`, and webhooks as
 * `webhook:https://hooks.example.com/…`, since a webhook's path, query and userinfo often
 * hold its token. `targetKey` stays the target's identity in keys and the database.
 */
export function targetLabel(target: Target): string {
  if (target.kind !== 'webhook') return targetKey(target);
  try {
    const url = new URL(target.url);
    return `webhook:${url.protocol}//${url.host}/…`;
  } catch {
    return 'webhook:…';
  }
}

/**
 * An outbox key (`rule|subject|target`) as it may be shown: its target part as
 * `targetLabel` shows it.
 */
export function keyLabel(key: string, target: Target): string {
  const id = targetKey(target);
  return key.endsWith(id) ? `${key.slice(0, key.length - id.length)}${targetLabel(target)}` : key;
}

/**
 * What a notice must look like. Each list matches a value equal to an entry or containing
 * it as whole words (letters, digits and hyphens), case-insensitively; absent: anything.
 */
export interface NoticeFilter {
  pipelines?: string[];
  types?: string[];
  categories?: string[];
  statuses?: string[];
  /** Pattern source (RE2), matched case-insensitively on the first 64 K characters of subject and of notice text. */
  text?: string;
}

/** A pipeline slug as a rule file wrote it, and where: for checking it against the API's list. */
export interface PipelineRef {
  slug: string;
  at: SourcePosition;
}

interface RuleBase {
  name: string;
  at: SourcePosition;
  notify: Target[];
  /** Every pipeline slug the rule names (its `not:` included), with its position. */
  pipelineRefs?: PipelineRef[];
}

/** Alerts on notices as they arrive or change. */
export interface NoticeRule extends RuleBase {
  kind: 'notices';
  filter: NoticeFilter;
  /** Notices matching this are left out, whatever `filter` says. */
  not?: NoticeFilter;
  on: Array<'new' | 'updated'>;
}

export type DeadlineField = 'response_at' | 'effective_at' | 'end_at';

/** Reminders before a notice's deadline. */
export interface DeadlineRule extends RuleBase {
  kind: 'deadlines';
  field: DeadlineField;
  /** Offsets before the deadline, in milliseconds, largest first. */
  beforeMs: number[];
  filter: NoticeFilter;
  not?: NoticeFilter;
}

/** OAC below a threshold (firing) and back above a recovery level (resolved). */
export interface CapacityRule extends RuleBase {
  kind: 'capacity';
  pipelines?: string[];
  /** Location names or identifiers. */
  locations?: string[];
  flow?: string[];
  cycles?: string[];
  /** `absolute`: OAC in Dth; `percent`: OAC as a percentage of OPC. */
  unit: 'absolute' | 'percent';
  below: number;
  /** Recovery level in the same unit; default 10% above `below`. */
  clearAbove: number;
  /** While it stays low, remind this often; absent: never. */
  repeatEveryMs?: number;
}

export type Rule = NoticeRule | DeadlineRule | CapacityRule;

/** A problem in a rule file, with its position. */
export interface RuleProblem extends SourcePosition {
  message: string;
}

/** `rules/ops.yaml:14:9: unknown target 'slak' — did you mean 'slack'?` */
export function formatProblem(p: RuleProblem): string {
  return `${p.file}:${p.line}:${p.col}: ${p.message}`;
}
