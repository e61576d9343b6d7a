/**
 * Which Discord message shows which notice, so an update is posted as a reply to the
 * notice's first message and the message that showed its previous version is edited to
 * say it was superseded. The first message of each notice is kept in the database
 * (`Threads`); the latest message of each and the embeds of edited messages are kept in
 * memory, the newest `REMEMBERED` of each.
 */
import { keepNewest } from '../../lib/bounded-map.js';
import type { Alert, ThreadRef, Threads } from '../types.js';
import { type Embed, fitEmbeds, supersededEmbed } from './render.js';

/** Where a notice's message is and what its embeds were, to edit it later. */
export interface Posted {
  channel: string;
  message: string;
  /** The notice's embed in that message. */
  index: number;
  embeds: Embed[];
}

/** One message to edit: its embeds with the superseded notices greyed out. */
export interface Edit {
  channel: string;
  message: string;
  embeds: Embed[];
}

/** Messages and channels remembered, of each kind, before the oldest are forgotten. */
const REMEMBERED = 1000;

/** Adds to a map, forgetting the oldest entries past `REMEMBERED`. */
export function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  keepNewest(map, REMEMBERED);
}

/** A stored thread reference as a `Posted`; one whose embeds do not parse keeps none. */
export function parseRef(ref: ThreadRef | undefined): Posted | undefined {
  if (!ref?.channel || !ref.message) return undefined;
  try {
    const embeds = JSON.parse(ref.embeds ?? '[]') as Embed[];
    return { channel: ref.channel, message: ref.message, index: Number(ref.index ?? 0), embeds };
  } catch {
    return { channel: ref.channel, message: ref.message, index: 0, embeds: [] };
  }
}

/** The thread subject of an alert about a notice. */
export function subjectOf(alert: Alert): string | undefined {
  const { kind, notice } = alert.payload;
  return notice && kind !== 'capacity' ? `notice:${notice.id}` : undefined;
}

/** The messages of notices, for one Discord client. */
export class NoticeMessages {
  /** Thread key → the message showing the notice's latest version. */
  private readonly latest = new Map<string, Posted>();
  /** Message id → its embeds as last edited. */
  private readonly edits = new Map<string, Embed[]>();

  /** The first message of each alert's notice sent to `target`, when there is one. */
  async firstMessages(
    target: string,
    alerts: readonly Alert[],
    threads: Threads,
  ): Promise<(Posted | undefined)[]> {
    const first: (Posted | undefined)[] = [];
    for (const a of alerts) {
      const subject = subjectOf(a);
      first.push(subject ? parseRef(await threads.get(target, subject)) : undefined);
    }
    return first;
  }

  /** The message in `channel` a message for `alerts` replies to: an update's or a deadline's first. */
  replyTo(
    alerts: readonly Alert[],
    first: readonly (Posted | undefined)[],
    channel: string,
  ): Posted | undefined {
    return alerts
      .map((a, i) =>
        a.payload.state === 'updated' || a.payload.kind === 'deadline' ? first[i] : undefined,
      )
      .find((r) => r?.channel === channel);
  }

  /**
   * Records that message `id` in `channel` shows `alerts` (one embed each, in order) and
   * returns the messages that showed the previous versions of the updated notices among
   * them, in the same channel.
   */
  async posted(
    sent: { target: string; channel: string; id: string; embeds: Embed[] },
    alerts: readonly Alert[],
    first: readonly (Posted | undefined)[],
    threads: Threads,
  ): Promise<Posted[]> {
    const { target, channel, id, embeds } = sent;
    const previous: Posted[] = [];
    for (const [index, alert] of alerts.entries()) {
      const subject = subjectOf(alert);
      const { kind, state } = alert.payload;
      if (!subject || kind !== 'notice' || index >= embeds.length) continue;
      const key = `${target}|${subject}`;
      const before = this.latest.get(key) ?? first[index];
      if (state === 'updated' && before?.channel === channel) previous.push(before);
      remember(this.latest, key, { channel, message: id, index, embeds });
      if (!first[index]) {
        const ref = { channel, message: id, index: String(index), embeds: JSON.stringify(embeds) };
        await threads.set(target, subject, ref);
      }
    }
    return previous;
  }

  /**
   * The edits that grey out `previous` messages' superseded notices, one per message,
   * leaving out the message `posted` just now.
   */
  supersede(previous: readonly Posted[], posted: string): Edit[] {
    const byMessage = new Map<string, { channel: string; embeds: Embed[]; indices: number[] }>();
    for (const p of previous) {
      if (p.message === posted) continue;
      const entry = byMessage.get(p.message) ?? {
        channel: p.channel,
        embeds: this.edits.get(p.message) ?? p.embeds,
        indices: [],
      };
      entry.indices.push(p.index);
      byMessage.set(p.message, entry);
    }
    const edits: Edit[] = [];
    for (const [message, { channel, embeds, indices }] of byMessage) {
      if (embeds.length === 0) continue;
      const next = fitEmbeds(embeds.map((e, i) => (indices.includes(i) ? supersededEmbed(e) : e)));
      edits.push({ channel, message, embeds: next });
    }
    return edits;
  }

  /** An edit Discord accepted: later edits of the message start from it. */
  edited(edit: Edit): void {
    remember(this.edits, edit.message, edit.embeds);
  }
}
