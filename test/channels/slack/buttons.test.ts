/**
 * The buttons on alerts: what each encodes and whether it reads back, which alerts carry
 * which, that every message with them stays within Slack's limits, and what an
 * acknowledged message becomes.
 */
import { describe, expect, it } from 'vitest';
import {
  ACTIONS_BLOCK_ID,
  acknowledgedBlocks,
  alertActions,
  decodeAction,
  encodeAction,
} from '../../../src/channels/slack/actions.js';
import { renderSlack } from '../../../src/channels/slack/render.js';
import type { ChatAction } from '../../../src/chat/types.js';
import { capacityAlert, noticeAlert } from '../../fakes/alerts.js';
import { checkMessage } from '../../fakes/slack-blocks.js';
import { SAMPLE_KINDS, SENT_AT, sampleAlerts } from '../payload-samples.js';

type Json = Record<string, unknown>;

describe('action values', () => {
  const actions: ChatAction[] = [
    { kind: 'mute', pipeline: 'transco', forMs: 3_600_000 },
    { kind: 'mute', pipeline: 'texas-eastern', forMs: 24 * 3_600_000 },
    { kind: 'remind', noticeId: 216650 },
    { kind: 'remove', what: 'subscription', id: 12 },
    { kind: 'remove', what: 'silence', id: 3 },
  ];

  it('read back into the action they were written from', () => {
    for (const action of actions) {
      const { action_id, value } = encodeAction(action);
      expect(decodeAction(action_id, value)).toEqual(action);
    }
  });

  it('take the acknowledged message from the click, not the value', () => {
    const { action_id, value } = encodeAction({ kind: 'ack', message: 'ignored' });
    expect(value).toBe('v1:ack');
    expect(decodeAction(action_id, value, '1732111200.000100')).toEqual({
      kind: 'ack',
      message: '1732111200.000100',
    });
    expect(decodeAction(action_id, value, undefined)).toBeUndefined();
  });

  it('refuse anything else', () => {
    const refused: Array<[string, string | undefined]> = [
      ['pipewatch_mute', undefined],
      ['pipewatch_mute', ''],
      ['pipewatch_mute', 'v2:mute:transco:1h'],
      ['pipewatch_remind', 'v1:mute:transco:1h'],
      ['pipewatch_mute', 'v1:mute:transco'],
      ['pipewatch_mute', 'v1:mute:transco:0h'],
      ['pipewatch_mute', 'v1:mute:transco:721h'],
      ['pipewatch_mute', 'v1:mute:transco:1.5h'],
      ['pipewatch_mute', 'v1:mute:../etc:1h'],
      ['pipewatch_mute', 'v1:mute:transco:1h:extra'],
      ['pipewatch_remind', 'v1:remind:-3'],
      ['pipewatch_remind', 'v1:remind:0'],
      ['pipewatch_remind', 'v1:remind:1e3'],
      ['pipewatch_remove', 'v1:remove:rule:3'],
      ['pipewatch_remove', 'v1:remove:subscription:'],
      ['pipewatch_snooze', 'v1:snooze:transco'],
      ['open_notice', 'v1:ack'],
    ];
    for (const [id, value] of refused)
      expect(decodeAction(id, value, '1.2'), value).toBeUndefined();
  });
});

function actionsOf(message: { blocks: unknown[] }): Json | undefined {
  return (message.blocks as Json[]).find((b) => b.block_id === ACTIONS_BLOCK_ID);
}

describe('alerts with buttons', () => {
  it('stay within Slack limits for every kind of alert', () => {
    for (const kind of SAMPLE_KINDS) {
      const message = renderSlack(sampleAlerts(kind, 'slack:#gas'), SENT_AT, { interactive: true });
      expect(checkMessage(message.text, message.blocks), kind).toBeUndefined();
      expect(actionsOf(message), kind).toBeDefined();
    }
  });

  it('carry no buttons unless asked', () => {
    for (const kind of SAMPLE_KINDS) {
      expect(actionsOf(renderSlack(sampleAlerts(kind, 'slack:#gas'), SENT_AT))).toBeUndefined();
    }
  });

  it('offer Remind me only on a notice whose response is still ahead', () => {
    const elementIds = (m: { blocks: unknown[] }) =>
      ((actionsOf(m)?.elements as Json[]) ?? []).map((e) => e.action_id);
    const due = noticeAlert({ response_at: '2026-11-20T20:00:00Z' });
    expect(elementIds(renderSlack([due], '2026-11-20T19:00:00Z', { interactive: true }))).toEqual([
      'pipewatch_ack',
      'pipewatch_mute',
      'pipewatch_remind',
    ]);
    expect(elementIds(renderSlack([due], '2026-11-20T20:00:01Z', { interactive: true }))).toEqual([
      'pipewatch_ack',
      'pipewatch_mute',
    ]);
    expect(elementIds(renderSlack([noticeAlert()], SENT_AT, { interactive: true }))).toEqual([
      'pipewatch_ack',
      'pipewatch_mute',
    ]);
  });

  it('offer no Mute on a digest of several pipelines', () => {
    const other = capacityAlert();
    other.payload = {
      ...other.payload,
      pipeline: { slug: 'texas-eastern', name: 'Texas Eastern' },
    };
    const message = renderSlack([noticeAlert(), other], SENT_AT, { interactive: true });
    const ids = ((actionsOf(message)?.elements as Json[]) ?? []).map((e) => e.action_id);
    expect(ids).toEqual(['pipewatch_ack']);
    expect(checkMessage(message.text, message.blocks)).toBeUndefined();
  });

  it('leave the Mute menu out when the slug does not fit an option value', () => {
    const block = alertActions({ pipeline: `p${'x'.repeat(140)}` });
    expect(block.elements.map((e) => e.type)).toEqual(['button']);
  });

  it('when acknowledged, lose their buttons for a line saying who and when', () => {
    const message = renderSlack(sampleAlerts('reminder', 'slack:#gas'), SENT_AT, {
      interactive: true,
    });
    const blocks = acknowledgedBlocks(message.blocks, 'U0ALICE', '2026-11-20T18:31:00Z');
    expect(blocks).toHaveLength(message.blocks.length);
    expect(actionsOf({ blocks })).toBeUndefined();
    const index = message.blocks.findIndex((b) => b.block_id === ACTIONS_BLOCK_ID);
    expect(blocks[index]).toEqual({
      type: 'context',
      block_id: 'pipewatch-acknowledged',
      elements: [
        {
          type: 'mrkdwn',
          verbatim: true,
          text: ':white_check_mark: Acknowledged by <@U0ALICE> at <!date^1795199460^{date_short_pretty} {time}|Fri, Nov 20, 2026, 6:31 PM UTC>',
        },
      ],
    });
    expect(checkMessage(message.text, blocks)).toBeUndefined();
    // Acknowledging again keeps one line.
    expect(acknowledgedBlocks(blocks, 'W0BOB', '2026-11-20T18:40:00Z')).toHaveLength(blocks.length);
  });

  it('never write a user who is not a Slack id as a mention', () => {
    const blocks = acknowledgedBlocks([], '<!channel>', '2026-11-20T18:31:00Z');
    expect(JSON.stringify(blocks)).toContain('Acknowledged by &lt;!channel&gt;');
  });
});
