/**
 * What an alert means for the next nomination: a notice in effect or ahead and an OAC
 * alert name the next NAESB cycle and how long is left at the send time, in the
 * pipeline's zone, across the DST switches, in the words a reminder uses; and say
 * nothing where the line would mislead.
 */
import { describe, expect, it } from 'vitest';
import type { AlertPayload } from '../../src/alerts/payload.js';
import { renderConsole } from '../../src/channels/console/render.js';
import { renderMessage } from '../../src/channels/discord/render.js';
import { renderEmail } from '../../src/channels/email/render.js';
import { nextCycleFor, nextCycleLine } from '../../src/channels/next-cycle.js';
import { renderSlack } from '../../src/channels/slack/render.js';
import { deadlineLabel } from '../../src/channels/text.js';
import type { Alert } from '../../src/channels/types.js';
import { renderWebhook } from '../../src/channels/webhook/render.js';
import { capacityAlert, deadlineAlert, noticeAlert } from '../fakes/alerts.js';

/** Fri 2026-11-20, 3:50 PM CST: the evening cycle closes at 6:00 PM, in 2 h 10 min. */
const NOW = '2026-11-20T21:50:00Z';

function inZone(alert: Alert, zone: string): Alert {
  return { ...alert, payload: { ...alert.payload, zone } };
}

const capacity = (zone = 'America/Chicago') => inZone(capacityAlert(), zone).payload;

/** A new-notice alert in Central time, effective and ending as given. */
function notice(effective_at: string | null, end_at: string | null): AlertPayload {
  return inZone(noticeAlert({ effective_at, end_at }), 'America/Chicago').payload;
}

describe('the next nomination cycle of an OAC alert', () => {
  it('names the cycle, its deadline in the pipeline zone and the time left', () => {
    expect(nextCycleLine(capacity(), NOW)).toBe(
      'Next: Evening cycle for gas day 2026-11-21, noms due 6:00 PM CST (in 2 h 10 min)',
    );
    expect(nextCycleLine(capacity('America/New_York'), NOW)).toBe(
      'Next: Evening cycle for gas day 2026-11-21, noms due 7:00 PM EST (in 2 h 10 min)',
    );
    expect(nextCycleLine(capacity('America/Denver'), NOW)).toBe(
      'Next: Evening cycle for gas day 2026-11-21, noms due 5:00 PM MST (in 2 h 10 min)',
    );
  });

  it('says the same of a recovery', () => {
    const resolved = inZone(capacityAlert(undefined, 'resolved'), 'America/Chicago').payload;
    expect(nextCycleLine(resolved, NOW)).toBe(nextCycleLine(capacity(), NOW));
  });

  it('takes a cycle due at the send time as closed and names the next one', () => {
    expect(nextCycleLine(capacity(), '2026-11-21T00:00:00Z')).toBe(
      'Next: Intraday 3 cycle for gas day 2026-11-20, noms due 7:00 PM CST (in 1 h)',
    );
  });

  it('counts the real hours across spring-forward and fall-back', () => {
    // 7:00 PM CST Sat Mar 7, ID3 closing: ID1 at 10:00 AM CDT is 14 h away, not 15.
    expect(nextCycleLine(capacity(), '2026-03-08T01:00:00Z')).toBe(
      'Next: Intraday 1 cycle for gas day 2026-03-08, noms due 10:00 AM CDT tomorrow (in 14 h)',
    );
    // 7:00 PM CDT Sat Oct 31, ID3 closing: ID1 at 10:00 AM CST is 16 h away, not 15.
    expect(nextCycleLine(capacity(), '2026-11-01T00:00:00Z')).toBe(
      'Next: Intraday 1 cycle for gas day 2026-11-01, noms due 10:00 AM CST tomorrow (in 16 h)',
    );
    // Eastern time, the same instant: 11:00 AM EST.
    expect(nextCycleLine(capacity('America/New_York'), '2026-11-01T00:00:00Z')).toBe(
      'Next: Intraday 1 cycle for gas day 2026-11-01, noms due 11:00 AM EST tomorrow (in 16 h)',
    );
  });

  it('shows Central Clock Time for a zone the platform does not know', () => {
    expect(nextCycleLine(capacity('Mars/Olympus_Mons'), NOW)).toBe(
      'Next: Evening cycle for gas day 2026-11-21, noms due 6:00 PM CST (in 2 h 10 min)',
    );
  });

  it('has nothing to say without a send time', () => {
    expect(nextCycleLine(capacity(), undefined)).toBeUndefined();
    expect(nextCycleLine(capacity(), 'not a time')).toBeUndefined();
  });
});

