/**
 * Rules as pipewatch uses them once loaded: validated, durations in milliseconds, every
 * list in lower case, each rule knowing where it was written. The loader produces these
 * from YAML; matching and alert decisions consume them.
 */
import type { Target } from '../domain/targets.js';

/** Where a rule (or a problem with one) was written. */
export interface SourcePosition {
  file: string;
  line: number;
  col: number;
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

/** A location entry of a capacity rule as written, and where: for checking it against capacity. */
export interface LocationRef {
  location: string;
  at: SourcePosition;
}

/** Where a subscription came from: rules made from chat or the CLI rather than a file. */
export interface RuleOrigin {
  subscription: number;
  /** `slack:C0GAS by U0ALICE, 2026-11-23`. */
  label: string;
  createdAt: string;
  /** A reminder for this one notice ("Remind me"): it matches no other. */
  noticeId?: number;
}

interface RuleBase {
  name: string;
  at: SourcePosition;
  notify: Target[];
  /** Set on a subscription; a rule file's rules have none. */
  origin?: RuleOrigin;
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
  /** Where an alert nobody acknowledged within `afterMs` goes, once. */
  escalate?: Escalation;
}

/** A notice rule's `escalate:`: its wait in milliseconds and its targets. */
export interface Escalation {
  afterMs: number;
  to: Target[];
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
  /** Each `locations` entry as written (case kept), with its position. */
  locationRefs?: LocationRef[];
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
