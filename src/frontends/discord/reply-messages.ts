/**
 * What the chat core answers (`ChatReply`), as a Discord message: the body of an
 * interaction response or of a follow-up. Reply text is plain and may hold what someone
 * typed, so every piece is escaped for Discord markdown with its mentions broken
 * (`escape.ts`), and `allowed_mentions` pings nobody anyway. Lines go in the content
 * (2,000 characters) and, when they do not fit, in embeds' descriptions, within
 * Discord's limits on each and on all together; what still does not fit is counted in a
 * last line instead of being cut off silently. Items with a Remove action get a button
 * each, at most five rows of five.
 */

import {
  type ActionRow,
  type ButtonComponent,
  COMPONENT,
  removeButton,
} from '../../channels/discord/actions.js';
import {
  cleanText,
  codeLine,
  escapeMarkdown,
  neutraliseMentions,
} from '../../channels/discord/escape.js';
import { type Embed, LIMITS } from '../../channels/discord/limits.js';
import { oneLine } from '../../channels/text.js';
import { renderHints } from '../../chat/hints.js';
import type { ChatReply, ChatReplyItem, ChatReplySection } from '../../chat/types.js';

/**
 * Reply text for Discord: what people wrote escaped and its mentions broken, pipewatch's
 * hints as inline code (inside which a backslash would show, so they are not escaped,
 * and a backtick, which would close the span, becomes a look-alike).
 */
function block(text: string): string {
  return renderHints(
    cleanText(text),
    (plain) => neutraliseMentions(escapeMarkdown(plain)),
    (hint) => `\`${codeLine(hint)}\``,
  );
}

/** `block` on one line: titles, list items. */
const inline = (text: string): string => block(oneLine(text));

/** Discord's flag that shows a message only to whoever it answers. */
export const EPHEMERAL = 1 << 6;

/** Buttons in one row, and rows in one message. */
const ROW_SIZE = 5;
const ROWS = 5;

/** Room kept in each part of a message for the line that counts what was left out. */
const MORE_ROOM = 40;

/** The body of a message answering a command or a click. */
export interface ReplyData {
  content: string;
  embeds: Embed[];
  components: ActionRow[];
  allowed_mentions: { parse: [] };
  /** `EPHEMERAL` for a reply only the caller sees. */
  flags?: number;
}

/** A piece of a message that stays whole: a line, or a fenced stretch of code. */
type Piece = string;

/** Lines of fixed-width text, fenced, in stretches of at most `max` characters. */
function codePieces(text: string, max: number): Piece[] {
  const inner = max - 8;
  const out: Piece[] = [];
  let current: string[] = [];
  let size = 0;
  const flush = () => {
    if (current.length > 0) out.push(`\`\`\`\n${current.join('\n')}\n\`\`\``);
    current = [];
    size = 0;
  };
  for (const raw of text.split('\n')) {
    const line = codeLine(raw).slice(0, inner);
    if (current.length > 0 && size + 1 + line.length > inner) flush();
    current.push(line);
    size += (current.length > 1 ? 1 : 0) + line.length;
  }
  flush();
  return out;
}

