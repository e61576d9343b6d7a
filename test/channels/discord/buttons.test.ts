/**
 * The components on Discord alerts: which message carries which (as Slack decides its
 * buttons), that every message with them keeps Discord's limits, and that a message
 * rendered without them is exactly what it was.
 */
import { describe, expect, it } from 'vitest';
import { type ActionRow, decodeComponent } from '../../../src/channels/discord/actions.js';
import { renderMessage } from '../../../src/channels/discord/render.js';
import { ACTIONS_BLOCK_ID, decodeAction } from '../../../src/channels/slack/actions.js';
import { renderSlack } from '../../../src/channels/slack/render.js';
import type { ChatAction } from '../../../src/chat/types.js';
import { capacityAlert, deadlineAlert, noticeAlert } from '../../fakes/alerts.js';
import { SAMPLE_KINDS, type SampleKind, SENT_AT, sampleAlerts } from '../payload-samples.js';
import { componentProblem } from './component-limits.js';

const TARGET = 'discord:1187654321098765432';
const MESSAGE_ID = '1300000000000000001';

/** An action in short: `ack`, `mute:transco`, `remind:216650`. */
function short(action: ChatAction | undefined): string {
  if (action?.kind === 'mute') return `mute:${action.pipeline}`;
  if (action?.kind === 'remind') return `remind:${action.noticeId}`;
  return action?.kind ?? 'unreadable';
}

/** What each component of a Discord message asks for, read back as the app reads a click. */
function discordActions(components: ActionRow[] | undefined): string[] {
  return (components ?? []).flatMap((row) =>
    row.components.map((c) => {
      const values = 'options' in c ? [c.options[0]?.value] : undefined;
      return short(decodeComponent(c.custom_id, values, MESSAGE_ID));
    }),
  );
}

/** What each element of a Slack message's actions block asks for. */
function slackActions(blocks: unknown[]): string[] {
  type Element = { action_id: string; value?: string; options?: Array<{ value: string }> };
  const block = (blocks as Array<{ block_id?: string; elements?: Element[] }>).find(
    (b) => b.block_id === ACTIONS_BLOCK_ID,
  );
  return (block?.elements ?? []).map((e) =>
    short(decodeAction(e.action_id, e.value ?? e.options?.[0]?.value, '1732111200.000100')),
  );
}

const EXPECTED: Record<SampleKind, string[]> = {
  'notice-new': ['ack', 'mute:transco'],
  'notice-updated': ['ack', 'mute:transco'],
  'notice-open-ended': ['ack', 'mute:transco'],
  reminder: ['ack', 'remind:216650', 'mute:transco'],
  'reminder-late': ['ack', 'remind:216650', 'mute:transco'],
  'capacity-firing': ['ack', 'mute:transco'],
  'capacity-resolved': ['ack', 'mute:transco'],
  'operations-schema-drift': ['ack'],
  'operations-unknown-pipeline': ['ack'],
  'operations-unknown-location': ['ack'],
  'operations-channel-gone': ['ack'],
  'operations-feed-stale': ['ack'],
  'operations-feed-recovered': ['ack'],
  'operations-target-dead': ['ack'],
  'operations-target-recovered': ['ack'],
  'silence-ended': ['ack'],
  'silence-ended-many': ['ack'],
  digest: ['ack', 'mute:transco'],
  'silence-digest': ['ack'],
};

describe('alerts with components', () => {
  it.each(SAMPLE_KINDS)('%s: carries what it should, within limits', (kind) => {
    const message = renderMessage(sampleAlerts(kind, TARGET), SENT_AT, { interactive: true });
    expect(discordActions(message.components)).toEqual(EXPECTED[kind]);
    expect(componentProblem(message.components)).toBeUndefined();
  });

  it.each(SAMPLE_KINDS)('%s: offers what Slack offers on the same alerts', (kind) => {
    const alerts = sampleAlerts(kind, TARGET);
    const discord = renderMessage(alerts, SENT_AT, { interactive: true });
    const slack = renderSlack(alerts, SENT_AT, { interactive: true });
    expect(discordActions(discord.components).sort()).toEqual(slackActions(slack.blocks).sort());
  });

  it.each(SAMPLE_KINDS)('%s: keeps its embeds and content as they are without', (kind) => {
    const alerts = sampleAlerts(kind, TARGET);
    const { components, ...rest } = renderMessage(alerts, SENT_AT, { interactive: true });
    expect(components).toBeDefined();
    expect(rest).toEqual(renderMessage(alerts, SENT_AT));
  });

  it('are absent unless asked, and the body is what it always was', () => {
    for (const kind of SAMPLE_KINDS) {
      const alerts = sampleAlerts(kind, TARGET);
      const plain = renderMessage(alerts, SENT_AT);
      expect(Object.keys(plain), kind).not.toContain('components');
      expect(renderMessage(alerts, SENT_AT, { interactive: false }), kind).toEqual(plain);
    }
  });

  it('offer Remind me only on a notice whose response is still ahead', () => {
    const due = noticeAlert({ response_at: '2026-11-20T20:00:00Z' });
    const at = (now: string) =>
      discordActions(renderMessage([due], now, { interactive: true }).components);
    expect(at('2026-11-20T19:00:00Z')).toEqual(['ack', 'remind:101', 'mute:transco']);
    expect(at('2026-11-20T20:00:00Z')).toEqual(['ack', 'mute:transco']);
    const none = renderMessage([noticeAlert()], SENT_AT, { interactive: true });
    expect(discordActions(none.components)).toEqual(['ack', 'mute:transco']);
  });

  it('offer Remind me on no digest, even of notices due later', () => {
    const one = noticeAlert({ id: 1, response_at: '2026-11-22T20:00:00Z' }, 'a|notice:1|d');
    const two = deadlineAlert({ id: 2, response_at: '2026-11-22T20:00:00Z' });
    const message = renderMessage([one, two], SENT_AT, { interactive: true });
    expect(discordActions(message.components)).toEqual(['ack', 'mute:transco']);
  });

  it('offer no Mute menu on a digest of several pipelines', () => {
    const other = capacityAlert();
    other.payload = {
      ...other.payload,
      pipeline: { slug: 'texas-eastern', name: 'Texas Eastern' },
    };
    const message = renderMessage([noticeAlert(), other], SENT_AT, { interactive: true });
    expect(discordActions(message.components)).toEqual(['ack']);
    expect(message.components).toHaveLength(1);
  });

  it('mute the pipeline of the alerts, for each length the menu offers', () => {
    const [, menu] = renderMessage([capacityAlert()], SENT_AT, { interactive: true }).components!;
    const select = menu!.components[0]!;
    const options = 'options' in select ? select.options : [];
    expect(options.map((o) => decodeComponent(select.custom_id, [o.value], MESSAGE_ID))).toEqual(
      [1, 4, 24].map((h) => ({ kind: 'mute', pipeline: 'transco', forMs: h * 3_600_000 })),
    );
  });
});
