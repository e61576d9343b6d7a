/**
 * Webhook bodies as a reader checks them: each alert's JSON body (one `POST` each),
 * pretty-printed. Characters a terminal could act on, or that reorder text, are written
 * as JSON escapes (`\u009b`), so the text stays the same JSON.
 */
import type { Alert } from '../types.js';
import { renderWebhook } from './render.js';

/** C1 controls, DEL, bidirectional marks and line separators that JSON leaves raw. */
const RAW = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]/g;

/** What `alerts` post at `now`, each body pretty-printed, separated by a blank line. */
export function previewWebhook(alerts: readonly Alert[], now: string): string {
  return alerts
    .map((a) =>
      JSON.stringify(JSON.parse(renderWebhook(a.payload, now)), null, 2).replace(
        RAW,
        (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
      ),
    )
    .join('\n\n');
}
