/**
 * The branches of the webhook body schema (`body-schema.ts`) for outages, sent to
 * `PIPEWATCH_OPS_TARGET`: a feed gone stale and its recovery, a delivery target gone
 * dead and its recovery (`alerts/outages.ts`).
 */
import { z } from 'zod';
import { doc, pipeline, sentAt, text, utc, utcOrNull, version } from './schema-parts.js';

const rule = text('`pipewatch-operations`: operational alerts come from no rule file.');
const feed = text(
  'The feed: `notices`, `capacity`, `pipelines`, `catalog`, `alerts`, `retention`.',
);
const target = text(
  'The target as it may be shown: `slack:#gas`, a webhook as `webhook:https://host/…`.',
);

export const feedStale = doc(
  z.strictObject({
    version,
    kind: z.literal('operations'),
    state: z.literal('feed-stale'),
    rule,
    pipeline,
    operations: z.strictObject({
      event: z.literal('feed-stale'),
      summary: text('What pipewatch cannot see, for how long, and what to check.'),
      feed,
      interval_seconds: doc(z.int().positive(), "The feed's interval."),
      last_success_at: utcOrNull(
        'Its last success; `null`: none known (the time then counts from the start).',
      ),
      last_error_code: doc(z.string().nullable(), 'The code of its latest error: `UPSTREAM_AUTH`.'),
      last_error: doc(z.string().nullable(), 'Its latest error, secrets removed.'),
      seen_at: utc('When pipewatch found it stale.'),
    }),
    sent_at: sentAt,
  }),
  'A feed has gone more than three of its intervals without a success: pipewatch cannot see that part of the API (credentials refused, the API down, its answers no longer read). Sent once per outage; `feed-recovered` follows at its first success.',
  'FeedStale',
);

export const feedRecovered = doc(
  z.strictObject({
    version,
    kind: z.literal('operations'),
    state: z.literal('feed-recovered'),
    rule,
    pipeline,
    operations: z.strictObject({
      event: z.literal('feed-recovered'),
      summary: text('Which feed works again, after how long.'),
      feed,
      last_success_at: utcOrNull('Its last success before the outage; `null`: none known.'),
      stale_at: utc('When pipewatch found it stale.'),
      seen_at: utc('The success that ended the outage.'),
    }),
    sent_at: sentAt,
  }),
  'A stale feed succeeded again.',
  'FeedRecovered',
);

export const targetDead = doc(
  z.strictObject({
    version,
    kind: z.literal('operations'),
    state: z.literal('target-dead'),
    rule,
    pipeline,
    operations: z.strictObject({
      event: z.literal('target-dead'),
      summary: text('Which target alerts do not reach, and why.'),
      target,
      how: doc(
        z.enum(['dead', 'stuck']),
        '`dead`: an alert to it failed for good; `stuck`: one has waited longer than `PIPEWATCH_DELIVERY_STUCK_AFTER`.',
      ),
      reason: text('Why its delivery failed, secrets removed.'),
      code: doc(
        z.string().nullable(),
        'The kind of failure: `NOT_FOUND`, `AUTH`, `TIMEOUT`, …; `null`: unknown.',
      ),
      seen_at: utc('When pipewatch found it.'),
    }),
    sent_at: sentAt,
  }),
  'Alerts to a target are not getting through. Sent once per outage (never to the operations target about itself); `target-recovered` follows at its next delivery.',
  'TargetDead',
);

export const targetRecovered = doc(
  z.strictObject({
    version,
    kind: z.literal('operations'),
    state: z.literal('target-recovered'),
    rule,
    pipeline,
    operations: z.strictObject({
      event: z.literal('target-recovered'),
      summary: text('Which target takes alerts again, after how long.'),
      target,
      dead_at: utc('When pipewatch found it dead or stuck.'),
      seen_at: utc('The delivery that ended the outage.'),
    }),
    sent_at: sentAt,
  }),
  'A target that was dead or stuck took a delivery again.',
  'TargetRecovered',
);