describe('the next nomination cycle of a notice', () => {
  it('is the next open cycle of the gas day it takes effect, when that is ahead', () => {
    // Effective gas day Nov 21: its timely cycle closed at 1:00 PM, its evening one is next.
    const ahead = notice('2026-11-21T15:00:00Z', '2026-11-22T15:00:00Z');
    expect(nextCycleLine(ahead, NOW)).toBe(
      'Next: Evening cycle for gas day 2026-11-21, noms due 6:00 PM CST (in 2 h 10 min)',
    );
    // Weeks ahead: that gas day's timely cycle, the day before it, with its date.
    const later = notice('2026-12-15T15:00:00Z', null);
    expect(nextCycleLine(later, NOW)).toBe(
      'Next: Timely cycle for gas day 2026-12-15, noms due Mon, Dec 14, 1:00 PM CST (in 23 days 21 h 10 min)',
    );
  });

  it('keeps to the gas days it covers: one ending today does not point at tomorrow', () => {
    // In effect from 9:00 AM, ends 4:00 PM today (gas day Nov 20); at 12:30 PM the
    // timely cycle for Nov 21 is the next deadline of all, but the notice is over by then.
    const today = notice('2026-11-20T15:00:00Z', '2026-11-20T22:00:00Z');
    expect(nextCycleFor(today, '2026-11-20T18:30:00Z')?.cycle).toBe('id2');
    // Ending 9:00 AM Sat ends with gas day Nov 20: after its ID3, nothing is left.
    const gasDay = notice('2026-11-20T15:00:00Z', '2026-11-21T15:00:00Z');
    expect(nextCycleFor(gasDay, '2026-11-21T00:30:00Z')?.cycle).toBe('id3');
    expect(nextCycleLine(gasDay, '2026-11-21T01:00:00Z')).toBeUndefined();
  });

  it('is the next cycle of all for a notice in effect without an end, or until further notice', () => {
    const open = notice('2025-01-01T15:00:00Z', null);
    expect(nextCycleLine(open, NOW)).toBe(nextCycleLine(capacity(), NOW));
    const placeholder = notice('2025-01-01T15:00:00Z', '9000-12-31T00:00:00Z');
    expect(nextCycleLine(placeholder, NOW)).toBe(nextCycleLine(capacity(), NOW));
  });

  it('says nothing of a notice without an effective time or already over', () => {
    expect(nextCycleLine(notice(null, null), NOW)).toBeUndefined();
    expect(nextCycleLine(notice('2026-11-19T15:00:00Z', '2026-11-20T21:50:00Z'), NOW)).toBe(
      undefined,
    );
    expect(nextCycleLine(notice('garbage', null), NOW)).toBeUndefined();
    // Never throws on a time from upstream the calendar cannot name a gas day past.
    expect(nextCycleLine(notice('+275760-09-13T00:00:00Z', null), NOW)).toBeUndefined();
  });

  it('leaves a deadline reminder to its own deadline, in the same words', () => {
    const reminder = deadlineAlert({ effective_at: '2026-11-20T15:00:00Z' }).payload;
    expect(nextCycleLine(reminder, '2026-11-20T17:50:00Z')).toBeUndefined();
    expect(deadlineLabel(reminder, '2026-11-20T17:50:00Z')).toBe('Response due in 2 h 10 min');
  });
});

describe('every channel', () => {
  const LINE = 'Evening cycle for gas day 2026-11-21, noms due 6:00 PM CST (in 2 h 10 min)';
  const alerts = [
    inZone(noticeAlert({ effective_at: '2026-11-21T15:00:00Z' }), 'America/Chicago'),
    inZone(capacityAlert(), 'America/Chicago'),
  ];

  it.each(alerts.map((a) => [a.payload.kind, a] as const))('shows it on a %s alert', (_, a) => {
    expect(JSON.stringify(renderSlack([a], NOW).blocks)).toContain(`Next: ${LINE}`);
    const fields = renderMessage([a], NOW).embeds[0]?.fields ?? [];
    expect(fields).toContainEqual({ name: 'Next', value: LINE, inline: false });
    const email = renderEmail([a], { from: 'alerts@example.com', now: NOW });
    expect(email.text).toMatch(new RegExp(`Next: +${LINE.replace(/[()]/g, '\\$&')}`));
    expect(email.html).toContain(LINE);
    expect(renderConsole(a.payload, 'console', NOW)).toContain(`\n    Next: ${LINE}`);
  });

  it('shows it on each alert of a digest', () => {
    const slack = renderSlack(alerts, NOW);
    expect(JSON.stringify(slack.blocks).split(`Next: ${LINE}`)).toHaveLength(3);
    const email = renderEmail(alerts, { from: 'alerts@example.com', now: NOW });
    expect(email.text.split(LINE)).toHaveLength(3);
  });

  it('keeps the webhook body to facts: no line, no field', () => {
    for (const a of alerts) expect(renderWebhook(a.payload, NOW)).not.toContain('Evening');
  });
});
