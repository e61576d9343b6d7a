/**
 * The Teams channel: one `POST` of an Adaptive Card per alert to a Teams workflow's URL
 * (the "Post to a channel when a webhook request is received" template), which answers
 * 202 Accepted and posts the card in its own time. Paced per workflow (`TEAMS_PACE`); a
 * 429 holds the workflow for its `Retry-After` and is retried, as are 408, 425, 5xx,
 * network errors and timeouts (`lib/http-status.ts`); any other status is permanent,
 * with the reason the platform gave (`{"error":{"code","message"}}`). A card over the
 * size limit even after fitting is refused here, not sent. The URL carries the
 * workflow's signature (`sig=`): reasons and logs name its scheme and host only.
 */
import { Agent, request } from 'undici';
import type { AlertPayload } from '../../alerts/payload.js';
import { targetId, targetLabel } from '../../domain/targets.js';
import { parseRetryAfter } from '../../lib/backoff.js';
import { redactPatterns } from '../../lib/redact.js';
import { DEFAULT_DELIVERY_TIMEOUT_MS, deadlineFor, withDeadline } from '../deadline.js';
import { codeForStatus, retryableStatus, transportFailure } from '../errors.js';
import { type PaceOptions, Pacer } from '../pace.js';
import { clip, oneLine } from '../text.js';
import type { Channel, ChannelDeps, SendContext, TargetOf } from '../types.js';
import { DeliveryError, DeliveryErrorCode } from '../types.js';
import { messageBytes, TEAMS_MAX_BYTES } from './limits.js';
import { renderTeams } from './render.js';

/**
 * One card every two seconds per workflow, two at once after a quiet spell. A workflow
 * posts with its owner's Microsoft Teams connection, which Microsoft's connector
 * reference limits to 100 calls a minute (throttling limits of the Teams connector);
 * 30 a minute leaves room for three busy workflows of one owner, and stays far under
 * the four a second Teams allowed an incoming webhook.
 */
export const TEAMS_PACE: PaceOptions = { perSecond: 0.5, burst: 2 };

/** How the Teams channel is built; nothing is required, the URL being the credential. */
export interface TeamsOptions {
  /** How cards are spread out per workflow; `TEAMS_PACE` where unset. */
  pace?: PaceOptions | undefined;
  /** Total time of one request, answer included, when the sender gives none; default 30 s. */
  timeoutMs?: number | undefined;
}

/**
 * What the platform said, from a Power Automate or Logic Apps error body
 * (`{"error":{"code":"…","message":"…"}}`), else the start of the text: one line,
 * redacted, at most 300 characters.
 */
export function platformReason(body: string): string {
  let said = body;
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown } };
    const { code, message } = parsed.error ?? {};
    if (typeof code === 'string' || typeof message === 'string')
      said = [code, message].filter((v) => typeof v === 'string').join(': ');
  } catch {
    // Not JSON: the text as it came.
  }
  return clip(oneLine(redactPatterns(said)), 300);
}

/**
 * The channel `delivery/channels.ts` loads for `teams:` targets: always there, since a
 * workflow's URL needs no other setting.
 */
export function createTeamsChannel(options: TeamsOptions, deps: ChannelDeps): Channel<'teams'> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
  const agent = new Agent({
    connect: { timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const pacer = new Pacer(options.pace ?? TEAMS_PACE, deps.clock, 'teams');

  async function post(target: TargetOf<'teams'>, payload: AlertPayload, ctx: SendContext) {
    const label = targetLabel(target);
    const card = renderTeams(payload, ctx.now);
    const bytes = messageBytes(card);
    if (bytes > TEAMS_MAX_BYTES)
      throw new DeliveryError(`teams: the card is ${bytes} bytes, over Teams' ${TEAMS_MAX_BYTES}`, {
        code: DeliveryErrorCode.TooLarge,
        permanent: true,
      });
    const deadline = deadlineFor('teams', ctx, { ms: timeoutMs, clock: deps.deadlineClock }, label);
    let answer: { status: number; retryAfter: string | string[] | undefined; text: string };
    try {
      answer = await withDeadline(deadline, async (signal) => {
        const response = await request(target.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(card),
          dispatcher: agent,
          signal,
        });
        const text = (await response.body.text()).slice(0, 2000);
        return { status: response.statusCode, retryAfter: response.headers['retry-after'], text };
      });
    } catch (error) {
      throw transportFailure('teams', error, label);
    }
    const { status, text } = answer;
    if (status >= 200 && status < 300) return { detail: `ok HTTP ${status} ${label}` };
    const said = platformReason(text);
    const reason = `teams: HTTP ${status}${said ? ` ${said}` : ''} (${label})`;
    const code = codeForStatus(status);
    if (retryableStatus(status)) {
      const retryAfterMs = parseRetryAfter(answer.retryAfter, deps.clock.now());
      if (status === 429 && retryAfterMs !== undefined) pacer.pause(targetId(target), retryAfterMs);
      throw new DeliveryError(reason, { code, permanent: false, retryAfterMs });
    }
    throw new DeliveryError(reason, { code, permanent: true });
  }

  return {
    kind: 'teams',
    maxDigest: 1,
    async send(target, alerts, ctx) {
      let last = { detail: '' };
      for (const alert of alerts) {
        last = await pacer.run(
          targetId(target),
          () => post(target, alert.payload, ctx),
          ctx.signal,
        );
      }
      return last;
    },
    async close() {
      await pacer.close();
      await agent.close();
    },
  };
}
