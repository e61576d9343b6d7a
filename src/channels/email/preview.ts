/**
 * An email as plain text, for reading in a terminal where no SMTP server is set: the
 * `Subject:` line, a blank line, then the plain-text part, as a mail client shows it.
 */
import type { Alert } from '../types.js';
import { renderEmail } from './render.js';

/** The sender the preview's ids are made for; only the subject and text are shown. */
const PREVIEW_FROM = 'pipewatch <alerts@localhost>';

/** How `alerts` look by email at `now`, as plain text. */
export function previewEmail(alerts: readonly Alert[], now: string): string {
  const message = renderEmail(alerts, { from: PREVIEW_FROM, now });
  return `Subject: ${message.subject}\n\n${message.text}`;
}
