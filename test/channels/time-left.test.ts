/**
 * Reminders say how long is left when they are sent, in every channel: the 2h reminder
 * of a notice that arrived 90 minutes before its deadline reads "due in 1 h 30 min".
 */
import { describe, expect, it } from 'vitest';
import { renderConsole } from '../../src/channels/console/render.js';
import { renderMessage } from '../../src/channels/discord/render.js';
import { renderEmail } from '../../src/channels/email/render.js';
import { renderSlack } from '../../src/channels/slack/render.js';
import { deadlineLabel, headline } from '../../src/channels/text.js';
import { renderWebhook } from '../../src/channels/webhook/render.js';
import { deadlineAlert } from '../fakes/alerts.js';

/** 90 minutes before the fake reminder's deadline, 2026-11-20T20:00:00Z. */
const NOW = '2026-11-20T18:30:00Z';
const SUBJECT = 'Capacity Constraint - Station 165';

describe('a reminder sent 90 minutes before its deadline', () => {
  const alert = deadlineAlert();

  it('reads "due in 1 h 30 min" in the headline every channel shares', () => {
    expect(headline(alert.payload, NOW)).toBe(`Response due in 1 h 30 min: ${SUBJECT}`);
  });

  it('reads so on Slack, Discord, by email and on the console', () => {
    const slack = renderSlack([alert], NOW);
    expect(slack.text).toBe(`[Transco] Response due in 1 h 30 min: ${SUBJECT}`);
    expect(JSON.stringify(slack.blocks)).toContain('Transco: Response due in 1 h 30 min');
    const discord = renderMessage([alert], NOW).embeds[0]!;
    expect(discord.title).toBe(`Response due in 1 h 30 min: ${SUBJECT}`);
    const email = renderEmail([alert], { from: 'alerts@example.com', now: NOW });
    expect(email.subject).toBe(`[Transco] Response due in 1 h 30 min: ${SUBJECT}`);
    expect(email.text).toContain('Response due in 1 h 30 min: Fri, Nov 20, 2026, 3:00 PM EST');
    expect(renderConsole(alert.payload, 'slack_dm:U0123', NOW)).toMatch(
      /^ALERT ofo-reminders → slack_dm:U0123: transco reminder: response_at 2026-11-20T20:00:00Z due in 1 h 30 min \(the 2h reminder\) for #101 /,
    );
  });

  it('keeps the offset in the webhook payload', () => {
    const body = JSON.parse(renderWebhook(alert.payload, NOW));
    expect(body.deadline).toEqual({
      field: 'response_at',
      at: '2026-11-20T20:00:00Z',
      before: '2h',
    });
    expect(body.sent_at).toBe(NOW);
  });
});

describe('the time left', () => {
  it('is worked out from the send time, not from the offset', () => {
    const p = deadlineAlert().payload;
    expect(deadlineLabel(p, '2026-11-20T18:00:00Z')).toBe('Response due in 2 h');
    expect(deadlineLabel(p, '2026-11-20T19:15:00Z')).toBe('Response due in 45 min');
    expect(deadlineLabel(p, '2026-11-18T17:00:00Z')).toBe('Response due in 2 days 3 h');
  });

  it('never goes below zero, and names each deadline field', () => {
    const p = deadlineAlert().payload;
    expect(deadlineLabel(p, '2026-11-20T20:00:00Z')).toBe('Response due now');
    expect(deadlineLabel(p, '2026-11-20T21:00:00Z')).toBe('Response due now');
    p.deadline = { ...p.deadline!, field: 'end_at', late: true };
    expect(deadlineLabel(p, '2026-11-20T19:59:30Z')).toBe('Ends in 30 s (late)');
  });

  it('falls back to the offset when no send time is given', () => {
    expect(headline(deadlineAlert().payload)).toBe(`Response due in 2h: ${SUBJECT}`);
  });
});
