/**
 * Previews: each platform's message as plain text for a terminal, built from the real
 * renderers, without colour, and safe to print whatever the pipelines wrote.
 */
import { describe, expect, it } from 'vitest';
import { renderConsole } from '../../src/channels/console/render.js';
import {
  previewDiscord,
  previewEmail,
  previewMessage,
  previewSlack,
  previewWebhook,
} from '../../src/channels/preview.js';
import type { Alert } from '../../src/channels/types.js';
import { renderWebhook } from '../../src/channels/webhook/render.js';
import type { Target } from '../../src/domain/targets.js';
import { terminalSafe } from '../../src/lib/terminal.js';
import {
  capacityAlert,
  deadlineAlert,
  hostileAlerts,
  location,
  noticeAlert,
} from '../fakes/alerts.js';
import { UNSAFE_IN_MESSAGES } from '../support/unsafe-text.js';

const NOW = '2026-11-20T18:30:00Z';
const TARGETS: Target[] = [
  { kind: 'slack', channel: '#gas-constraints' },
  { kind: 'slack_dm', user: 'scheduler@example.com' },
  { kind: 'discord', channel: '1234567890' },
  { kind: 'discord_dm', user: '42' },
  { kind: 'email', to: ['scheduling@example.com'] },
  { kind: 'webhook', url: 'https://hooks.example.com/pipewatch' },
  { kind: 'console' },
  { kind: 'pagerduty', routingKey: 'R0UT1NGKEYR0UT1NGKEYR0UT1NGK9a1b' },
];

/** A notice that tries to move the cursor, recolour the terminal and fake an alert line. */
function terminalHostile(): Alert {
  return noticeAlert(
    {
      id: 990,
      subject: 'Outage\r\nALERT fake → console: injected \u001b[31mred\u001b[0m',
      notice:
        'line one\u001b[2K\rALERT fake → slack:#gas\n\u009b31mC1 red\u009b0m \u202eevil\u202c\u2028ALERT fake2\ttab',
      html: '',
      url: 'https://evil.example/x?a=1&b=<2>',
    },
    'hostile|notice:990:v1|any',
  );
}

describe('the PagerDuty preview', () => {
  it('shows the events as sent, without the integration key', () => {
    const target = TARGETS.find((t) => t.kind === 'pagerduty')!;
    const text = previewMessage(target, [noticeAlert()], NOW);
    expect(text.split('\n')[0]).toBe('ALERT transco-constraints → pagerduty:…9a1b');
    expect(text).toContain('"dedup_key": "pipewatch/notice/transco/101"');
    expect(text).not.toContain('R0UT1NGKEY');
  });
});

describe('the Slack preview', () => {
  it('shows the header, the text without Slack formatting, fallback times and buttons', () => {
    const text = previewSlack([noticeAlert({ response_at: '2026-11-20T20:00:00Z' })], NOW);
    const lines = text.split('\n');
    expect(lines[0]).toBe('Transco: Capacity Constraint');
    expect(lines).toContain('Capacity Constraint - Station 165');
    expect(lines).toContain('Posted: Fri, Nov 20, 2026, 9:00 AM EST');
    expect(lines).toContain('Response due: Fri, Nov 20, 2026, 3:00 PM EST');
    expect(lines).toContain('[Open notice]');
    expect(lines.at(-1)).toBe('pipewatch · rule transco-constraints');
    expect(text).not.toMatch(/<!date|\*Posted\*|&lt;|&amp;/);
  });

  it('shows a digest with its links written out and one capacity table', () => {
    const text = previewSlack([noticeAlert(), deadlineAlert(), capacityAlert()], NOW);
    expect(text).toContain(
      'Capacity Constraint: Station 165 (https://www.1line.williams.com/xhtml/notice.jsf?id=101)',
    );
    expect(text).toContain('Response due in 1 h 30 min: Capacity Constraint - Station 165');
    expect(text).toContain('Low OAC at STATION 85 — timely cycle, gas day 2026-11-21');
    expect(text).toMatch(/^STATION 85 \(1001234\)\s+D\s+30,000\s+800,000\s+50,000$/m);
    expect(text).not.toContain('```');
  });

  it('shows text as Slack would: escaped markup reads as typed', () => {
    const [script, mentions] = hostileAlerts();
    expect(previewSlack([script!], NOW)).toContain('Maintenance Update <script>alert(1)</script>');
    expect(previewSlack([mentions!], NOW)).toContain(
      '@everyone Critical period declared <!channel>',
    );
  });
});

describe('the Discord preview', () => {
  it('shows title, description, fields as name: value, and times written out', () => {
    const text = previewDiscord([deadlineAlert()], NOW);
    const lines = text.split('\n');
    expect(lines.slice(0, 2)).toEqual([
      'Transco',
      'Response due in 1 h 30 min: Capacity Constraint - Station 165',
    ]);
    expect(lines).toContain('Response due in 1 h 30 min: 2026-11-20 20:00 UTC');
    expect(lines).toContain('Type: Operational Flow Order');
    expect(lines).toContain('Posted: 2026-11-20 14:00 UTC · Fri, Nov 20, 2026, 9:00 AM EST');
    expect(lines.at(-1)).toBe('pipewatch · rule ofo-reminders · reminder 2h before response_at');
    expect(text).not.toMatch(/<t:|\*\*/);
  });

  it('shows upstream markdown as Discord shows it, its escapes undone', () => {
    const [, , md] = hostileAlerts();
    expect(previewDiscord([md!], NOW)).toContain(
      'Capacity Constraint: *URGENT* _Gas Control_ ~cancelled~ `OFO`',
    );
  });
});

