/**
 * The PagerDuty channel: each alert's events (`render.ts`) posted to the Events API v2
 * (`POST <PAGERDUTY_API_URL>/v2/enqueue`), paced per integration key. 202 is a delivery;
 * 429 (PagerDuty sends no `Retry-After`) waits at least `RATE_LIMIT_WAIT_MS`, 5xx,
 * network errors and timeouts are retried; 400 is permanent, with PagerDuty's `message`
 * and `errors` as the reason. The integration key is never in a reason or a log line:
 * the target shows as `pagerduty:…a1b2`.
 */
import { Agent, request } from 'undici';
import { pagerDutyLabel, targetId } from '../../domain/targets.js';
import { type Clock, systemClock } from '../../lib/clock.js';
import { DEFAULT_DELIVERY_TIMEOUT_MS, deadlineFor, withDeadline } from '../deadline.js';
import { codeForStatus, retryableStatus, transportFailure } from '../errors.js';
import { type PaceOptions, Pacer } from '../pace.js';
import { oneLine } from '../text.js';
import type { Channel, ChannelDeps, SendContext } from '../types.js';
import { DeliveryError, DeliveryErrorCode } from '../types.js';
import { PAGERDUTY_API_URL, type PagerDutyEvent, renderPagerDutyEvents } from './render.js';

/**
 * PagerDuty takes about 120 events a minute per integration key (its Events API v2
 * rate limits; a 429 past that): 10 at once, then 1.8 a second, never more than 118 in
 * any minute.
 */
export const PAGERDUTY_PACE: PaceOptions = { perSecond: 1.8, burst: 10 };

/** The least a 429 waits: PagerDuty's limit is per minute and it names no wait. */
export const RATE_LIMIT_WAIT_MS = 30_000;

export interface PagerDutyOptions {
  /** `PAGERDUTY_API_URL`: base URL of the Events API; PagerDuty's own when unset. */
  apiUrl?: string | undefined;
  pace?: PaceOptions | undefined;
  /** The clock pacing runs on: real time by default; tests give theirs. */
  paceClock?: Clock | undefined;
  /** Total time of one request when the sender gives none; default 30 s. */
  timeoutMs?: number;
}

/** PagerDuty's reason for a 400: `message: errors`, on one line, bounded. */
function refusal(text: string): string {
  try {
    const body = JSON.parse(text) as { message?: unknown; errors?: unknown };
    const errors = Array.isArray(body.errors) ? body.errors.map(String).join('; ') : '';
    const message = typeof body.message === 'string' ? body.message : '';
    const said = oneLine([message, errors].filter(Boolean).join(': '));
    if (said) return said.slice(0, 300);
  } catch {
    // Not JSON: the status says it.
  }
  return 'invalid event';
}

export function createPagerDutyChannel(
  options: PagerDutyOptions,
  deps: ChannelDeps,
): Channel<'pagerduty'> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
  const url = `${(options.apiUrl ?? PAGERDUTY_API_URL).replace(/\/+$/, '')}/v2/enqueue`;
  const pace = options.pace ?? PAGERDUTY_PACE;
  const clock = options.paceClock ?? systemClock;
  const agent = new Agent({
    connect: { timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const pacer = new Pacer(pace, clock, 'pagerduty');

  async function post(event: PagerDutyEvent, label: string, ctx: SendContext): Promise<string> {
    const deadline = deadlineFor(
      'pagerduty',
      ctx,
      { ms: timeoutMs, clock: deps.deadlineClock },
      label,
    );
    let status: number;
    let text: string;
    try {
      ({ status, text } = await withDeadline(deadline, async (signal) => {
        const response = await request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(event),
          dispatcher: agent,
          signal,
        });
        return { status: response.statusCode, text: (await response.body.text()).slice(0, 4096) };
      }));
    } catch (error) {
      throw transportFailure('pagerduty', error, label);
    }
    if (status === 202 || (status >= 200 && status < 300))
      return `ok HTTP ${status} ${event.event_action} ${event.dedup_key}`;
    if (status === 429)
      throw new DeliveryError(`pagerduty: HTTP 429 rate limited (${label})`, {
        code: DeliveryErrorCode.RateLimited,
        permanent: false,
        retryAfterMs: RATE_LIMIT_WAIT_MS,
      });
    if (status === 400)
      throw new DeliveryError(`pagerduty: HTTP 400 ${refusal(text)} (${label})`, {
        code: DeliveryErrorCode.Rejected,
        permanent: true,
      });
    throw new DeliveryError(`pagerduty: HTTP ${status} (${label})`, {
      code: codeForStatus(status),
      permanent: !retryableStatus(status),
    });
  }

  return {
    kind: 'pagerduty',
    maxDigest: 1,
    async send(target, alerts, ctx) {
      const label = pagerDutyLabel(target.routingKey);
      const done: string[] = [];
      for (const alert of alerts) {
        for (const event of renderPagerDutyEvents(alert, target.routingKey, ctx.now)) {
          const turn = () => post(event, label, ctx);
          done.push(await pacer.run(targetId(target), turn, ctx.signal));
        }
      }
      return { detail: done.length > 0 ? done.join('; ') : 'ok nothing to send' };
    },
    async close() {
      await pacer.close();
      await agent.close();
    },
  };
}
