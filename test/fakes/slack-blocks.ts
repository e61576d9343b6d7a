/**
 * Block Kit checks as Slack applies them to `chat.postMessage` and `chat.update`: the
 * message needs `text` or `blocks`, text at most 40,000 characters, at most 50 blocks,
 * header text plain and at most 150, section text at most 3000, at most 10 fields of at
 * most 2000, buttons with text at most 75 and an http(s) url at most 3000, static selects
 * of at most 100 options, unique block ids, action ids unique within their block, no empty
 * text. Returns Slack's error code, or `undefined` when Slack would accept.
 */

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A text object's problem, if any. */
function badText(t: unknown, max: number, types = ['plain_text', 'mrkdwn']): boolean {
  if (!isObject(t) || typeof t.type !== 'string' || !types.includes(t.type)) return true;
  return typeof t.text !== 'string' || t.text.length === 0 || t.text.length > max;
}

function badButton(e: Json): boolean {
  if (badText(e.text, 75, ['plain_text'])) return true;
  if (e.url !== undefined) {
    if (typeof e.url !== 'string' || e.url.length > 3000 || !/^https?:\/\//i.test(e.url)) {
      return true;
    }
  }
  return typeof e.action_id === 'string' && e.action_id.length > 255;
}

/** A static select: a placeholder of at most 150, 1 to 100 options of text at most 75 and value at most 150. */
function badSelect(e: Json): boolean {
  if (e.placeholder !== undefined && badText(e.placeholder, 150, ['plain_text'])) return true;
  const options = e.options;
  if (!Array.isArray(options) || options.length === 0 || options.length > 100) return true;
  if (typeof e.action_id === 'string' && e.action_id.length > 255) return true;
  return options.some(
    (o) =>
      !isObject(o) ||
      badText(o.text, 75, ['plain_text']) ||
      typeof o.value !== 'string' ||
      o.value.length > 150,
  );
}

/** An interactive element of an actions block: a button or a static select. */
function badElement(e: unknown): boolean {
  if (!isObject(e)) return true;
  if (e.type === 'button') return badButton(e);
  if (e.type === 'static_select') return badSelect(e);
  return true;
}

function badBlock(b: unknown): boolean {
  if (!isObject(b)) return true;
  if (b.block_id !== undefined && (typeof b.block_id !== 'string' || b.block_id.length > 255)) {
    return true;
  }
  switch (b.type) {
    case 'divider':
      return false;
    case 'header':
      return badText(b.text, 150, ['plain_text']);
    case 'section': {
      if (b.text === undefined && b.fields === undefined) return true;
      if (b.text !== undefined && badText(b.text, 3000)) return true;
      if (b.fields !== undefined) {
        if (!Array.isArray(b.fields) || b.fields.length === 0 || b.fields.length > 10) return true;
        if (b.fields.some((f) => badText(f, 2000))) return true;
      }
      if (b.accessory !== undefined)
        return !isObject(b.accessory) || b.accessory.type !== 'button' || badButton(b.accessory);
      return false;
    }
    case 'context': {
      const els = b.elements;
      if (!Array.isArray(els) || els.length === 0 || els.length > 10) return true;
      return els.some((e) => badText(e, 3000));
    }
    case 'actions': {
      const els = b.elements;
      if (!Array.isArray(els) || els.length === 0 || els.length > 25) return true;
      if (els.some(badElement)) return true;
      const ids = els.flatMap((e) => (typeof e.action_id === 'string' ? [e.action_id] : []));
      return new Set(ids).size !== ids.length;
    }
    default:
      return true;
  }
}

/** What Slack says about a message's `text` and `blocks` (blocks as sent: JSON text or array). */
export function checkMessage(text: unknown, blocks: unknown): string | undefined {
  let parsed: unknown = blocks;
  if (typeof blocks === 'string') {
    try {
      parsed = JSON.parse(blocks);
    } catch {
      return 'invalid_blocks_format';
    }
  }
  const hasText = typeof text === 'string' && text.length > 0;
  if (parsed === undefined || (Array.isArray(parsed) && parsed.length === 0)) {
    return hasText ? checkText(text) : 'no_text';
  }
  if (!Array.isArray(parsed)) return 'invalid_blocks_format';
  if (parsed.length > 50) return 'invalid_blocks';
  if (parsed.some(badBlock)) return 'invalid_blocks';
  const ids = parsed.flatMap((b) =>
    isObject(b) && typeof b.block_id === 'string' ? [b.block_id] : [],
  );
  if (new Set(ids).size !== ids.length) return 'invalid_blocks';
  return hasText ? checkText(text) : undefined;
}

function checkText(text: unknown): string | undefined {
  return typeof text === 'string' && text.length > 40_000 ? 'msg_too_long' : undefined;
}

/** `blocks` as sent, parsed (an empty list when absent or unreadable). */
export function parseBlocks(blocks: unknown): unknown[] {
  if (Array.isArray(blocks)) return blocks;
  if (typeof blocks !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(blocks);
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}