function clipLine(line: string, max: number): string {
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

function itemLine(item: ChatReplyItem, max: number): Piece {
  const id = item.id === undefined ? '' : `#${item.id} `;
  return clipLine(`• ${id}${inline(item.text)}`, max);
}

function sectionPieces(part: ChatReplySection, max: number): Piece[] {
  switch (part.kind) {
    case 'text':
      return block(part.text)
        .split('\n')
        .map((line) => clipLine(line, max));
    case 'code':
      return codePieces(part.text, max);
    case 'list': {
      const title = clipLine(`**${inline(part.title)}**`, max);
      if (part.items.length === 0)
        return [title, clipLine(`*${inline(part.empty ?? 'None.')}*`, max)];
      return [title, ...part.items.map((item) => itemLine(item, max))];
    }
  }
}

/** The lines a piece shows: a fenced stretch's without its fences. */
function lineCount(piece: Piece): number {
  const lines = piece.split('\n').length;
  return piece.startsWith('```') ? Math.max(1, lines - 2) : lines;
}

/**
 * The pieces laid out in the content, then in embeds, each part within its own limit
 * and the embeds within their total; the pieces left over are counted in a last line.
 */
function layOut(pieces: Piece[]): { content: string; embeds: Embed[] } {
  const parts: string[] = [];
  let embedTotal = 0;
  let placed = 0;
  const limitOf = (i: number) => (i === 0 ? LIMITS.content : LIMITS.description) - MORE_ROOM;
  const embedRoom = () => LIMITS.total - MORE_ROOM - embedTotal;
  for (const piece of pieces) {
    const last = parts.length - 1;
    if (last >= 0) {
      const current = parts[last];
      const grown = current === '' ? piece : `${current}\n${piece}`;
      const added = grown.length - current.length;
      if (grown.length <= limitOf(last) && (last === 0 || added <= embedRoom())) {
        parts[last] = grown;
        if (last > 0) embedTotal += added;
        placed += 1;
        continue;
      }
    }
    const next = parts.length;
    if (next > LIMITS.embeds || piece.length > limitOf(next)) break;
    if (next > 0 && piece.length > embedRoom()) break;
    parts.push(piece);
    if (next > 0) embedTotal += piece.length;
    placed += 1;
  }
  const left = pieces.slice(placed).reduce((n, piece) => n + lineCount(piece), 0);
  if (left > 0) {
    const more = `*…and ${left} more line${left === 1 ? '' : 's'} not shown.*`;
    parts[parts.length - 1] = `${parts.at(-1) ?? ''}\n${more}`;
  }
  const [content = '', ...descriptions] = parts;
  return { content, embeds: descriptions.map((description) => ({ description })) };
}

/** Remove buttons for the items that have one, each once, at most five rows of five. */
function removeRows(reply: ChatReply): { rows: ActionRow[]; left: number } {
  const buttons: ButtonComponent[] = [];
  const seen = new Set<string>();
  let left = 0;
  for (const part of reply.sections) {
    if (part.kind !== 'list') continue;
    for (const item of part.items) {
      const action = item.remove;
      if (action?.kind !== 'remove') continue;
      const label = `Remove ${action.what === 'silence' ? 'silence ' : ''}#${action.id}`;
      const button = removeButton(action, label);
      if (seen.has(button.custom_id)) continue;
      seen.add(button.custom_id);
      if (buttons.length < ROW_SIZE * ROWS) buttons.push(button);
      else left += 1;
    }
  }
  const rows: ActionRow[] = [];
  for (let i = 0; i < buttons.length; i += ROW_SIZE) {
    rows.push({ type: COMPONENT.row, components: buttons.slice(i, i + ROW_SIZE) });
  }
  return { rows, left };
}

/** The reply as a message: its sections (or else its one line), its Remove buttons, private or not. */
export function replyData(reply: ChatReply): ReplyData {
  const max = LIMITS.content - MORE_ROOM;
  const pieces = reply.sections.flatMap((part) => sectionPieces(part, max));
  const { rows, left } = removeRows(reply);
  if (left > 0) {
    pieces.push(
      `*Buttons remove the first ${ROW_SIZE * ROWS} only; the others go with /pipewatch unsubscribe ID or unmute ID.*`,
    );
  }
  const fallback = block(reply.text) || 'Done.';
  const { content, embeds } = layOut(pieces.length > 0 ? pieces : [clipLine(fallback, max)]);
  return {
    content: content.trim() === '' && embeds.length === 0 ? clipLine(fallback, max) : content,
    embeds,
    components: rows,
    allowed_mentions: { parse: [] },
    ...(reply.private ? { flags: EPHEMERAL } : {}),
  };
}

/** A message saying one thing, only to whoever asked. */
export function privateNote(text: string): ReplyData {
  return replyData({ private: true, text, sections: [] });
}

/** A message of Discord markdown pipewatch wrote itself (a mention, a time), only to whoever asked. */
export function privateMarkdown(content: string): ReplyData {
  return { content, embeds: [], components: [], allowed_mentions: { parse: [] }, flags: EPHEMERAL };
}
