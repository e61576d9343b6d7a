/**
 * The stored form of a notice's text. The API sends each notice in three forms (`notice`,
 * plain text; `html`; `mobile`, the HTML again in a wrapper) that are near-duplicates of
 * one another; stored side by side they were most of a notice's row, and the history
 * copied them again at each change.
 *
 * They are kept as one BLOB: the three, as a JSON array, compressed together with raw
 * DEFLATE (node:zlib). Compressed together, the repeats cost next to nothing, so the
 * three take about what one compressed form would. Deriving two forms from the third when
 * rendering was the alternative, and was refused: pipewatch shows the pipeline's own
 * words, and no pipeline promises that its HTML is its text marked up, so a derived form
 * could differ from what it sent. Compression gives back every character exactly.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { z } from 'zod';
import type { Notice } from '../upstream/schemas.js';
import { parseStored } from './stored-json.js';

/** The text fields of a notice, which the body holds. */
export const TEXT_FIELDS = [
  'notice',
  'html',
  'mobile',
] as const satisfies readonly (keyof Notice)[];

/** A notice's three texts. */
export type NoticeTexts = Pick<Notice, (typeof TEXT_FIELDS)[number]>;

/** The stored form of a notice's texts. */
export function encodeBody(texts: NoticeTexts): Buffer {
  return deflateRawSync(JSON.stringify([texts.notice, texts.html, texts.mobile]));
}

/** What a body holds: the three texts, in the order `encodeBody` writes them. */
const bodyTexts = z.tuple([z.string(), z.string(), z.string()]);

/**
 * The texts a body holds, exactly as the API sent them; throws `StoredDataError` for a
 * body that does not hold three texts.
 */
export function decodeBody(body: Uint8Array): NoticeTexts {
  const [notice, html, mobile] = parseStored(
    bodyTexts,
    inflateRawSync(body).toString('utf8'),
    'a notice body',
  );
  return { notice, html, mobile };
}
