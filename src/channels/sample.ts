/**
 * Sample alerts, one of each kind, on Transco and dated around a given time: what
 * `pipewatch send-test` sends to check that alerts reach a destination. The silence
 * sample is the summary a four-hour silence of Transco sends when it ends.
 */
import type { AlertPayload } from '../alerts/payload.js';
import { toUtcIso } from '../lib/time.js';

export const SAMPLE_KINDS = ['notice', 'deadline', 'capacity', 'silence'] as const;
export type SampleKind = (typeof SAMPLE_KINDS)[number];

/** The location of the sample capacity alert: OAC 30,000 under a threshold of 50,000. */
export function sampleLocation(): NonNullable<AlertPayload['capacity']>['locations'][number] {
  return {
    id: 0,
    location: 'STATION 85 (TEST)',
    identifier: '1001234',
    flow: 'D',
    qti: 'DEL',
    zone: 'Zone 4',
    dc: 1_000_000,
    opc: 800_000,
    tsq: 770_000,
    oac: 30_000,
    it: 'Y',
    all: 'N',
    reason: '',
    service_created_at: null,
    service_updated_at: null,
    threshold: 50_000,
    clear_above: 60_000,
    unit: 'absolute',
  };
}

/** A sample alert of each kind, on Transco, dated around `now`. */
export function sampleAlert(kind: SampleKind, now: Date): AlertPayload {
  const at = (hours: number) => toUtcIso(new Date(now.getTime() + hours * 3_600_000));
  const base = {
    version: 1 as const,
    rule: 'send-test',
    pipeline: { slug: 'transco', name: 'Transco' },
    zone: 'America/New_York',
  };
  const notice = {
    id: 0,
    pipeline_id: 0,
    pipeline_name: 'Transco',
    pipeline_slug: 'transco',
    pipeline_url: '',
    subject: 'pipewatch test alert: Capacity Constraint at Station 165',
    identifier: 'TEST',
    url: 'https://example.com/pipewatch-test-notice',
    category: 'Critical',
    type: 'Capacity Constraint',
    status: 'Initiate',
    notice:
      'This is a test alert sent by `pipewatch send-test`. If you can read it, alerts reach this destination.',
    html: '',
    mobile: '',
    posted_at: toUtcIso(now),
    effective_at: at(2),
    end_at: at(26),
    response_at: at(4),
    service_created_at: null,
    service_updated_at: null,
  };
  if (kind === 'notice') return { ...base, kind, state: 'new', notice };
  if (kind === 'silence')
    return {
      ...base,
      kind,
      state: 'ended',
      zone: 'UTC',
      silence: {
        id: 0,
        matchers: 'pipeline=transco',
        started_at: at(-4),
        ended_at: toUtcIso(now),
        ended_by: 'expired',
        held: 2,
        alerts: [
          {
            rule: 'send-test',
            kind: 'capacity',
            state: 'firing',
            pipeline: 'transco',
            title: 'OAC below 50,000 Dth at STATION 85 (TEST)',
            notice_id: null,
            url: null,
            at: at(-1),
          },
          {
            rule: 'send-test',
            kind: 'notice',
            state: 'new',
            pipeline: 'transco',
            title: `Notice TEST: ${notice.subject}`,
            notice_id: notice.id,
            url: notice.url,
            at: at(-3),
          },
        ],
      },
    };
  if (kind === 'deadline')
    return {
      ...base,
      kind,
      state: 'reminder',
      notice,
      deadline: { field: 'response_at', at: notice.response_at, before: '4h' },
    };
  return {
    ...base,
    kind,
    state: 'firing',
    capacity: {
      cycle: 'timely',
      gas_day: notice.posted_at.slice(0, 10),
      locations: [sampleLocation()],
    },
  };
}
