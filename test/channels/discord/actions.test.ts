/**
 * The custom ids of pipewatch's Discord components read back into the action they were
 * written for, and nothing else reads as an action: a click is never guessed at.
 */
import { describe, expect, it } from 'vitest';
import {
  acknowledgedUpdate,
  alertComponents,
  CUSTOM_ID_PREFIX,
  decodeComponent,
  encodeCustomId,
} from '../../../src/channels/discord/actions.js';
import type { ChatAction } from '../../../src/chat/types.js';

const MESSAGE = '1300000000000000042';

describe('custom ids', () => {
  it.each<ChatAction>([
    { kind: 'remind', noticeId: 4412 },
    { kind: 'remove', what: 'subscription', id: 12 },
    { kind: 'remove', what: 'silence', id: 3 },
  ])('%j reads back as itself', (action) => {
    expect(decodeComponent(encodeCustomId(action), undefined, MESSAGE)).toEqual(action);
  });

  it('acknowledge takes the message it was clicked on, and needs one', () => {
    const id = encodeCustomId({ kind: 'ack', message: '' });
    expect(decodeComponent(id, undefined, MESSAGE)).toEqual({ kind: 'ack', message: MESSAGE });
    expect(decodeComponent(id, undefined, undefined)).toBeUndefined();
    expect(decodeComponent(id, undefined, 'not-a-snowflake')).toBeUndefined();
  });

  it('the Mute menu takes its hours from the option chosen, within 30 days', () => {
    const id = encodeCustomId({ kind: 'mute', pipeline: 'transco', forMs: 0 });
    expect(decodeComponent(id, ['4'], MESSAGE)).toEqual({
      kind: 'mute',
      pipeline: 'transco',
      forMs: 4 * 3_600_000,
    });
    for (const values of [[], ['0'], ['721'], ['4', '24'], ['4h'], undefined, 'x'])
      expect(decodeComponent(id, values, MESSAGE), JSON.stringify(values)).toBeUndefined();
  });

  it.each([
    'pipewatch:v1:ack:extra',
    'pipewatch:v2:ack',
    'pipewatch:v1:remind:0',
    'pipewatch:v1:remind:12a',
    'pipewatch:v1:remove:rule:4',
    'pipewatch:v1:mute:../etc',
    'pipewatch:v1:explode',
    'something-else',
    `${CUSTOM_ID_PREFIX}remind:${'1'.repeat(120)}`,
  ])('%s is no action', (id) => {
    expect(decodeComponent(id, ['1'], MESSAGE)).toBeUndefined();
  });

  it('non-strings are no action', () => {
    expect(decodeComponent(42, undefined, MESSAGE)).toBeUndefined();
    expect(decodeComponent(undefined, undefined, MESSAGE)).toBeUndefined();
  });
});

describe('alert components', () => {
  it('Acknowledge and Remind me on one row, the Mute menu alone on the next; every custom id fits Discord', () => {
    const rows = alertComponents({ pipeline: 'transco', remindNotice: 4412 });
    expect(rows.map((r) => r.components.map((c) => c.custom_id))).toEqual([
      ['pipewatch:v1:ack', 'pipewatch:v1:remind:4412'],
      ['pipewatch:v1:mute:transco'],
    ]);
    for (const c of rows.flatMap((r) => r.components)) expect(c.custom_id.length).toBeLessThan(100);
  });

  it('no Remind me without a notice, no Mute menu without a pipeline or for a slug that is not one', () => {
    expect(alertComponents({}).flatMap((r) => r.components.map((c) => c.custom_id))).toEqual([
      'pipewatch:v1:ack',
    ]);
    expect(alertComponents({ pipeline: 'a b' })).toHaveLength(1);
  });

  it("an acknowledged message keeps its embeds and others' components, loses pipewatch's, and pings nobody", () => {
    const theirs = {
      type: 1,
      components: [{ type: 2, style: 5, label: 'Docs', url: 'https://x' }],
    };
    const message = {
      embeds: [{ title: 'Constraint' }],
      components: [...alertComponents({ pipeline: 'transco' }), theirs],
    };
    const update = acknowledgedUpdate(message, '1200000000000000007', '2026-11-20T15:00:00Z');
    expect(update).toEqual({
      content: '✅ Acknowledged by <@1200000000000000007> <t:1795186800:f>',
      embeds: [{ title: 'Constraint' }],
      components: [theirs],
      allowed_mentions: { parse: [] },
    });
    expect(acknowledgedUpdate({}, '@everyone', '2026-11-20T15:00:00Z').content).toBe(
      '✅ Acknowledged by everyone <t:1795186800:f>',
    );
  });
});
