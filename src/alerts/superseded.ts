/**
 * Notices that supersede others. Pipelines write "This notice supersedes Notice ID
 * 26-0412." in a notice's text (the API has no field for it); a superseded notice's
 * deadlines are no longer reminded.
 */
import { keepNewest } from '../lib/bounded-map.js';
import type { AsyncStore } from '../store/async-store.js';
import type { StoredNotice } from '../store/notices.js';
import type { Notice } from '../upstream/schemas.js';

/**
 * The notices a notice says it supersedes or terminates, by their identifier: pipelines
 * write "This notice supersedes Notice ID 26-0412." (the API has no field for it). An
 * identifier of `0` or none names nothing.
 */
export function priorIdentifiers(notice: Pick<Notice, 'subject' | 'notice'>): string[] {
  const found = new Set<string>();
  for (const text of [notice.subject, notice.notice]) {
    for (const m of text.matchAll(PRIOR)) {
      const id = m[1].replace(/[.,;:]+$/, '');
      if (id !== '' && !/^0+$/.test(id)) found.add(id);
    }
  }
  return [...found];
}

const PRIOR =
  /\b(?:supersedes|supersede|superseding|terminates|replaces|cancels)\b[^.\n]{0,30}?\bnotice\b(?:\s+(?:id|no\.?|number|#))?[\s:#]*([A-Za-z0-9][\w./-]*)/gi;

/**
 * The notices named as superseded by the notices decided lately, by pipeline and
 * identifier. Ingest reads the API newest first, so a notice that supersedes another
 * is decided before it when both are new (the baseline stores them together): the older
 * one, decided next, then plans no reminders. One decided before its successor arrives
 * is cancelled by it instead (`cancelSuperseded`). Bounded: the oldest are forgotten.
 */
export class RecentSuperseders {
  private readonly bySubject = new Map<string, { id: number; status: string; posted: string }>();

  constructor(private readonly limit = 10_000) {}

  /** Remembers what `notice` says it supersedes or terminates. */
  note(notice: Notice): void {
    for (const identifier of priorIdentifiers(notice)) {
      const key = `${notice.pipeline_slug}|${identifier}`;
      this.bySubject.delete(key);
      this.bySubject.set(key, {
        id: notice.id,
        status: notice.status,
        posted: notice.posted_at ?? notice.service_created_at ?? '',
      });
      keepNewest(this.bySubject, this.limit);
    }
  }

  /** Why `notice` is superseded by one decided before it, if it is. */
  reasonFor(notice: Notice): string | undefined {
    if (notice.identifier === '') return undefined;
    const by = this.bySubject.get(`${notice.pipeline_slug}|${notice.identifier}`);
    const posted = notice.posted_at ?? notice.service_created_at ?? '';
    if (!by || by.id === notice.id || by.posted < posted) return undefined;
    return supersededReason(by);
  }
}

/** How a reminder cancelled or never planned for a superseded notice says why. */
export function supersededReason(by: { id: number; status: string }): string {
  return `superseded by notice #${by.id} (${by.status || 'no status'})`;
}

/**
 * The stored notice `notice` says it supersedes, if one is: the first it names that is
 * stored, the latest of that pipeline and identifier posted before it (`supersededBy`).
 * A notice naming its own identifier (a revision posted under the same number) finds
 * the one posted before it.
 */
export async function supersededNotice(
  store: AsyncStore,
  notice: Notice,
): Promise<StoredNotice | undefined> {
  for (const identifier of priorIdentifiers(notice)) {
    const id = await store.notices.supersededBy(
      notice.pipeline_slug,
      identifier,
      notice.id,
      notice.posted_at ?? notice.service_created_at,
    );
    const found = id === undefined ? undefined : await store.notices.get(id);
    if (found) return found;
  }
  return undefined;
}
