/** The email channel: SMTP delivery of rendered alerts, and the pure rendering itself. */

export {
  EMAIL_MAX_DIGEST,
  type EmailMessage,
  type RenderOptions,
  renderEmail,
  SUBJECT_MAX,
  safeUrl,
  sanitizeNoticeHtml,
  senderDomain,
  threadRoot,
} from './render.js';
export {
  createEmailChannel,
  type EmailChannelOptions,
  NO_STARTTLS_REASON,
  pacing,
} from './send.js';
