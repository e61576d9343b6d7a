/**
 * The alert as it leaves pipewatch: the webhook payload of the product contract
 * (version 1), without `sent_at`, which the channel adds when it sends. Every channel
 * renders from this one shape.
 */

import type { UtcIso } from '../lib/time.js';
import type { CapacityLocation, Notice } from '../upstream/schemas.js';

export type AlertKind = 'notice' | 'deadline' | 'capacity' | 'operations' | 'silence';
export type AlertState =
  | 'firing'
  | 'resolved'
  | 'new'
  | 'updated'
  | 'reminder'
  | 'schema-drift'
  | 'unknown-pipeline'
  | 'unknown-location'
  | 'channel-gone'
  | OutageEvent
  | 'ended';

/** The API's catalog changed. */
export interface SchemaDriftOperation {
  event: 'schema-drift';
  /** What changed, in one sentence. */
  summary: string;
  table: string;
  previous_hash: string;
  hash: string;
  seen_at: UtcIso;
}

/** A rule names a pipeline slug the API does not track, so it can never match it. */
export interface UnknownPipelineOperation {
  event: 'unknown-pipeline';
  /** What is wrong and what to do, in one sentence. */
  summary: string;
  rule: string;
  slug: string;
  /** The tracked slug it was most likely meant to be. */
  suggestion: string | null;
  /** `rules/low-oac.yaml:4:28`. */
  at: string;
  seen_at: UtcIso;
}

/** A capacity rule names a location no capacity of its pipelines has, so it can never match it. */
export interface UnknownLocationOperation {
  event: 'unknown-location';
  /** What is wrong and what to do, in one sentence. */
  summary: string;
  rule: string;
  /** The location entry as written. */
  location: string;
  /** The pipelines whose locations it was checked against; empty: every pipeline. */
  pipelines: string[];
  /** The location name or identifier it was most likely meant to be. */
  suggestion: string | null;
  /** `rules/low-oac.yaml:5:19`. */
  at: string;
  seen_at: UtcIso;
}

/** A chat channel went away (archived, deleted, the bot removed): its subscriptions paused. */
export interface ChannelGoneOperation {
  event: 'channel-gone';
  /** What happened and what to do, in one sentence. */
  summary: string;
  /** `slack:C0GAS`. */
  channel: string;
  /** What the platform said: `the channel was archived (is_archived)`. */
  reason: string;
  /** How many subscriptions paused. */
  paused: number;
  seen_at: UtcIso;
}

/** The operations events of an outage: what pipewatch cannot see or reach, and its end. */
export type OutageEvent = 'feed-stale' | 'feed-recovered' | 'target-dead' | 'target-recovered';

/**
 * A feed has not succeeded for longer than three of its intervals: pipewatch cannot see
 * that part of the API (credentials refused, the API down, its answers no longer read).
 */
export interface FeedStaleOperation {
  event: 'feed-stale';
  /** What pipewatch cannot see, since when, why and what to check, in one paragraph. */
  summary: string;
  /** `notices`, `capacity`, `pipelines`, `catalog`, `alerts`, `retention`. */
  feed: string;
  interval_seconds: number;
  /** Its last success; null: none known (the staleness then counts from the daemon's start). */
  last_success_at: UtcIso | null;
  /** The code of its latest error (`UPSTREAM_AUTH`), and the error; null: none recorded. */
  last_error_code: string | null;
  last_error: string | null;
  seen_at: UtcIso;
}

/** A stale feed succeeded again. */
export interface FeedRecoveredOperation {
  event: 'feed-recovered';
  summary: string;
  feed: string;
  /** Its last success before the outage; null: none known. */
  last_success_at: UtcIso | null;
  /** When pipewatch found it stale. */
  stale_at: UtcIso;
  /** The success that ended it. */
  seen_at: UtcIso;
}

/**
 * Alerts to a target are not getting through: one failed for good (it is dead), or one
 * has waited longer than `PIPEWATCH_DELIVERY_STUCK_AFTER` (it is stuck).
 */
export interface TargetDeadOperation {
  event: 'target-dead';
  summary: string;
  /** The target as it may be shown: `slack:#gas`, `webhook:https://hooks.example.com/…`. */
  target: string;
  how: 'dead' | 'stuck';
  /** Why its delivery failed, secrets removed. */
  reason: string;
  /** The kind of failure (a `DeliveryErrorCode`); null: unknown. */
  code: string | null;
  seen_at: UtcIso;
}

/** A target that was dead or stuck took a delivery again. */
export interface TargetRecoveredOperation {
  event: 'target-recovered';
  summary: string;
  target: string;
  /** When pipewatch found it dead or stuck. */
  dead_at: UtcIso;
  /** The delivery that ended it. */
  seen_at: UtcIso;
}

