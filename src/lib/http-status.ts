/**
 * What an HTTP status means for whoever sent the request: done, worth sending again, or
 * not worth sending again. Every HTTP caller of pipewatch (the upstream API, webhooks,
 * Discord, Slack's HTTP layer) asks this one function, so they cannot drift apart.
 *
 * - 2xx: done.
 * - Every 5xx (and anything above): the server failed, and may not next time. 501 and
 *   505 are retried too rather than listed apart: what retries in vain still ends, a
 *   delivery at its maximum age, an upstream request when its retry policy is spent.
 * - The client errors a server uses to say "not now": 408 Request Timeout, 425 Too Early
 *   and 429 Too Many Requests (`RETRYABLE_CLIENT_ERRORS`). A caller that treats one of
 *   them as final passes its own list (the upstream API retries 429 alone).
 * - Anything else, redirects and informational statuses included, is permanent: the same
 *   request would get the same answer.
 */

/** What a status means for the request that got it. */
export type StatusOutcome = 'ok' | 'retry' | 'permanent';

/** The 4xx statuses that ask to try again later, unless a caller says otherwise. */
export const RETRYABLE_CLIENT_ERRORS: ReadonlySet<number> = new Set([408, 425, 429]);

/**
 * Whether an answer with `status` is a success, worth retrying, or final. `retryable`
 * lists the 4xx statuses this caller retries; every 5xx is retried whatever it says.
 */
export function classifyStatus(
  status: number,
  retryable: ReadonlySet<number> = RETRYABLE_CLIENT_ERRORS,
): StatusOutcome {
  if (status >= 200 && status < 300) return 'ok';
  if (status >= 500 || retryable.has(status)) return 'retry';
  return 'permanent';
}
