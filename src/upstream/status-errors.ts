/**
 * What the upstream API's answer means when it is not a success: the HTTP status first,
 * through the classifier every HTTP caller shares, then the envelope's own `status`.
 * Of the 4xx statuses only the API's 429 is retried at once; 408 and 425 are a rejected
 * request, as they have always been for this client (the feed tries again at its next
 * run), so this caller passes its own list. Pure: the transport reads, this decides.
 */
import { classifyStatus } from '../lib/http-status.js';
import {
  AuthenticationError,
  NotFoundError,
  RateLimitedError,
  type RequestContext,
  RequestRejectedError,
  ServerError,
  type UpstreamError,
} from './errors.js';

/** The 4xx statuses the upstream API is asked again after: its rate limit alone. */
export const UPSTREAM_RETRYABLE: ReadonlySet<number> = new Set([429]);

/** What every error of one answer carries. */
export interface AnswerFacts {
  context: RequestContext;
  status: number;
  /** The messages of the API's envelope, secrets removed. */
  apiMessages: string[];
  retryAfterMs: number | undefined;
}

/** An envelope message that says the credentials are at fault, whatever the status. */
const AUTH_MESSAGE =
  /(user|key|credential|password|token).*(invalid|not valid|does not appear|wrong)|unauthori[sz]ed|forbidden|premium/i;

/** `: what the API said`, or nothing when it said nothing. */
function said(facts: AnswerFacts): string {
  return facts.apiMessages.length > 0 ? `: ${facts.apiMessages.join(' ')}` : '';
}

/** The error an answer with a status that is not 2xx stands for; undefined for a 2xx. */
export function errorForStatus(facts: AnswerFacts): UpstreamError | undefined {
  const { status } = facts;
  const outcome = classifyStatus(status, UPSTREAM_RETRYABLE);
  if (outcome === 'ok') return undefined;
  const text = said(facts);
  if (outcome === 'retry') {
    return status === 429
      ? new RateLimitedError(`rate limited (HTTP 429)${text}`, facts)
      : new ServerError(`server error (HTTP ${status})${text}`, facts);
  }
  if (status === 401 || status === 403) {
    return new AuthenticationError(`authentication failed (HTTP ${status})${text}`, facts);
  }
  if (status === 404) return new NotFoundError(`not found (HTTP 404)${text}`, facts);
  return new RequestRejectedError(`request rejected (HTTP ${status})${text}`, facts);
}

/**
 * The error of a 2xx answer whose envelope's `status` is not `success`: refused
 * credentials when its messages say so, a rejected request otherwise.
 */
export function errorForEnvelope(envelopeStatus: string, facts: AnswerFacts): UpstreamError {
  const Kind = AUTH_MESSAGE.test(facts.apiMessages.join(' '))
    ? AuthenticationError
    : RequestRejectedError;
  return new Kind(`API answered status "${envelopeStatus}"${said(facts)}`, facts);
}
