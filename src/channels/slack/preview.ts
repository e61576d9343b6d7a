/**
 * A Slack message as plain text, for reading in a terminal where Slack is not at hand:
 * the header, the text of each block with Slack's formatting taken off, fields as
 * `Label: value`, date tokens as their fallback text, links as `label (url)`, buttons as
 * `[Open notice]`. What upstream wrote stays as Slack would show it (escaped markup
 * reads as typed); making it safe for a terminal is the caller's part (`../preview.ts`).
 */

import type { types } from '@slack/bolt';
import type { Alert } from '../types.js';
import type { Block } from './blocks.js';
import { renderSlack, type SlackMessage } from './render.js';

type TextObject = { type: string; text: string };

/** Entities back to characters, `&amp;` last so `&amp;lt;` stays `&lt;`. */
function decodeEntities(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/**
 * `*bold*` and `_italic_` that Slack would format, as their text; `~strike~` (words a
 * notice no longer says) as `[-strike-]`, so the words removed still read as removed.
 */
function unformat(text: string): string {
  let out = text.replace(/(^|[^\p{L}\p{N}])~([^\n]+?)~(?![\p{L}\p{N}])/gmu, '$1[-$2-]');
  for (const mark of ['\\*', '_']) {
    const pair = new RegExp(`(^|[^\\p{L}\\p{N}])${mark}([^\\n]+?)${mark}(?![\\p{L}\\p{N}])`, 'gmu');
    out = out.replace(pair, '$1$2');
  }
  return out.replace(/`([^`\n]+)`/g, '$1');
}

/**
 * mrkdwn as the plain text a reader sees: date tokens as their fallback, links as
 * `label (url)`, code blocks as their lines (unformatted inside, as Slack shows them),
 * formatting marks taken off, entities as characters.
 */
export function mrkdwnToPlain(mrkdwn: string): string {
  const tokens = mrkdwn
    .replace(/<!date\^[^|<>]*\|([^<>]*)>/g, '$1')
    .replace(/<(https?:[^|<>]*)\|([^<>]*)>/g, (_m, url: string, label: string) =>
      label === url ? url : `${label} (${url})`,
    )
    .replace(/<(https?:[^|<>]*)>/g, '$1');
  const parts = tokens.split('```');
  const plain = parts.map((part, i) =>
    i % 2 === 1 ? part.replace(/^\n/, '').replace(/\n$/, '') : unformat(part),
  );
  return decodeEntities(plain.join(''));
}

function textOf(t: TextObject | undefined): string {
  if (!t) return '';
  return t.type === 'mrkdwn' ? mrkdwnToPlain(t.text) : decodeEntities(t.text);
}

/** A button as `[Open notice]`; any other element reads as nothing. */
function button(e: types.SectionBlockAccessory | types.ActionsBlockElement): string {
  return e.type === 'button' ? `[${textOf(e.text)}]` : '';
}

/** A context element's text; an image reads as nothing. */
function contextText(e: types.ContextBlockElement): string {
  return e.type === 'mrkdwn' || e.type === 'plain_text' ? textOf(e) : '';
}

/** One block as the lines a reader sees. */
function blockLines(b: Block): string[] {
  switch (b.type) {
    case 'header':
      return [textOf(b.text)];
    case 'section': {
      const lines: string[] = [];
      if (b.text) lines.push(textOf(b.text));
      for (const f of b.fields ?? []) {
        const [label = '', ...value] = textOf(f).split('\n');
        lines.push(value.length > 0 ? `${label}: ${value.join(' ')}` : label);
      }
      const accessory = b.accessory ? button(b.accessory) : '';
      if (accessory) lines.push(accessory);
      return lines;
    }
    case 'context':
      return [b.elements.map(contextText).join(' · ')];
    case 'actions':
      return [b.elements.map(button).join(' ')];
    case 'divider':
      return ['───'];
    default:
      return [];
  }
}

/** A rendered Slack message as plain text, its blocks apart as Slack spaces them. */
export function slackMessageText(message: SlackMessage): string {
  if (message.blocks.length === 0) return mrkdwnToPlain(message.text);
  return message.blocks
    .map((b) => blockLines(b).join('\n'))
    .filter((text) => text !== '')
    .join('\n\n');
}

/** How `alerts` look in Slack at `now`, as plain text. */
export function previewSlack(alerts: readonly Alert[], now: string): string {
  return slackMessageText(renderSlack(alerts, now));
}
