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
    | ChannelGoneOperation;
  /** For `silence`: what a silence held back while it lasted. */
  silence?: SilenceSummary;
  /** For `updated`: the fields that changed. */
  changed?: string[];
  /** IANA zone to show the pipeline's local times in. */
  zone: string;
}
