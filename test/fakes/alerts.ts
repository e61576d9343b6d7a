/**
 * Alerts for channel tests: one of each kind, built like the decisions build them, and
 * a corpus of hostile notices (mentions, markup, HTML, CR/LF, very long text, emoji,
 * right-to-left text) taken from the simulator's own hostile bodies.
 */
import { expect } from 'vitest';
import type { AlertPayload } from '../../src/alerts/payload.js';
import { sampleLocation } from '../../src/channels/sample.js';
import { type Alert, DeliveryError } from '../../src/channels/types.js';
import { MemoryThreads } from '../../src/delivery/threads.js';
import { HOSTILE_BODIES, LONG_BODY } from '../../src/simulator/anchors.js';
import type { CapacityLocation, Notice } from '../../src/upstream/schemas.js';
import { makeNotice } from './notice.js';

const PIPELINE = { pipeline: { slug: 'transco', name: 'Transco' }, zone: 'America/New_York' };

/** A new-notice alert. */
export function noticeAlert(over: Partial<Notice> = {}, key?: string): Alert {
  const notice = makeNotice({
    url: 'https://www.1line.williams.com/xhtml/notice.jsf?id=101',
    effective_at: '2026-11-21T14:00:00Z',
    end_at: '2026-11-22T14:00:00Z',
    ...over,
  });
  return {
    key: key ?? `transco-constraints|notice:${notice.id}:v1|slack:#gas`,
    payload: {
      version: 1,
      kind: 'notice',
      state: 'new',
      rule: 'transco-constraints',
      ...PIPELINE,
      notice,
    },
  };
}

/** An updated-notice alert (version 2 of the same notice). */
export function updatedAlert(over: Partial<Notice> = {}): Alert {
  const a = noticeAlert({ status: 'Supersede', ...over });
  return {
    key: a.key.replace(':v1|', ':v2|'),
    payload: { ...a.payload, state: 'updated', changed: ['status', 'subject'] },
  };
}

/** A deadline reminder 2h before `response_at`. */
export function deadlineAlert(over: Partial<Notice> = {}): Alert {
  const notice = makeNotice({
    type: 'Operational Flow Order',
    response_at: '2026-11-20T20:00:00Z',
    ...over,
  });
  return {
    key: `ofo-reminders|deadline:${notice.id}:response_at:2h|slack_dm:U0123`,
    payload: {
      version: 1,
      kind: 'deadline',
      state: 'reminder',
      rule: 'ofo-reminders',
      ...PIPELINE,
      notice,
      deadline: { field: 'response_at', at: '2026-11-20T20:00:00Z', before: '2h' },
    },
  };
}

/** A location's capacity entry: the sample's, as a real one. */
export function location(over: Partial<CapacityLocation> = {}): CapacityLocation {
  const { threshold: _t, clear_above: _c, unit: _u, ...sample } = sampleLocation();
  return { ...sample, id: 9001, location: 'STATION 85', ...over };
}

/** A capacity alert, firing unless `state` says otherwise. */
export function capacityAlert(
  locations: CapacityLocation[] = [location()],
  state: 'firing' | 'resolved' = 'firing',
): Alert {
  const payload: AlertPayload = {
    version: 1,
    kind: 'capacity',
    state,
    rule: 'transco-low-oac',
    ...PIPELINE,
    capacity: {
      cycle: 'timely',
      gas_day: '2026-11-21',
      locations: locations.map((l) => ({
        ...l,
        threshold: 50_000,
        clear_above: 60_000,
        unit: 'absolute' as const,
      })),
    },
  };
  return {
    key: `transco-low-oac|capacity:transco:${locations[0]?.identifier}:e1|email:ops@example.com`,
    payload,
  };
}

/** Notices built to break rendering: each must arrive neutralised and within limits. */
export function hostileAlerts(): Alert[] {
  return [...HOSTILE_BODIES, LONG_BODY].map((body, i) =>
    noticeAlert(
      {
        id: 900 + i,
        subject: body.subject,
        html: body.html,
        notice: body.notice ?? '',
        url: 'https://evil.example/x?a=1&b=<2>',
      },
      `hostile|notice:${900 + i}:v1|any`,
    ),
  );
}

/** Thread references in memory, as the database keeps them. */
export function memoryThreads(): MemoryThreads {
  return new MemoryThreads();
}

/** The DeliveryError `promise` rejects with; fails the test if it resolves or rejects otherwise. */
export async function failure(promise: Promise<unknown>): Promise<DeliveryError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DeliveryError);
  return error as DeliveryError;
}
