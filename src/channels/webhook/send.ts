/**
 * The webhook channel: one `POST` per alert with the JSON payload, signed when a secret
 * is set, paced per receiving host. A 2xx is a delivery; 408, 425, 429 and 5xx are worth
 * retrying (honouring `Retry-After`), as are network errors and timeouts; any other
 * status is permanent. Redirects are not followed: the URL in the rule is the receiver.
 */
import Bottleneck from 'bottleneck';
import { Agent, request } from 'undici';
import { parseRetryAfter } from '../../lib/backoff.js';
import { VERSION } from '../../lib/version.js';
import type { UtcIso } from '../../upstream/schemas.js';
import { DEFAULT_DELIVERY_TIMEOUT_MS, deadlineReason } from '../deadline.js';
import type { Alert, Channel, ChannelDeps } from '../types.js';
import { DeliveryError } from '../types.js';
import { deliveryId, renderWebhook, signature } from './render.js';

export interface WebhookOptions {
  /** Key of the `X-Pipewatch-Signature` HMAC; unset: unsigned. */
  secret?: string | undefined;
  /** Requests per second per receiving host. */
  perSecond?: number;
  /** Total time of one request: connect, send, and the whole answer, body included. */
  timeoutMs?: number;
}

const RETRYABLE = new Set([408, 425, 429]);

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
  const agent = new Agent({
    connect: { timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connections: 4,
  });
  const perSecond = options.perSecond ?? 5;
  const hosts = new Bottleneck.Group({
    maxConcurrent: 2,
    minTime: Math.ceil(1000 / perSecond),
  });

  async function post(url: string, alert: Alert, now: UtcIso, signal?: AbortSignal) {
    const body = renderWebhook(alert.payload, now);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': `pipewatch/${VERSION}`,
      'x-pipewatch-delivery': deliveryId(alert.key),
    };
    if (options.secret) headers['x-pipewatch-signature'] = signature(body, options.secret);
    const where = origin(url);
    // The undici timeouts watch one phase each; a receiver dripping bytes passes them all.
    const limit = AbortSignal.timeout(timeoutMs);
    let response: Awaited<ReturnType<typeof request>>;
    let text: string;
    try {
      response = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: agent,
        signal: signal ? AbortSignal.any([signal, limit]) : limit,
      });
      text = (await response.body.text()).slice(0, 200);
    } catch (error) {
      const code = (error as { code?: string }).code ?? (error as Error).name;
      const what = limit.aborted ? deadlineReason('webhook', timeoutMs) : `webhook: ${code}`;
      throw new DeliveryError(`${what} (${where})`, { permanent: false, cause: error });
    }
    const status = response.statusCode;
    if (status >= 200 && status < 300) return { detail: `ok HTTP ${status} ${where}` };
    const reason = `webhook: HTTP ${status} (${where})`;
    if (status >= 500 || RETRYABLE.has(status)) {
      const retryAfterMs = parseRetryAfter(response.headers['retry-after'], deps.clock.now());
      throw new DeliveryError(reason, {
        permanent: false,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    }
    deps.logger.debug({ status, where, body: text }, 'webhook refused the alert');
    throw new DeliveryError(reason, { permanent: true });
  }

  return {
    kind: 'webhook',
    maxDigest: 1,
    async send(target, alerts, ctx) {
      const limiter = hosts.key(origin(target.url));
      let last = { detail: '' };
      for (const alert of alerts) {
        last = await limiter.schedule(() => post(target.url, alert, ctx.now, ctx.signal));
      }
      return last;
    },
    async close() {
      await Promise.all(hosts.keys().map((key) => hosts.deleteKey(key)));
      await agent.close();
    },
  };
}
