/**
 * Ids as people type them on the command line, read by the commands' argument parsers,
 * which run before any action and so load nothing else.
 */
import { InvalidArgumentError } from 'commander';

/** An id as typed: `12`, `#12`, or with its prefix (`sub-12`); undefined when it is none. */
export function parseId(text: string, prefix?: string): number | undefined {
  const t = text.trim().replace(/^#/, '');
  const bare = prefix && t.toLowerCase().startsWith(`${prefix}-`) ? t.slice(prefix.length + 1) : t;
  if (!/^\d{1,15}$/.test(bare)) return undefined;
  const id = Number(bare);
  return id > 0 ? id : undefined;
}

/**
 * A notice as people name it: by the API's id (`8812`, or `#8812` for the id alone) or
 * by the pipeline's own identifier shown in every alert (`26-0524`), of one pipeline with
 * `transco:26-0524`. A number may be either: the store tells which (`notice-ref.ts`).
 */
export interface NoticeRef {
  /** As typed (trimmed), for messages. */
  text: string;
  /** The API id it may be. */
  id?: number;
  /** The pipeline's own identifier it may be; absent for `#8812`. */
  identifier?: string;
  /** `transco:26-0524`: that pipeline's notice only. */
  pipeline?: string;
}

/** Longest name of a notice taken; identifiers are short strings. */
const MAX_NOTICE_REF = 200;

/**
 * A notice named on the command line; undefined when `text` is empty, too long, or
 * holds control characters.
 */
export function parseNoticeRef(text: string): NoticeRef | undefined {
  const t = text.trim();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point
  if (t === '' || t.length > MAX_NOTICE_REF || /[\u0000-\u001f\u007f-\u009f]/.test(t))
    return undefined;
  if (t.startsWith('#')) {
    const id = parseId(t);
    return id === undefined ? undefined : { text: t, id };
  }
  const ref: NoticeRef = { text: t, identifier: t };
  const id = parseId(t);
  if (id !== undefined) ref.id = id;
  const scoped = /^([a-z0-9][a-z0-9_-]*):(.+)$/i.exec(t);
  if (scoped) {
    ref.pipeline = scoped[1].toLowerCase();
    ref.identifier = scoped[2].trim();
  }
  return ref;
}

/**
 * The argument parser of a notice named on the command line (`why`, `rules test
 * --notice`), and what its usage says.
 */
export const NOTICE_ARGUMENT = {
  description:
    "the notice: its API id (8812, or '#8812' for the id alone), or its pipeline's identifier as alerts show it (26-0524, or transco:26-0524)",
  parse(text: string): NoticeRef {
    const ref = parseNoticeRef(text);
    if (!ref)
      throw new InvalidArgumentError(
        "must name a notice: its API id (8812, '#8812') or its pipeline's identifier (26-0524, transco:26-0524)",
      );
    return ref;
  },
};
