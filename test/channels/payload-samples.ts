/**
 * One alert of every kind and state pipewatch sends, at fixed times, built as the
 * decisions build them (`src/alerts/`): the samples every channel's fixture under
 * `test/fixtures/payloads/` is rendered from. A reminder's notice is the stored one,
 * with its bookkeeping, as the reminder decisions read it from the database.
 */
import { noticeChanges } from '../../src/alerts/notice-changes.js';
import type { AlertPayload } from '../../src/alerts/payload.js';
import type { Alert } from '../../src/channels/types.js';
import { toUtcIso } from '../../src/lib/time.js';
import { noticeHash, type StoredNotice } from '../../src/store/notices.js';
import type { CapacityLocation, Notice } from '../../src/upstream/schemas.js';

/** When every sample is sent: 90 minutes before the reminder's deadline. */
export const SENT_AT = '2026-11-20T18:30:00Z';

/** The sample kinds, one fixture file each, in the order they are listed. */
export const SAMPLE_KINDS = [
  'notice-new',
  'notice-updated',
  'notice-open-ended',
  'reminder',
  'reminder-late',
  'capacity-firing',
  'capacity-resolved',
  'operations-schema-drift',
  'operations-unknown-pipeline',
  'operations-unknown-location',
  'operations-channel-gone',
  'operations-feed-stale',
  'operations-feed-recovered',
  'operations-target-dead',
  'operations-target-recovered',
  'silence-ended',
  'silence-ended-many',
  'digest',
  'silence-digest',
] as const;
/** One sample: a kind and state of alert, or a digest. */
export type SampleKind = (typeof SAMPLE_KINDS)[number];
/** The samples that are several alerts in one message. */
export const DIGESTS: readonly SampleKind[] = ['digest', 'silence-digest'];
type Single = Exclude<SampleKind, 'digest' | 'silence-digest'>;

const TRANSCO = {
  pipeline: { slug: 'transco', name: 'Transcontinental Gas Pipe Line (Transco)' },
  zone: 'America/Chicago',
};

function notice(over: Partial<Notice>): Notice {
  return {
    id: 216601,
    pipeline_id: 3,
    pipeline_name: 'Transcontinental Gas Pipe Line (Transco)',
    pipeline_slug: 'transco',
    pipeline_url: 'https://www.1line.williams.com/Transco/index.html',
    subject: 'Capacity Constraint - Station 165 Zone 5 Deliveries',
    identifier: '26-0412',
    url: 'https://www.1line.williams.com/xhtml/notice_detail.jsf?id=216601',
    category: 'Critical',
    type: 'Capacity Constraint',
    status: 'Initiate',
    notice:
      'Effective Timely Cycle for gas day November 21, 2026, Transco will limit deliveries downstream of Station 165.\n\nSecondary out-of-path deliveries will be scheduled at 0%.\n\nContact Gas Control at 713-215-2000 with questions.',
    html: '<p>Effective <b>Timely Cycle</b> for gas day November 21, 2026, Transco will limit deliveries downstream of Station 165.</p><p>Secondary out-of-path deliveries will be scheduled at 0%.</p><p>Contact Gas Control at 713-215-2000 with questions.</p>',
    mobile: '',
    posted_at: '2026-11-20T14:00:00Z',
    effective_at: '2026-11-21T15:00:00Z',
    end_at: '2026-11-22T15:00:00Z',
    response_at: null,
    service_created_at: '2026-11-20T14:00:07Z',
    service_updated_at: '2026-11-20T14:00:07Z',
    ...over,
  };
}

/** The flow order the reminders are about, as the database returns it. */
function storedFlowOrder(): StoredNotice {
  const n = notice({
    id: 216650,
    subject: 'Operational Flow Order - Imbalance Resolution Required',
    identifier: '26-0419',
    url: 'https://www.1line.williams.com/xhtml/notice_detail.jsf?id=216650',
    type: 'Operational Flow Order',
    notice:
      'Shippers with negative imbalances in Zone 6 must confirm their make-up schedule to Gas Control by 2:00 PM CCT today.\n\nFailure to respond may result in penalties under Section 52 of the tariff.',
    html: '',
    posted_at: '2026-11-20T15:10:00Z',
    effective_at: '2026-11-20T15:10:00Z',
    end_at: null,
    response_at: '2026-11-20T20:00:00Z',
    service_created_at: '2026-11-20T15:10:04Z',
    service_updated_at: '2026-11-20T15:10:04Z',
  });
  return {
    ...n,
    content_hash: noticeHash(n),
    version: 1,
    first_seen_at: '2026-11-20T15:20:00Z',
    last_seen_at: '2026-11-20T18:20:00Z',
    last_changed_at: '2026-11-20T15:20:00Z',
    baseline: false,
  };
}

