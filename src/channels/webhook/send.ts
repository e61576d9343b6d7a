/**
 * The webhook channel: one `POST` per alert with the JSON payload, signed when a secret
 * is set, paced per URL and per receiving host (`pacing.ts`). A 2xx is a delivery; 408, 425, 429 and 5xx are worth
 * retrying (honouring `Retry-After`), as are network errors and timeouts; any other
 * status is permanent (the shared classifier of `lib/http-status.ts`). Each request has a total time limit, answer included, from the
 * moment its host's pacing lets it go. Redirects are not followed: the URL in the rule is the receiver.
 */

import { Agent, request } from 'undici';
import { parseRetryAfter } from '../../lib/backoff.js';
import type { Clock } from '../../lib/clock.js';
import { VERSION } from '../../lib/version.js';
import { DEFAULT_DELIVERY_TIMEOUT_MS, deadlineFor, withDeadline } from '../deadline.js';
import { codeForStatus, retryableStatus, transportFailure } from '../errors.js';
import type { Alert, Channel, ChannelDeps, SendContext } from '../types.js';
import { DeliveryError } from '../types.js';
import { DEFAULT_WEBHOOK_PACE, type WebhookPace, WebhookPacer } from './pacing.js';
import { renderWebhookRequest, signRequest } from './render.js';

export interface WebhookOptions {
  /** Key of the `X-Pipewatch-Signature` and `-V1` HMACs; unset: unsigned. */
  secret?: string | undefined;
  /** How requests are spread out, per URL and per host; `DEFAULT_WEBHOOK_PACE` where unset. */
  pace?: Partial<WebhookPace> | undefined;
  /** The clock pacing runs on: real time, the receivers' limits being in real time; tests give theirs. */
  paceClock?: Clock | undefined;
  /**
   * Total time of one request (connect, send and the whole answer) when the sender gives
   * none; default 30 s.
   */
  timeoutMs?: number;
}

/** Where a URL points, without its path, query or credentials (for reasons and logs). */
function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid URL';
  }
}

export function createWebhookChannel(
  options: WebhookOptions,
  deps: ChannelDeps,
): Channel<'webhook'> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
  const pace = { ...DEFAULT_WEBHOOK_PACE, ...options.pace };
  const agent = new Agent({
    connect: { timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connections: pace.concurrent,
  });
  const pacer = new WebhookPacer(pace, options.paceClock);

  async function post(url: string, alert: Alert, ctx: SendContext) {
    const rendered = renderWebhookRequest(alert, {
      sentAt: ctx.now,
      version: VERSION,
      secret: options.secret,
    });
    const { body } = rendered;
    // Signed at the real time, which the receiver's clock checks, whatever `now` says.
    const headers = signRequest(rendered, options.secret, deps.clock.now());
    const where = origin(url);
    // The undici timeouts watch one phase each; a receiver dripping bytes passes them all.
    const deadline = deadlineFor(
      'webhook',
      ctx,
      { ms: timeoutMs, clock: deps.deadlineClock },
      where,
    );
    let answer: { response: Awaited<ReturnType<typeof request>>; text: string };
    try {
      answer = await withDeadline(deadline, async (signal) => {
        const response = await request(url, {
          method: 'POST',
          headers,
          body,
          dispatcher: agent,
          signal,
        });
        return { response, text: (await response.body.text()).slice(0, 200) };
      });
    } catch (error) {
      throw transportFailure('webhook', error, where);
    }
    const { response, text } = answer;
    const status = response.statusCode;
    if (status >= 200 && status < 300) return { detail: `ok HTTP ${status} ${where}` };
    const reason = `webhook: HTTP ${status} (${where})`;
    const code = codeForStatus(status);
    if (retryableStatus(status)) {
      const retryAfterMs = parseRetryAfter(response.headers['retry-after'], deps.clock.now());
      throw new DeliveryError(reason, { code, permanent: false, retryAfterMs });
    }
    deps.logger.debug({ status, where, body: text }, 'webhook refused the alert');
    throw new DeliveryError(reason, { code, permanent: true });
  }

  return {
    kind: 'webhook',
    maxDigest: 1,
    async send(target, alerts, ctx) {
      const host = origin(target.url);
      let last = { detail: '' };
      for (const alert of alerts) {
        last = await pacer.run(target.url, host, () => post(target.url, alert, ctx), ctx.signal);
      }
      return last;
    },
    async close() {
      pacer.close();
      await agent.close();
    },
  };
}