/** One alert a silence held back, as its end-of-silence summary lists it. */
export interface HeldAlert {
  rule: string;
  kind: AlertKind;
  state: AlertState;
  pipeline: string;
  /** `Notice 26-0412: Station 85 compressor outage`, `OAC below 100,000 Dth at Station 85`. */
  title: string;
  notice_id: number | null;
  /** The notice on the pipeline's bulletin board, when it has one. */
  url: string | null;
  /** When it was held back. */
  at: UtcIso;
}

/** A silence ended: what it held back for this target while it lasted. */
export interface SilenceSummary {
  id: number;
  /** `pipeline=transco target=slack:C0GAS`. */
  matchers: string;
  started_at: UtcIso;
  ended_at: UtcIso;
  /** `expired`: its time ran out; `lifted`: someone ended it early. */
  ended_by: 'expired' | 'lifted';
  /** How many alerts it held back for this target. */
  held: number;
  /** The newest of them, at most 20, newest first. */
  alerts: HeldAlert[];
}

/** A notice field a reader looks at, its value before and after: `Status: Initiate → Revised`. */
export interface ValueChange {
  kind: 'value';
  field: 'subject' | 'type' | 'category' | 'status' | 'identifier';
  /** `Status`. */
  label: string;
  /** On one line, at most `VALUE_MAX` characters. */
  before: string;
  after: string;
}

/** A notice time before and after: `Ends: Sun Nov 22, 9 AM → Mon Nov 23, 9 AM CST`. */
export interface TimeChange {
  kind: 'time';
  field: 'posted_at' | 'effective_at' | 'end_at' | 'response_at';
  /** `Ends`. */
  label: string;
  /** Null: none, or a placeholder end for "until further notice" (then `open_ended_…`). */
  before: UtcIso | null;
  after: UtcIso | null;
  open_ended_before?: true;
  open_ended_after?: true;
}

/** One run of words of a text diff. */
export interface WordPart {
  /** `same`: unchanged words kept around a change, `…` where more were left out. */
  op: 'same' | 'added' | 'removed';
  /** On one line; a space at either end where the text had spacing there. */
  text: string;
}

/** The words of the notice's text that were added and removed, with a little context. */
export interface TextChange {
  kind: 'text';
  field: 'notice';
  label: string;
  /** In reading order; empty when the texts were too different to compare word by word. */
  parts: WordPart[];
  /** Words added and removed over the whole compared text. */
  added: number;
  removed: number;
  /** False: the text was longer than is compared, or more changed than is shown. */
  complete: boolean;
}

/** One change of a notice as a reader sees it. */
export type NoticeChange = ValueChange | TimeChange | TextChange;

/** The notice an alerted notice supersedes, as pipewatch stores it. */
export interface SupersededNotice {
  id: number;
  identifier: string;
  subject: string;
  /** Its link on the pipeline's site, as the API gave it; may be empty. */
  url: string;
}

/** The stored payload of one alert. */
export interface AlertPayload {
  version: 1;
  kind: AlertKind;
  state: AlertState;
  rule: string;
  pipeline: { slug: string; name: string };
  notice?: Notice;
  capacity?: {
    cycle: string;
    gas_day: string;
    /** The locations that crossed the threshold, with the rule's levels. */
    locations: Array<
      CapacityLocation & {
        threshold: number;
        clear_above: number;
        unit: 'absolute' | 'percent';
        /** Still below the threshold since an earlier alert: a `repeat_every` repeat. */
        repeat?: true;
      }
    >;
  };
  deadline?: { field: string; at: UtcIso; before: string; late?: boolean };
  /** For `operations`: what happened to pipewatch or the API, for whoever runs it. */
  operations?:
    | SchemaDriftOperation
    | UnknownPipelineOperation
    | UnknownLocationOperation
    | ChannelGoneOperation
    | FeedStaleOperation
    | FeedRecoveredOperation
    | TargetDeadOperation
    | TargetRecoveredOperation;
  /** For `silence`: what a silence held back while it lasted. */
  silence?: SilenceSummary;
  /** For `updated`: the fields that changed (API names, every field). */
  changed?: string[];
  /**
   * What changed as a reader sees it (`notice-changes.ts`): for `updated`, against the
   * version it replaced; for a notice that supersedes a stored one, against that one.
   */
  changes?: NoticeChange[];
  /** The stored notice this one says it supersedes (`This notice supersedes Notice ID 26-0412.`). */
  supersedes?: SupersededNotice;
  /** IANA zone to show the pipeline's local times in. */
  zone: string;
}

/** The parts an alert's kind is rendered from. */
export type AlertPart = 'notice' | 'deadline' | 'capacity' | 'operations' | 'silence';

/**
 * The part of `p` its renderer reads (a notice alert's notice, a capacity alert's
 * locations). Every alert read for sending has its parts (`payload-schema.ts` checks
 * them); one made otherwise without it is a clear error, not a crash deep in a renderer.
 */
export function partOf<K extends AlertPart>(
  p: AlertPayload,
  part: K,
): NonNullable<AlertPayload[K]> {
  const value = p[part];
  if (value === undefined || value === null)
    throw new Error(`a ${p.kind} alert of rule ${p.rule} has no ${part} to render`);
  return value;
}