function location(over: Partial<CapacityLocation>): CapacityLocation {
  return {
    id: 880421,
    location: 'STATION 85',
    identifier: '1001234',
    flow: 'D',
    qti: 'DPQ',
    zone: 'Zone 4',
    dc: 1_000_000,
    opc: 800_000,
    tsq: 770_000,
    oac: 30_000,
    it: 'Y',
    all: 'N',
    reason: '',
    service_created_at: '2026-11-19T23:05:00Z',
    service_updated_at: '2026-11-19T23:05:00Z',
    ...over,
  };
}

const LEVELS = { threshold: 50_000, clear_above: 60_000, unit: 'absolute' as const };

function payloads(): Record<Single, AlertPayload> {
  const constraint = notice({});
  const updated = notice({
    status: 'Supersede',
    notice: `${constraint.notice.replace('at 0%', 'at 50%')}\n\nUpdate: the limit now runs through gas day November 23.`,
    html: `${constraint.html.replace('at 0%', 'at 50%')}<p><b>Update:</b> the limit now runs through gas day November 23.</p>`,
    end_at: '2026-11-23T15:00:00Z',
    service_updated_at: '2026-11-20T17:45:12Z',
  });
  const flowOrder = storedFlowOrder();
  const reminder: AlertPayload = {
    version: 1,
    kind: 'deadline',
    state: 'reminder',
    rule: 'response-reminders',
    ...TRANSCO,
    notice: flowOrder,
    deadline: { field: 'response_at', at: '2026-11-20T20:00:00Z', before: '2h' },
  };
  const capacity = (state: 'firing' | 'resolved', locations: AlertPayload['capacity']) =>
    ({
      version: 1,
      kind: 'capacity',
      state,
      rule: 'transco-low-oac',
      ...TRANSCO,
      capacity: locations,
    }) satisfies AlertPayload;
  return {
    'notice-new': {
      version: 1,
      kind: 'notice',
      state: 'new',
      rule: 'transco-constraints',
      ...TRANSCO,
      notice: constraint,
    },
    'notice-updated': {
      version: 1,
      kind: 'notice',
      state: 'updated',
      rule: 'transco-constraints',
      ...TRANSCO,
      notice: updated,
      changed: ['status', 'notice', 'html', 'end_at', 'service_updated_at'],
      changes: noticeChanges(constraint, updated),
    },
    'notice-open-ended': {
      version: 1,
      kind: 'notice',
      state: 'new',
      rule: 'transco-constraints',
      ...TRANSCO,
      notice: notice({
        id: 216640,
        identifier: '26-0431',
        type: 'Force Majeure',
        category: 'Critical',
        subject: 'Force Majeure - Compressor Station 165 unit outage',
        notice:
          'Unit 4 at Compressor Station 165 is down until further notice. Deliveries downstream of Station 165 are limited to primary firm.',
        html: '<p>Unit 4 at Compressor Station 165 is down until further notice.</p><p>Deliveries downstream of Station 165 are limited to primary firm.</p>',
        end_at: '9000-12-31T00:00:00Z',
      }),
    },
    reminder,
    'reminder-late': {
      ...reminder,
      deadline: { field: 'response_at', at: '2026-11-20T20:00:00Z', before: '2h', late: true },
    },
    'capacity-firing': capacity('firing', {
      cycle: 'timely',
      gas_day: '2026-11-20',
      locations: [
        { ...location({}), ...LEVELS },
        {
          ...location({
            id: 880437,
            location: 'STATION 165',
            identifier: '1001650',
            oac: 42_500,
            tsq: 757_500,
          }),
          ...LEVELS,
          repeat: true,
        },
      ],
    }),
    'capacity-resolved': capacity('resolved', {
      cycle: 'evening',
      gas_day: '2026-11-20',
      locations: [
        {
          ...location({ oac: 64_000, tsq: 736_000, service_updated_at: '2026-11-20T03:05:00Z' }),
          ...LEVELS,
        },
      ],
    }),
    'operations-schema-drift': {
      version: 1,
      kind: 'operations',
      state: 'schema-drift',
      rule: 'pipewatch-operations',
      pipeline: { slug: 'api', name: 'Pipeline Information API' },
      zone: 'UTC',
      operations: {
        event: 'schema-drift',
        summary:
          "The API's catalog for notices changed (it now lists 21 fields): check that pipewatch still reads it correctly.",
        table: 'notices',
        previous_hash: '3f1c9a0e5b7d2468ace13579bdf02468ace13579bdf02468ace13579bdf02468',
        hash: '9b2e4d6f8a0c1e3f5a7b9c0d2e4f6a8b0c2d4e6f8a0b2c4d6e8f0a2b4c6d8e0f',
        seen_at: '2026-11-20T18:00:03Z',
      },
    },
    'operations-unknown-pipeline': {
      version: 1,
      kind: 'operations',
      state: 'unknown-pipeline',
      rule: 'pipewatch-operations',
      pipeline: { slug: 'rules', name: 'pipewatch rules' },
      zone: 'UTC',
      operations: {
        event: 'unknown-pipeline',
        summary:
          "Rule 'station-85-watch' names pipeline 'transcoo', which the API does not track, so it never fires there: did you mean 'transco'? (rules/low-oac.yaml:4:17)",
        rule: 'station-85-watch',
        slug: 'transcoo',
        suggestion: 'transco',
        at: 'rules/low-oac.yaml:4:17',
        seen_at: '2026-11-20T18:29:58Z',
      },
    },
    'operations-unknown-location': {
      version: 1,
      kind: 'operations',
      state: 'unknown-location',
      rule: 'pipewatch-operations',
      pipeline: { slug: 'rules', name: 'pipewatch rules' },
      zone: 'UTC',
      operations: {
        event: 'unknown-location',
        summary:
          "Rule 'transco-low-oac' watches location 'STATION 58', which no location of transco matches, so it never fires there: did you mean 'STATION 85'? (rules/low-oac.yaml:5:20)",
        rule: 'transco-low-oac',
        location: 'STATION 58',
        pipelines: ['transco'],
        suggestion: 'STATION 85',
        at: 'rules/low-oac.yaml:5:20',
        seen_at: '2026-11-20T18:29:58Z',
      },
    },
    'operations-channel-gone': {
      version: 1,
      kind: 'operations',
      state: 'channel-gone',
      rule: 'pipewatch-operations',
      pipeline: { slug: 'chat', name: 'pipewatch chat' },
      zone: 'UTC',
      operations: {
        event: 'channel-gone',
        summary:
          'slack:C0GAS went away (the channel was archived (is_archived)): its 3 subscriptions paused; a subscribe there resumes them, or `pipewatch subs rm` removes them.',
        channel: 'slack:C0GAS',
        reason: 'the channel was archived (is_archived)',
        paused: 3,
        seen_at: '2026-11-20T18:31:07Z',
      },
    },
    'operations-feed-stale': {
      version: 1,
      kind: 'operations',
      state: 'feed-stale',
      rule: 'pipewatch-operations',
      pipeline: { slug: 'api', name: 'Pipeline Information API' },
      zone: 'UTC',
      operations: {
        event: 'feed-stale',
        summary:
          'The notices feed has had no success for 30 min 2 s (over 3 of its 10 min intervals): new notices are not seen and do not alert. The API refuses the credentials: check PIPEWATCH_API_USER and PIPEWATCH_API_KEY.',
        feed: 'notices',
        interval_seconds: 600,
        last_success_at: '2026-11-20T17:55:01Z',
        last_error_code: 'UPSTREAM_AUTH',
        last_error: 'GET /ip/notices: 401 Unauthorized: invalid credentials',
        seen_at: '2026-11-20T18:25:03Z',
      },
    },
    'operations-feed-recovered': {
      version: 1,
      kind: 'operations',
      state: 'feed-recovered',
      rule: 'pipewatch-operations',
      pipeline: { slug: 'api', name: 'Pipeline Information API' },
      zone: 'UTC',
      operations: {
        event: 'feed-recovered',
        summary: 'The notices feed works again, after 34 min 59 s without a success.',
        feed: 'notices',
        last_success_at: '2026-11-20T17:55:01Z',
        stale_at: '2026-11-20T18:25:03Z',
        seen_at: '2026-11-20T18:30:00Z',
      },
    },
    'operations-target-dead': {
      version: 1,
      kind: 'operations',
      state: 'target-dead',
      rule: 'pipewatch-operations',
      pipeline: { slug: 'delivery', name: 'pipewatch delivery' },
      zone: 'UTC',
      operations: {
        event: 'target-dead',
        summary:
          'Alerts to slack:#gas-constraints are not getting through: an alert to it failed for good. `pipewatch status` lists them.',
        target: 'slack:#gas-constraints',
        how: 'dead',
        reason: 'slack: channel_not_found',
        code: 'NOT_FOUND',
        seen_at: '2026-11-20T18:12:40Z',
      },
    },
    'operations-target-recovered': {
      version: 1,
      kind: 'operations',
      state: 'target-recovered',
      rule: 'pipewatch-operations',
      pipeline: { slug: 'delivery', name: 'pipewatch delivery' },
      zone: 'UTC',
      operations: {
        event: 'target-recovered',
        summary:
          'Alerts to slack:#gas-constraints get through again, after 17 min 20 s; those that failed for good meanwhile are not sent again.',
        target: 'slack:#gas-constraints',
        dead_at: '2026-11-20T18:12:40Z',
        seen_at: '2026-11-20T18:30:00Z',
      },
    },
    'silence-ended': silenceEnded(),
    'silence-ended-many': silenceLifted(),
  };
}