describe('the email preview', () => {
  it('is the subject line, a blank line, then the text part', () => {
    const many = Array.from({ length: 17 }, (_, i) =>
      location({ id: i, location: `STATION ${80 + i}`, identifier: String(1_001_200 + i) }),
    );
    const [subject, blank, first] = previewEmail([capacityAlert(many)], NOW).split('\n');
    expect(subject).toBe(
      'Subject: [Transco] Low OAC at 17 locations — timely cycle, gas day 2026-11-21',
    );
    expect(blank).toBe('');
    expect(first).toBe('[Transco] Low OAC at 17 locations — timely cycle, gas day 2026-11-21');
  });
});

describe('the webhook preview', () => {
  it('is each body pretty-printed, the same JSON as is posted', () => {
    const alerts = [noticeAlert(), deadlineAlert()];
    const bodies = previewWebhook(alerts, NOW).split('\n\n');
    expect(bodies).toHaveLength(2);
    expect(bodies[0]!.split('\n')[1]).toBe('  "version": 1,');
    expect(bodies.map((b) => JSON.parse(b))).toEqual(
      alerts.map((a) => JSON.parse(renderWebhook(a.payload, NOW))),
    );
  });

  it('writes characters a terminal could act on as JSON escapes', () => {
    const body = previewWebhook([terminalHostile()], NOW);
    expect(body).not.toMatch(UNSAFE_IN_MESSAGES);
    expect(body).toContain('\\u009b31mC1');
    expect(JSON.parse(body).notice.notice).toBe(terminalHostile().payload.notice!.notice);
  });
});

describe('previewMessage', () => {
  it('heads each preview with its ALERT line and indents the message under it', () => {
    const text = previewMessage(TARGETS[4]!, [capacityAlert()], NOW, {
      note: ' (email not configured: printed here)',
    });
    const [head, ...rest] = text.split('\n');
    expect(head).toBe(
      'ALERT transco-low-oac → email:scheduling@example.com (email not configured: printed here)',
    );
    expect(rest[0]).toBe(
      '    Subject: [Transco] Low OAC at STATION 85 — timely cycle, gas day 2026-11-21',
    );
    for (const line of rest) expect(line === '' || line.startsWith('    ')).toBe(true);
  });

  it('names a target whose key holds a secret by its label: a webhook by scheme and host', () => {
    const hook = 'https://hooks.example.com/services/T0/B0/s3cr3tT0ken?sig=abc';
    const text = previewMessage({ kind: 'webhook', url: hook }, [noticeAlert()], NOW);
    expect(text.split('\n')[0]).toBe(
      'ALERT transco-constraints → webhook:https://hooks.example.com/…',
    );
    expect(text).not.toContain('s3cr3tT0ken');
  });

  it('picks each platform’s own preview', () => {
    const alerts = [deadlineAlert()];
    const body = (t: Target) =>
      previewMessage(t, alerts, NOW)
        .split('\n')
        .slice(1)
        .map((l) => l.slice(4))
        .join('\n');
    expect(body(TARGETS[0]!)).toBe(previewSlack(alerts, NOW));
    expect(body(TARGETS[1]!)).toBe(previewSlack(alerts, NOW));
    expect(body(TARGETS[2]!)).toBe(previewDiscord(alerts, NOW));
    expect(body(TARGETS[4]!)).toBe(previewEmail(alerts, NOW));
    expect(body(TARGETS[5]!)).toBe(previewWebhook(alerts, NOW));
    expect(previewMessage(TARGETS[6]!, alerts, NOW)).toBe(
      renderConsole(alerts[0]!.payload, 'console', NOW),
    );
  });

  it('lets no upstream text move the cursor, colour the terminal or fake an alert line', () => {
    const alerts = [...hostileAlerts(), terminalHostile()];
    for (const target of TARGETS) {
      for (const batch of [...alerts.map((a) => [a]), alerts.slice(0, 5)]) {
        const text = previewMessage(target, batch, NOW);
        expect(text, target.kind).not.toMatch(UNSAFE_IN_MESSAGES);
        const starts = text.split('\n').filter((l) => l.startsWith('ALERT'));
        const expected = target.kind === 'console' ? batch.length : 1;
        expect(starts, target.kind).toHaveLength(expected);
        for (const l of starts) expect(l).toMatch(/^ALERT (transco-constraints|hostile)/);
      }
    }
    expect(previewMessage(TARGETS[0]!, [terminalHostile()], NOW)).toContain(
      '    Outage ALERT fake → console: injected [31mred [0m',
    );
  });
});

describe('terminalSafe', () => {
  it('keeps line breaks as newlines and removes what a terminal would act on', () => {
    expect(terminalSafe('a\r\nb\rc\u2028d\te\u001b[2Kf\u009bg\u202eh\u0007')).toBe(
      'a\nb\nc\nd  e[2Kfgh',
    );
  });
});
