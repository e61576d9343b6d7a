/**
 * Follow-up messages of an interaction, posted through its webhook
 * (`POST /webhooks/{application_id}/{interaction_token}`), which Discord opens once the
 * interaction is answered and keeps for 15 minutes. The interaction token is the only
 * credential: the request carries no bot token (`auth: false`), and the token is kept
 * out of every reason logged. Each post has `timeoutMs` on pipewatch's clock, its body
 * included; closing the app calls off the posts under way.
 */
// Every module of pipewatch takes REST and its errors from `@discordjs/rest` itself, never
// through discord.js: discord.js loads that package's CommonJS build, an import of it here
// its ESM build, and the errors of one are not `instanceof` the classes of the other,
// which `errors.ts` tells failures apart by.
import { REST } from '@discordjs/rest';
import { Routes } from 'discord-api-types/v10';
import { toDeliveryError } from '../../channels/discord/errors.js';
import type { Clock } from '../../lib/clock.js';
import { redactor } from '../../lib/redact.js';
import type { ReplyData } from './reply-messages.js';

/** Time allowed to one follow-up post. */
export const DEFAULT_FOLLOW_UP_TIMEOUT_MS = 10_000;

/** A rate limit longer than this fails the post instead of being waited out. */
const MAX_RATE_LIMIT_WAIT_MS = 5_000;

const SNOWFLAKE = /^\d{1,20}$/;
/** What an interaction token is made of; anything else never goes into a URL. */
const TOKEN = /^[A-Za-z0-9_.-]{1,1000}$/;

/** Where Discord's API is, and the clock and time limit each post runs on. */
export interface FollowUpOptions {
  /** Base URL without the version (`https://discord.com/api`); a trailing `/v10` is dropped. */
  apiUrl?: string | undefined;
  clock: Clock;
  timeoutMs?: number | undefined;
}

/** Posts follow-ups to interactions' webhooks. */
export class FollowUps {
  private readonly rest: REST;
  private readonly timeoutMs: number;
  private readonly closing = new AbortController();

  constructor(private readonly options: FollowUpOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_FOLLOW_UP_TIMEOUT_MS;
    const api = (options.apiUrl ?? 'https://discord.com/api')
      .replace(/\/+$/, '')
      .replace(/\/v\d+$/, '');
    this.rest = new REST({
      api,
      version: '10',
      retries: 0,
      timeout: this.timeoutMs,
      rejectOnRateLimit: (limit) =>
        Math.max(limit.retryAfter, limit.timeToReset) > MAX_RATE_LIMIT_WAIT_MS,
    });
  }

  /**
   * Posts `data` as a follow-up of the interaction `token` of `applicationId`; rejects
   * with a `DeliveryError` whose reason says why in one line, the token left out.
   */
  async post(applicationId: string, token: string, data: ReplyData): Promise<void> {
    if (!SNOWFLAKE.test(applicationId) || !TOKEN.test(token)) {
      throw new Error('the interaction has no application id or token to follow up with');
    }
    const where = `follow-up of interaction webhook ${applicationId}`;
    const scrub = redactor([token]);
    const deadline = new AbortController();
    const done = new AbortController();
    this.options.clock.sleep(this.timeoutMs, done.signal).then(
      () => deadline.abort(),
      () => undefined,
    );
    const signal = AbortSignal.any([deadline.signal, this.closing.signal]);
    try {
      await this.rest.post(Routes.webhook(applicationId, token), {
        body: data,
        auth: false,
        signal,
      });
    } catch (error) {
      const aborted = this.closing.signal.aborted;
      throw toDeliveryError(error, { where, timeoutMs: this.timeoutMs, scrub, aborted });
    } finally {
      done.abort();
    }
  }

  /** Calls off the posts under way and lets go of the client's timers. */
  close(): void {
    this.closing.abort();
    this.rest.clearHashSweeper();
    this.rest.clearHandlerSweeper();
  }
}