/**
 * Silence 12 of Transco in the Slack channel C0GAS, made at 13:30 for five hours: it held
 * back a recovery, the new constraint notice (with its link), the flow order's reminder
 * and a low-OAC alert, and ends as the samples are sent.
 */
function silenceEnded(): AlertPayload {
  const constraint = notice({});
  const flowOrder = storedFlowOrder();
  return {
    version: 1,
    kind: 'silence',
    state: 'ended',
    rule: 'silence-12',
    pipeline: TRANSCO.pipeline,
    zone: 'UTC',
    silence: {
      id: 12,
      matchers: 'pipeline=transco target=slack:C0GAS',
      started_at: '2026-11-20T13:30:00Z',
      ended_at: '2026-11-20T18:30:00Z',
      ended_by: 'expired',
      held: 4,
      alerts: [
        {
          rule: 'transco-low-oac',
          kind: 'capacity',
          state: 'firing',
          pipeline: 'transco',
          title: 'OAC below 50,000 Dth at STATION 85 — timely cycle, gas day 2026-11-21',
          notice_id: null,
          url: null,
          at: '2026-11-20T18:05:00Z',
        },
        {
          rule: 'response-reminders',
          kind: 'deadline',
          state: 'reminder',
          pipeline: 'transco',
          title: `Response due in 4 h: Notice ${flowOrder.identifier}: ${flowOrder.subject}`,
          notice_id: flowOrder.id,
          url: null,
          at: '2026-11-20T16:00:00Z',
        },
        {
          rule: 'transco-constraints',
          kind: 'notice',
          state: 'new',
          pipeline: 'transco',
          title: `Notice ${constraint.identifier}: ${constraint.subject}`,
          notice_id: constraint.id,
          url: constraint.url,
          at: '2026-11-20T14:02:00Z',
        },
        {
          rule: 'transco-low-oac',
          kind: 'capacity',
          state: 'resolved',
          pipeline: 'transco',
          title: 'OAC back above 60,000 Dth at STATION 165 — evening cycle, gas day 2026-11-20',
          notice_id: null,
          url: null,
          at: '2026-11-20T13:45:00Z',
        },
      ],
    },
  };
}

