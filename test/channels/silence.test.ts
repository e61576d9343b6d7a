/**
 * A silence's summary wherever every kind is handled: its headline and title, the
 * terminal preview of each platform (no upstream text moves the cursor or fakes an
 * alert line), the `send-test` sample on every channel, and the delivery log's line.
 */
import { describe, expect, it } from 'vitest';
import { previewMessage } from '../../src/channels/preview.js';
import { renderFor } from '../../src/channels/rendered.js';
import { sampleAlert } from '../../src/channels/sample.js';
import { headline, title } from '../../src/channels/text.js';
import { webhookBodySchema } from '../../src/channels/webhook/body-schema.js';
import { summarise } from '../../src/delivery/delivery-log.js';
import type { Target } from '../../src/domain/targets.js';
import { noticeAlert } from '../fakes/alerts.js';
import { hostileSilence, silenceAlert } from '../fakes/silence.js';
import { UNSAFE_IN_MESSAGES } from '../support/unsafe-text.js';

const NOW = '2026-11-20T18:30:00Z';
const TARGETS: Target[] = [
  { kind: 'slack', channel: '#gas-constraints' },
  { kind: 'slack_dm', user: 'U0ALICE' },
  { kind: 'discord', channel: '1234567890' },
  { kind: 'discord_dm', user: '42' },
  { kind: 'email', to: ['scheduling@example.com'] },
  { kind: 'webhook', url: 'https://hooks.example.com/pipewatch' },
  { kind: 'console' },
];

describe('the words of a silence’s summary', () => {
  it('has a headline and a title that say which silence ended and how many it held', () => {
    const p = silenceAlert({ held: 4 }).payload;
    expect(headline(p)).toBe('Silence #12 ended — while muted: 4 alerts');
    expect(title(p)).toBe('[Transco] Silence #12 ended — while muted: 4 alerts');
    const lifted = silenceAlert(
      { ended_by: 'lifted' },
      { pipeline: { slug: 'all', name: 'all pipelines' } },
    );
    expect(title(lifted.payload)).toBe('[all pipelines] Silence #12 lifted — while muted: 1 alert');
  });

  it('has a delivery log line naming the silence, the count and the matchers', () => {
    expect(summarise(silenceAlert({ held: 4 }).payload)).toEqual({
      text: 'end of silence #12: 4 alerts held while muted (pipeline=transco target=slack:C0GAS)',
      fields: { kind: 'silence', state: 'ended', pipeline: 'transco', silence: 12, held: 4 },
    });
  });
});

describe('the preview of a silence’s summary', () => {
  it('lets no held alert move the cursor or fake an alert line, alone or in a digest', () => {
    for (const target of TARGETS) {
      for (const batch of [[hostileSilence()], [hostileSilence(), noticeAlert()]]) {
        const text = previewMessage(target, batch, NOW);
        expect(text, target.kind).not.toMatch(UNSAFE_IN_MESSAGES);
        const starts = text.split('\n').filter((l) => l.startsWith('ALERT'));
        expect(starts, target.kind).toHaveLength(target.kind === 'console' ? batch.length : 1);
        for (const l of starts) expect(l).toMatch(/^ALERT (silence-12|transco-constraints)/);
      }
    }
  });
});

describe('the send-test sample of a silence’s summary', () => {
  it('renders on every channel, its webhook body a body of the contract', () => {
    const alert = { key: 'send-test|silence|x', payload: sampleAlert('silence', new Date(NOW)) };
    for (const target of TARGETS) {
      const rendered = renderFor(target, [alert], { now: NOW });
      if (rendered.kind === 'webhook') {
        const parsed = webhookBodySchema.safeParse(rendered.requests[0]!.body);
        expect(parsed.error).toBeUndefined();
      } else {
        expect(JSON.stringify(rendered), target.kind).toContain('Silence #0 ended');
        expect(JSON.stringify(rendered), target.kind).toContain('OAC below 50,000 Dth');
      }
    }
  });
});
