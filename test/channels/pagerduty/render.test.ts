/**
 * PagerDuty events as rendered, without the network: hostile notices arrive without
 * control characters and within PagerDuty's limits (checked by the fake's own rules),
 * the severity follows the notice type, and dedup keys stay within 255 characters.
 */
import { describe, expect, it } from 'vitest';
import {
  noticeSeverity,
  renderPagerDutyEvents,
  SUMMARY_MAX,
} from '../../../src/channels/pagerduty/render.js';
import { capacityAlert, hostileAlerts, noticeAlert } from '../../fakes/alerts.js';
import { eventErrors } from '../../fakes/pagerduty.js';

const KEY = 'R0UT1NGKEYR0UT1NGKEYR0UT1NGK9a1b';
const NOW = '2026-11-20T15:00:00Z';

describe('PagerDuty events', () => {
  it('hostile notices arrive without control characters, each event as PagerDuty takes it', () => {
    const huge = noticeAlert({
      id: 1,
      subject: `\u001b[31mFORCE\u0007 MAJEURE\r\n${'x'.repeat(5_000)}`,
      type: 'Force Majeure\u202e',
      notice: 'y'.repeat(2_000_000),
    });
    for (const alert of [...hostileAlerts(), huge]) {
      for (const event of renderPagerDutyEvents(alert, KEY, NOW)) {
        const json = JSON.stringify(event);
        expect(eventErrors(event, Buffer.byteLength(json))).toEqual([]);
        expect(Buffer.byteLength(json)).toBeLessThan(64 * 1024 + 1);
        const summary = event.payload?.summary ?? '';
        expect(summary.length).toBeLessThanOrEqual(SUMMARY_MAX);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for them is the point
        expect(summary).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
        expect(JSON.stringify(event.payload?.custom_details)).not.toMatch(/\\u00(0[0-8bcef]|1)/);
      }
    }
    const [event] = renderPagerDutyEvents(huge, KEY, NOW);
    expect(event?.payload?.severity).toBe('critical');
  });

  it.each([
    ['Force Majeure', 'critical'],
    ['Force Maj', 'critical'],
    ['OFO', 'critical'],
    ['Operational Flow Order', 'critical'],
    ['Curtailment', 'critical'],
    ['Capacity Constraint', 'error'],
    ['Critical period', 'error'],
    ['Maintenance', 'info'],
    ['Plnd Outage', 'info'],
    ['Gas Quality', 'warning'],
    ['', 'warning'],
  ])('a %s notice is %s', (type, severity) => {
    expect(noticeSeverity(type)).toBe(severity);
  });

  it('keys a long rule name within 255 characters, and each location of a capacity alert apart', () => {
    const one = capacityAlert().payload.capacity!.locations[0]!;
    const alert = capacityAlert([one, { ...one, identifier: '1009999', location: 'STATION 90' }]);
    const long = { ...alert, payload: { ...alert.payload, rule: 'r'.repeat(400) } };
    const events = renderPagerDutyEvents(long, KEY, NOW);
    expect(events.length).toBe(2);
    for (const e of events) expect(e.dedup_key.length).toBeLessThanOrEqual(255);
    expect(new Set(events.map((e) => e.dedup_key)).size).toBe(events.length);
  });

  it('a notice whose end has passed resolves; one ended by its status resolves', () => {
    const ended = noticeAlert({ end_at: '2026-11-20T14:00:00Z' });
    expect(renderPagerDutyEvents(ended, KEY, NOW)).toEqual([
      { routing_key: KEY, event_action: 'resolve', dedup_key: 'pipewatch/notice/transco/101' },
    ]);
    const lifted = noticeAlert({ status: 'TERMINATE' });
    expect(renderPagerDutyEvents(lifted, KEY, NOW).map((e) => e.event_action)).toEqual(['resolve']);
  });
});