/** Where the alerts of the silence over every pipeline came from, in turn. */
const PIPELINES = [
  { slug: 'transco', board: 'https://www.1line.williams.com/xhtml/notice_detail.jsf?id=' },
  { slug: 'tetco', board: 'https://infopost.enbridge.com/infopost/TENoticeDetail.asp?id=' },
  { slug: 'tgp', board: null },
  { slug: 'columbia-gas', board: 'https://ebb.tceconnects.com/infopost/notice.aspx?id=' },
];

/**
 * Silence 14, of the rule `all-constraints` on every pipeline, lifted after a day: it
 * held 25 alerts, of which the summary lists the newest 20.
 */
function silenceLifted(): AlertPayload {
  const alerts = Array.from({ length: 20 }, (_, i) => {
    const where = PIPELINES[i % PIPELINES.length]!;
    const id = 217_040 - i * 3;
    return {
      rule: 'all-constraints',
      kind: 'notice' as const,
      state: i % 5 === 2 ? ('updated' as const) : ('new' as const),
      pipeline: where.slug,
      title: `Notice 26-${String(480 - i).padStart(4, '0')}: Capacity Constraint - Segment ${i + 10} Deliveries`,
      notice_id: id,
      url: where.board === null ? null : `${where.board}${id}`,
      at: toUtcIso(new Date(Date.parse('2026-11-20T18:00:00Z') - i * 2_700_000)),
    };
  });
  return {
    version: 1,
    kind: 'silence',
    state: 'ended',
    rule: 'silence-14',
    pipeline: { slug: 'all', name: 'all pipelines' },
    zone: 'UTC',
    silence: {
      id: 14,
      matchers: 'rule=all-constraints',
      started_at: '2026-11-19T18:20:00Z',
      ended_at: '2026-11-20T18:25:00Z',
      ended_by: 'lifted',
      held: 25,
      alerts,
    },
  };
}

