/**
 * What changed in a notice, and the notice it supersedes, as the alerts carry them
 * (`notice-changes.ts` writes them): written once, described, and read by the check of
 * what the outbox holds (`payload-schema.ts`), by the payload types (`payload.ts`) and
 * by the webhook contract (`channels/webhook/body-schema.ts`) alike, so none can drift.
 */
import { z } from 'zod';
import { doc, text, utcOrNull } from '../lib/schema-docs.js';

/** One change of a notice as a reader sees it: a value, a time, or the words of its text. */
export const noticeChangeSchema = doc(
  z.discriminatedUnion('kind', [
    doc(
      z.strictObject({
        kind: z.literal('value'),
        field: doc(
          z.enum(['subject', 'type', 'category', 'status', 'identifier']),
          'The notice field.',
        ),
        label: text('How a person names it: `Status`, `Notice ID`.'),
        before: text('On one line, at most 300 characters.'),
        after: text('On one line, at most 300 characters.'),
      }),
      'A value changed: `Status: Initiate → Revised`.',
      'ValueChange',
    ),
    doc(
      z.strictObject({
        kind: z.literal('time'),
        field: doc(
          z.enum(['posted_at', 'effective_at', 'end_at', 'response_at']),
          'The notice field.',
        ),
        label: text('`Posted`, `Effective`, `Ends`, `Response due`.'),
        before: utcOrNull(
          'Null: none, or a placeholder end for "until further notice" (then `open_ended_before`).',
        ),
        after: utcOrNull(
          'Null: none, or a placeholder end for "until further notice" (then `open_ended_after`).',
        ),
        open_ended_before: doc(
          z.literal(true),
          'The end before was "until further notice".',
        ).optional(),
        open_ended_after: doc(z.literal(true), 'The end now is "until further notice".').optional(),
      }),
      'A time moved: `Ends: Sun Nov 22, 9 AM → Mon Nov 23, 9 AM CST`.',
      'TimeChange',
    ),
    doc(
      z.strictObject({
        kind: z.literal('text'),
        field: z.literal('notice'),
        label: text('`Text`.'),
        parts: doc(
          z.array(
            z.strictObject({
              op: doc(
                z.enum(['same', 'added', 'removed']),
                '`same`: unchanged words kept around a change, `…` where more were left out.',
              ),
              text: text('On one line; a space at either end where the text had spacing there.'),
            }),
          ),
          'The word diff in reading order, trimmed to what changed with a few words around it, at most about 600 characters. Empty when the texts were too different to compare word by word.',
        ),
        added: doc(z.int().min(0), 'Words added over the compared text.'),
        removed: doc(z.int().min(0), 'Words removed over the compared text.'),
        complete: doc(
          z.boolean(),
          'False: the text was longer than is compared (10,000 characters), too different, or more changed than `parts` shows.',
        ),
      }),
      "The words of the notice's text added and removed (the HTML and mobile copies are not compared).",
      'TextChange',
    ),
  ]),
  'One change of a notice as a reader sees it.',
  'NoticeChange',
);

/** The stored notice an alerted notice says it supersedes. */
export const supersededNoticeSchema = doc(
  z.strictObject({
    id: doc(z.int(), 'The API id of the superseded notice.'),
    identifier: text("Its pipeline's own number: `26-0412`."),
    subject: z.string(),
    url: text("Its link on the pipeline's site, as the API gave it; may be empty."),
  }),
  'The stored notice this one says it supersedes ("This notice supersedes Notice ID 26-0412.").',
  'SupersededNotice',
);

/** One change of a notice as a reader sees it. */
export type NoticeChange = z.output<typeof noticeChangeSchema>;
/** A value before and after: `Status: Initiate → Revised`. */
export type ValueChange = Extract<NoticeChange, { kind: 'value' }>;
/** A time before and after: `Ends: Sun Nov 22, 9 AM → Mon Nov 23, 9 AM CST`. */
export type TimeChange = Extract<NoticeChange, { kind: 'time' }>;
/** The words of the notice's text added and removed, with a little context. */
export type TextChange = Extract<NoticeChange, { kind: 'text' }>;
/** One run of words of a text diff. */
export type WordPart = TextChange['parts'][number];
/** The stored notice an alerted notice supersedes. */
export type SupersededNotice = z.output<typeof supersededNoticeSchema>;
