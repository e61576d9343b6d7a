/**
 * Chat replies as Discord messages: plain text escaped and its mentions broken, lists
 * and code laid out in the content and then in embeds within Discord's limits, what does
 * not fit counted, Remove buttons at most five rows of five, private replies ephemeral.
 */
import { describe, expect, it } from 'vitest';
import type { ChatReply, ChatReplyItem } from '../../../src/chat/types.js';
import { replyData } from '../../../src/frontends/discord/reply-messages.js';
import { messageProblems } from '../../fakes/discord-interactions.js';

/** Everything the message shows, as one string. */
const shown = (data: ReturnType<typeof replyData>) =>
  [data.content, ...data.embeds.map((e) => e.description ?? '')].join('\n');

function list(n: number, text: (i: number) => string, removable = false): ChatReply {
  const items: ChatReplyItem[] = Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    text: text(i + 1),
    ...(removable
      ? { remove: { kind: 'remove' as const, what: 'subscription' as const, id: i + 1 } }
      : {}),
  }));
  return { private: true, text: `${n} items`, sections: [{ kind: 'list', title: 'Items', items }] };
}

describe('replyData', () => {
  it('shows plain text as typed: markdown escaped, mentions broken, nobody pinged', () => {
    const text =
      '@everyone see <@123456789012345678> **now** in <#1100000000000000001>\n# not a heading';
    const data = replyData({ private: false, text, sections: [{ kind: 'text', text }] });
    expect(data.content).toContain('@\u200beveryone');
    expect(data.content).toContain('<\u200b@123456789012345678>');
    expect(data.content).toContain('<\u200b#1100000000000000001>');
    expect(data.content).toContain('\\*\\*now\\*\\*');
    expect(data.content).toContain('\\# not a heading');
    expect(data.allowed_mentions).toEqual({ parse: [] });
    expect(data.flags).toBeUndefined();
  });

  it('fences code, with no backtick that could close the fence', () => {
    const data = replyData({
      private: true,
      text: 'usage',
      sections: [{ kind: 'code', text: 'subscribe ```x``` @here\n  indented' }],
    });
    expect(data.content).toBe('```\nsubscribe ˋˋˋxˋˋˋ @\u200bhere\n  indented\n```');
    expect(data.flags).toBe(64);
  });

  it('lays a long list out in the content and embeds, within the limits, counting the rest', () => {
    const reply = list(300, (i) => `subscription ${i} ${'x'.repeat(100)}`);
    const data = replyData(reply);
    expect(messageProblems(data as never)).toEqual([]);
    expect(data.embeds.length).toBeGreaterThan(0);
    const lines = shown(data).split('\n');
    const more = /…and (\d+) more lines not shown/.exec(shown(data));
    expect(more).not.toBeNull();
    const listed = lines.filter((l) => l.startsWith('• #')).length;
    expect(listed + Number(more![1])).toBe(300);
    // In order, none twice, none lost between the parts.
    const ids = lines.filter((l) => l.startsWith('• #')).map((l) => Number(/#(\d+)/.exec(l)![1]));
    expect(ids).toEqual(Array.from({ length: listed }, (_, i) => i + 1));
  });

  it('a short list stays in the content', () => {
    const data = replyData(list(2, (i) => `sub ${i}`));
    expect(data.embeds).toEqual([]);
    expect(data.content).toBe('**Items**\n• #1 sub 1\n• #2 sub 2');
  });

  it('a line too long for the content is clipped, and what follows goes on in an embed', () => {
    const data = replyData(list(2, (i) => (i === 1 ? 'y'.repeat(5000) : 'short')));
    expect(messageProblems(data as never)).toEqual([]);
    expect(data.content).toBe('**Items**');
    expect(data.embeds).toHaveLength(1);
    expect(data.embeds[0]!.description).toMatch(/^• #1 y+…\n• #2 short$/);
  });

  it('gives Remove buttons to the first 25 items, five rows of five, and says how to remove the others', () => {
    const data = replyData(list(30, (i) => `sub ${i}`, true));
    expect(messageProblems(data as never)).toEqual([]);
    expect(data.components).toHaveLength(5);
    expect(data.components.every((row) => row.components.length === 5)).toBe(true);
    expect(data.components[0]!.components[0]).toMatchObject({
      label: 'Remove #1',
      custom_id: 'pipewatch:v1:remove:subscription:1',
    });
    expect(shown(data)).toContain('Buttons remove the first 25 only');
  });

  it('a reply without sections shows its one line', () => {
    const data = replyData({ private: true, text: 'Done _now_', sections: [] });
    expect(data.content).toBe('Done \\_now\\_');
  });
});