/** The outbox subject of each sample, as the decisions key it. */
const SUBJECTS: Record<Single, string> = {
  'notice-new': 'notice:216601:v1',
  'notice-updated': 'notice:216601:v2',
  'notice-open-ended': 'notice:216640:v1',
  reminder: 'notice:216650:response_at:7200000',
  'reminder-late': 'notice:216650:response_at:7200000',
  'capacity-firing': 'capacity:transco:2026-11-20:timely:v1:firing:5d41402abc4b',
  'capacity-resolved': 'capacity:transco:2026-11-20:evening:v1:resolved:7d793037a076',
  'operations-schema-drift':
    'schema-drift:notices:9b2e4d6f8a0c1e3f5a7b9c0d2e4f6a8b0c2d4e6f8a0b2c4d6e8f0a2b4c6d8e0f',
  'operations-unknown-pipeline': 'unknown-pipeline:station-85-watch:transcoo',
  'operations-unknown-location': 'unknown-location:transco-low-oac:station 58',
  'operations-channel-gone': 'channel-gone:slack:C0GAS:2026-11-20T18:31:07Z',
  'operations-feed-stale': 'feed-stale:notices:2026-11-20T18:25:03Z',
  'operations-feed-recovered': 'feed-recovered:notices:2026-11-20T18:25:03Z',
  'operations-target-dead': 'target-dead:slack:#gas-constraints:2026-11-20T18:12:40Z',
  'operations-target-recovered': 'target-recovered:slack:#gas-constraints:2026-11-20T18:12:40Z',
  'silence-ended': 'silence:12:ended',
  'silence-ended-many': 'silence:14:ended',
};

/** The alerts of one sample for `target` (a target key): one, or three for a digest. */
export function sampleAlerts(kind: SampleKind, target: string): Alert[] {
  const all = payloads();
  const one = (k: Single): Alert => ({
    key: `${all[k].rule}|${SUBJECTS[k]}|${target}`,
    payload: all[k],
  });
  if (kind === 'digest') return [one('notice-new'), one('reminder'), one('capacity-firing')];
  if (kind === 'silence-digest')
    return [one('notice-new'), one('silence-ended'), one('capacity-firing')];
  return [one(kind)];
}
