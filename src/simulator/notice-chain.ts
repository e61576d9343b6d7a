/**
 * A chain of notices: one event on a pipeline (a constraint, an outage, a flow order)
 * posted first, then superseded, updated in place and at last terminated or completed.
 * Here is what each step of a chain posts; the generator decides when steps happen.
 */
import type { HostileBody } from './anchors.js';
import { htmlToMobile, htmlToText } from './notice-html.js';
import { noticeUrl } from './notice-identifiers.js';
import { type NoticeKind, type Phase, statusLabel } from './notice-labels.js';
import type { StoredNotice } from './notice-store.js';
import { localText, noticeHtml, phaseSubject } from './notice-text.js';
import { type NoticeTiming, postingLag } from './notice-timing.js';
import type { SimPipeline } from './pipelines.js';
import type { Random } from './random.js';
import { formatDateTime, HOUR } from './sim-time.js';
import type { NoticeFields } from './types.js';

/** One open chain: what all its notices share, and where it has got to. */
export interface Chain {
  pipeline: SimPipeline;
  kind: NoticeKind;
  place: string;
  base: string;
  type: string;
  category: string;
  timing: NoticeTiming;
  lastIdentifier: string;
  lastNoticeId: number;
  steps: number;
  startedAt: number;
}

/** A copy that later steps of the original leave alone (the history cache keeps one). */
export function copyChain(chain: Chain): Chain {
  return { ...chain, timing: { ...chain.timing } };
}

const UPDATE_LINES = [
  'Scheduling levels have been revised for the next cycle.',
  'The estimated return to service has been updated.',
  'Additional locations have been added to the affected list.',
  'Corrected the effective gas day stated above.',
];

/**
 * The notice a chain posts in `phase` at `at` under `identifier`. A hostile body, when
 * given, replaces the generated subject and text, to test what clients make of it.
 */
export function chainNotice(
  chain: Chain,
  phase: Phase,
  at: number,
  rng: Random,
  identifier: string,
  body?: HostileBody,
): NoticeFields {
  const p = chain.pipeline;
  const prior =
    phase === 'initiate'
      ? undefined
      : rng.chance(0.12)
        ? rng.pick(['0', ''])
        : chain.lastIdentifier;
  const { effectiveAt, end, responseAt } = chain.timing;
  const ctx = {
    pipeline: p,
    kind: chain.kind,
    phase,
    place: chain.place,
    identifier,
    effectiveAt: effectiveAt ?? at,
    endAt: typeof end === 'number' ? end : null,
    responseAt,
    rng,
    ...(prior === undefined ? {} : { prior }),
  };
  const subject = body?.subject ?? phaseSubject(chain.base, ctx);
  const html = body?.html ?? noticeHtml(ctx, subject);
  return {
    subject,
    identifier,
    url: noticeUrl(p, identifier),
    category: chain.category,
    type: chain.type,
    status: statusLabel(phase, p.noticeStyle, rng),
    notice: body?.notice ?? htmlToText(html),
    html,
    mobile: htmlToMobile(html),
    posted_at: formatDateTime(at - postingLag(rng)),
    effective_at: effectiveAt === null ? '' : formatDateTime(effectiveAt),
    end_at: end === null ? '' : typeof end === 'string' ? end : formatDateTime(end),
    response_at: responseAt === null ? '' : formatDateTime(responseAt),
    service_created_at: formatDateTime(at),
    service_updated_at: formatDateTime(at),
  };
}

/**
 * The in-place update of a chain's latest notice at `at`: a paragraph appended, maybe a
 * new status, and half the time a later response deadline, which the chain then keeps.
 */
export function chainUpdate(
  chain: Chain,
  notice: StoredNotice,
  at: number,
  rng: Random,
): Partial<NoticeFields> {
  const html = `${notice.html}\n<p><b>Update posted ${localText(at, chain.pipeline.timezone)}:</b> ${rng.pick(UPDATE_LINES)}</p>`;
  const changes: Partial<NoticeFields> = {
    html,
    notice: htmlToText(html),
    mobile: htmlToMobile(html),
    service_updated_at: formatDateTime(at),
  };
  const status = statusLabel('update', chain.pipeline.noticeStyle, rng);
  if (status !== '') changes.status = status;
  if (chain.timing.responseAt !== null && rng.chance(0.5)) {
    chain.timing.responseAt = Math.max(at + HOUR, chain.timing.responseAt + rng.int(2, 12) * HOUR);
    changes.response_at = formatDateTime(chain.timing.responseAt);
  }
  return changes;
}
