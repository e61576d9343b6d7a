/**
 * The words of the `/pipewatch` grammar that its parts share: the commands, what each
 * becomes once read, the vocabulary names are checked against, and where each value was
 * written. Everything here is a type or a constant, so every part of the grammar can
 * import it and it imports none of them.
 */
import type { z } from 'zod';
import type { UtcIso } from '../lib/time.js';
import type { KnownLocation } from '../rules/location-check.js';
import type { ruleSchema } from '../rules/schema.js';
import type { SilenceMatcher } from '../store/silences.js';
import type { ChatProblem } from './words.js';

/** The commands, in the order usage lists them. */
export const VERBS = [
  'subscribe',
  'remind',
  'oac',
  'list',
  'unsubscribe',
  'mute',
  'unmute',
  'help',
] as const;

/** `remind` without `before:`. */
export const DEFAULT_BEFORE: readonly string[] = ['24h', '2h'];
/** The shortest mute. */
export const MUTE_MIN_MS = 60_000;
/** The longest mute. */
export const MUTE_MAX_MS = 30 * 86_400_000;

/** A command's first word. */
export type Verb = (typeof VERBS)[number];

/** Longer than this is refused whole, before any word is read. */
export const COMMAND_MAX_LENGTH = 2_000;

type RuleInput = z.input<typeof ruleSchema>;
/** A rule file's `notices:` section, as written. */
export type NoticesInput = NonNullable<RuleInput['notices']>;
/** A rule file's `deadlines:` section, as written. */
export type DeadlinesInput = NonNullable<RuleInput['deadlines']>;
/** A rule file's `capacity:` section, as written. */
export type CapacityInput = NonNullable<RuleInput['capacity']>;
/** A rule's `escalate:`, as written. */
export type EscalateInput = NonNullable<RuleInput['escalate']>;

/** A command the grammar accepts; a rule's section is one the rule schema accepts too. */
export type ChatCommand =
  | { verb: 'subscribe'; notices: NoticesInput; escalate?: EscalateInput }
  | { verb: 'remind'; deadlines: DeadlinesInput }
  | { verb: 'oac'; capacity: CapacityInput }
  | { verb: 'list' }
  /** One subscription (or reminder) by id, or all of this channel's and the caller's. */
  | { verb: 'unsubscribe'; id: number | 'all' }
  /** No pipeline: the whole channel. */
  | ({ verb: 'mute' } & MuteInput)
  | { verb: 'unmute'; id?: number }
  | { verb: 'help'; topic?: Verb };

/**
 * What a mute holds back and when: a pipeline, matchers on the notice's fields (`type:`
 * as the words typed, `fields`), and `forMs` or `until`, from now or `from`.
 */
export interface MuteInput {
  pipeline?: string;
  /** Matchers on type, category and status; `fields` is how they were typed (`type:maintenance`). */
  matchers?: SilenceMatcher[];
  fields?: string;
  forMs?: number;
  /** Instants the user gave, in UTC. */
  from?: UtcIso;
  until?: UtcIso;
}

/** The commands that make a rule. */
export type ChatRuleCommand = Extract<ChatCommand, { verb: 'subscribe' | 'remind' | 'oac' }>;

/** What the store knows, to check names against; an empty list accepts anything. */
export interface ChatVocabulary {
  pipelines: readonly string[];
  types: readonly string[];
  categories: readonly string[];
  statuses: readonly string[];
  /**
   * The locations a pipeline is known to have (stored capacity of the last 7 days, and
   * the API's latest when it was asked); undefined, or absent: not known, not checked.
   */
  locations?: (slug: string) => readonly KnownLocation[] | undefined;
}

export type ParsedChatCommand =
  | { ok: true; command: ChatCommand }
  /** `verb` when the verb was understood, for its usage. Problems in column order. */
  | { ok: false; problems: ChatProblem[]; verb?: Verb };

/** Where a value of a rule section was written, and the name the command gave it. */
export interface ChatSpan {
  word: string;
  column: number;
  /** `below`, `pipeline 'transco'`: what a message about it begins with. */
  label: string;
}

/** Spans by path in the rule item, dotted: `notices.types.1`, `capacity.clear_above`. */
export type Spans = Map<string, ChatSpan>;
