/**
 * What the chat core answers (`ChatReply`), as Block Kit: a message for a command's
 * answer or a button's, and the App Home view. Reply text is plain and may hold what
 * someone typed, so every piece is escaped and neutralised (`escape.ts`): nothing in it
 * mentions, links or formats. Text longer than a section takes several; lists get a
 * section per item that has a Remove button, the others share sections; code is a
 * preformatted block. Whatever does not fit in the blocks a surface allows is counted
 * in a last line instead of being cut off silently.
 */
import type { types } from '@slack/bolt';
import { removeButton } from '../../channels/slack/actions.js';
import { type Block, context, header, LIMITS, section } from '../../channels/slack/blocks.js';
import { clipEscaped, escapeText, neutralise, plainLine } from '../../channels/slack/escape.js';
import { oneLine } from '../../channels/text.js';
import { renderHints } from '../../chat/hints.js';
import type { ChatReply, ChatReplyItem, ChatReplySection } from '../../chat/types.js';

/** A reply as a Slack message: `text` for notifications, `blocks` for display. */
export interface ReplyMessage {
  text: string;
  blocks: Block[];
}

/** Blocks a home view holds. */
export const HOME_BLOCKS = 100;

/** Room kept in a section for the code fences. */
const FENCES = 8;

/** A hint of pipewatch's as inline code; a backtick in it would close the span. */
const hintCode = (hint: string) => `\`${escapeText(hint).replace(/`/g, '\u02cb')}\``;

/** Plain multi-line text as mrkdwn that shows as typed, pipewatch's hints as code. */
function md(text: string): string {
  return renderHints(text, (plain) => neutralise(escapeText(plain)), hintCode);
}

/** One line of plain text as `md`, clipped to `max` characters. */
function mdOneLine(text: string, max: number): string {
  return clipEscaped(md(oneLine(text)), max);
}

/**
 * Lines joined into chunks of at most `max` characters, each line whole unless a single
 * line is longer than `max`, which is then clipped.
 */
function chunks(lines: readonly string[], max: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const raw of lines) {
    const line = clipEscaped(raw, max);
    if (current !== '' && current.length + 1 + line.length > max) {
      out.push(current);
      current = line;
    } else {
      current = current === '' ? line : `${current}\n${line}`;
    }
  }
  if (current !== '') out.push(current);
  return out;
}

/** The label of a list item: `#12 transco type:constraint`. */
function itemText(item: ChatReplyItem): string {
  const id = item.id === undefined ? '' : `#${item.id} `;
  return mdOneLine(`${id}${item.text}`, LIMITS.section - 10);
}

function sectionBlocks(part: ChatReplySection): Block[] {
  switch (part.kind) {
    case 'text':
      return chunks(md(part.text).split('\n'), LIMITS.section).map((t) => section(t));
    case 'code': {
      // A backtick would close the block: its look-alike stays inside.
      const code = escapeText(part.text).replace(/`/g, '\u02cb');
      return chunks(code.split('\n'), LIMITS.section - FENCES).map((t) =>
        section(`\`\`\`\n${t}\n\`\`\``),
      );
    }
    case 'list': {
      const blocks: Block[] = [section(`*${mdOneLine(part.title, 500)}*`)];
      if (part.items.length === 0) {
        blocks.push(context([`_${mdOneLine(part.empty ?? 'None.', 500)}_`]));
        return blocks;
      }
      let plain: string[] = [];
      const flush = () => {
        blocks.push(...chunks(plain, LIMITS.section).map((t) => section(t)));
        plain = [];
      };
      for (const item of part.items) {
        if (!item.remove) {
          plain.push(`• ${itemText(item)}`);
          continue;
        }
        flush();
        blocks.push({ ...section(itemText(item)), accessory: removeButton(item.remove) });
      }
      flush();
      return blocks;
    }
  }
}

/**
 * The reply's blocks, at most `max`: parts that do not fit are left out and counted in a
 * last context line.
 */
function replyBlocks(reply: ChatReply, max: number, lead: Block[] = []): Block[] {
  const parts = reply.sections.map(sectionBlocks);
  if (parts.length === 0) parts.push([section(md(reply.text) || ' ')]);
  const blocks = [...lead];
  let left = 0;
  for (const part of parts) {
    for (const block of part) {
      if (left > 0 || blocks.length >= max - 1) left += 1;
      else blocks.push(block);
    }
  }
  if (left > 0) blocks.push(context([`…and ${left} more not shown.`]));
  return blocks;
}

/** The reply as a message: its one line as the notification text, its parts as blocks. */
export function replyMessage(reply: ChatReply): ReplyMessage {
  return {
    text: clipEscaped(md(reply.text), LIMITS.section) || ' ',
    blocks: replyBlocks(reply, LIMITS.blocks),
  };
}

/** A message saying one thing, only to whoever asked. */
export function privateNote(text: string): ReplyMessage {
  return replyMessage({ private: true, text, sections: [] });
}

/** The App Home tab of a user, from the core's home reply. */
export function homeView(reply: ChatReply): types.HomeView {
  return {
    type: 'home',
    blocks: replyBlocks(reply, HOME_BLOCKS, [header(plainLine('pipewatch', LIMITS.header))]),
  };
}
