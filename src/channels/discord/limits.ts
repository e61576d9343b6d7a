/**
 * Discord's embed limits, and fitting embeds into them: every field and text within
 * its own limit, and all embeds of one message within 6,000 characters together.
 */
import type { APIEmbed, APIEmbedField } from 'discord-api-types/v10';
import { clip } from '../text.js';

/** An embed as Discord's API takes it, in the API's types (`discord-api-types`, as discord.js). */
export type Embed = APIEmbed;

/** A field of an embed, in the API's types. */
export type EmbedField = APIEmbedField;

/**
 * Discord's limits, in characters. discord.js checks most of them in its embed builder but
 * exports no constant for any, so they are written here, held to its checks by a test.
 */
export const LIMITS = {
  content: 2000,
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  author: 256,
  /** Across every embed of one message. */
  total: 6000,
  embeds: 10,
} as const;

/**
 * What Discord counts towards the 6,000 characters of a message's embeds: the title, the
 * description, each field's name and value, the footer's text and the author's name.
 * discord.js counts so in its builders' `embedLength`, which a test holds this to; the
 * builders are not loaded for it.
 */
export function embedLength(e: Embed): number {
  return (
    (e.title?.length ?? 0) +
    (e.description?.length ?? 0) +
    (e.fields ?? []).reduce((n, f) => n + f.name.length + f.value.length, 0) +
    (e.footer?.text.length ?? 0) +
    (e.author?.name.length ?? 0)
  );
}

const totalLength = (embeds: Embed[]) => embeds.reduce((n, e) => n + embedLength(e), 0);

/**
 * Makes the embeds fit 6,000 characters together: first the longest descriptions are
 * cut to a common length, then, if that is not enough, each embed is held to its share.
 */
export function fitEmbeds(embeds: Embed[]): Embed[] {
  const out = embeds
    .slice(0, LIMITS.embeds)
    .map((e) => ({ ...e, fields: e.fields?.slice(0, LIMITS.fields) }));
  const excess = totalLength(out) - LIMITS.total;
  if (excess <= 0) return out;
  const lengths = out.map((e) => e.description?.length ?? 0);
  const cap = waterLevel(lengths, Math.max(0, lengths.reduce((a, b) => a + b, 0) - excess));
  for (const e of out) {
    if (e.description && e.description.length > cap) e.description = shorten(e.description, cap);
  }
  if (totalLength(out) <= LIMITS.total) return out;
  const share = Math.floor(LIMITS.total / out.length);
  return out.map((e) => shrink(e, share));
}

/** The largest cap such that the lengths, each cut to it, sum to at most `target`. */
function waterLevel(lengths: number[], target: number): number {
  const sorted = [...lengths].sort((a, b) => a - b);
  let left = target;
  for (let i = 0; i < sorted.length; i++) {
    const k = sorted.length - i;
    if (sorted[i] * k >= left) return Math.floor(left / k);
    left -= sorted[i];
  }
  return Number.POSITIVE_INFINITY;
}

function shorten(text: string, max: number): string | undefined {
  return max >= 16 ? clip(text, max) : undefined;
}

/** One embed held to `budget` characters: description, fields, footer, author, then title. */
function shrink(embed: Embed, budget: number): Embed {
  const e: Embed = { ...embed, fields: embed.fields?.map((f) => ({ ...f })) };
  const over = () => embedLength(e) - budget;
  if (over() > 0 && e.description)
    e.description = shorten(e.description, e.description.length - over());
  for (const f of e.fields ?? []) {
    if (over() > 0) Object.assign(f, { name: clip(f.name, 64), value: clip(f.value, 64) });
  }
  while (over() > 0 && e.fields && e.fields.length > 0) e.fields.pop();
  if (over() > 0) e.footer = undefined;
  if (over() > 0) e.author = undefined;
  if (over() > 0 && e.title) e.title = clip(e.title, Math.max(1, e.title.length - over()));
  return JSON.parse(JSON.stringify(e)) as Embed;
}
