/**
 * The alert as it leaves pipewatch: the webhook payload of the product contract
 * (version 1), without `sent_at`, which the channel adds when it sends. Every channel
 * renders from this one shape.
 */

import type { UtcIso } from '../lib/time.js';
import type { CapacityLocation, Notice } from '../upstream/schemas.js';
import type { NoticeChange, SupersededNotice } from './notice-change-schema.js';
import type { OperationPayload } from './operation-events.js';

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

/** The operations events of an outage: what pipewatch cannot see or reach, and its end. */
export type OutageEvent = 'feed-stale' | 'feed-recovered' | 'target-dead' | 'target-recovered';

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

export type {
  NoticeChange,
  SupersededNotice,
  TextChange,
  TimeChange,
  ValueChange,
  WordPart,
} from './notice-change-schema.js';

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
  operations?: OperationPayload;
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
  /**
   * For a notice alert a rule's `escalate:` sent: nobody acknowledged it within `after`
   * (`30m`); with `acknowledged`, it resolves what the escalation opened, since someone
   * acknowledged it after all. Not part of the webhook contract: a webhook among the
   * escalation targets receives the notice as it would from a rule of its own.
   */
  escalation?: Escalated;
  /** IANA zone to show the pipeline's local times in. */
  zone: string;
}

/** What an escalation says: its wait, and who acknowledged after it, if someone did. */
export interface Escalated {
  after: string;
  acknowledged?: { by: string; at: UtcIso };
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
