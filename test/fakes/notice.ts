/** A normalised notice for tests: a critical Transco capacity constraint, fields overridable. */
import type { NoticeEvent } from '../../src/ingest/events.js';
import type { Notice } from '../../src/upstream/schemas.js';

export function makeNotice(over: Partial<Notice> = {}): Notice {
  return {
    id: 101,
    pipeline_id: 3,
    pipeline_name: 'Transco',
    pipeline_slug: 'transco',
    pipeline_url: '',
    subject: 'Capacity Constraint - Station 165',
    identifier: '26-0412',
    url: '',
    category: 'Critical',
    type: 'Capacity Constraint',
    status: 'Initiate',
    notice: 'Limited.',
    html: '',
    mobile: '',
    posted_at: '2026-11-20T14:00:00Z',
    effective_at: null,
    end_at: null,
    response_at: null,
    service_created_at: null,
    service_updated_at: '2026-11-20T14:00:00Z',
    ...over,
  };
}

/** A new-notice ingest event for `n` as ingest emits it, fields overridable. */
export function noticeEvent(n: Notice, over: Partial<NoticeEvent> = {}): NoticeEvent {
  return {
    kind: 'notice',
    change: 'new',
    notice: n,
    version: 1,
    changedFields: [],
    previous: undefined,
    tooOld: false,
    seenAt: '2026-11-20T15:00:00Z',
    ...over,
  };
}
