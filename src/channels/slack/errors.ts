/**
 * Slack Web API failures as `DeliveryError`s: which Slack `error` codes are permanent
 * (the target or the token is wrong, the message is refused) and which are worth
 * retrying (rate limits, Slack's own failures, HTTP 5xx, network errors and timeouts),
 * and the kind (`DeliveryErrorCode`) of each. Slack answers most failures with HTTP 200
 * and `ok: false`, so its own `error` string decides, through the tables below; an HTTP
 * failure goes by the classifier every HTTP caller shares.
 * Reasons name the code and the destination, `slack: channel_not_found (#ops)`, and are
 * built from codes and numbers only, so no token or message text can reach them.
 */
import * as webApi from '@slack/web-api';
import { RETRY_AFTER_CEILING_MS } from '../../lib/backoff.js';
import { redactPatterns } from '../../lib/redact.js';
import { deadlineReason } from '../deadline.js';
import { codeForStatus, retryableStatus } from '../errors.js';
import { oneLine } from '../text.js';
import { DeliveryError, DeliveryErrorCode } from '../types.js';

const C = DeliveryErrorCode;

/**
 * Every Slack `error` pipewatch knows, once: its kind, and whether another attempt can
 * fix it. A code not listed is `UNKNOWN` and retried. `message_not_found` loses a thread
 * for good; `thread_not_found` and `invalid_thread_ts` can pass.
 */
const SLACK_ERRORS: ReadonlyArray<
  readonly [DeliveryErrorCode, 'permanent' | 'temporary', readonly string[]]
> = [
  [C.RateLimited, 'temporary', ['ratelimited', 'rate_limited']],
  [
    C.ServerError,
    'temporary',
    ['internal_error', 'fatal_error', 'service_unavailable', 'team_added_to_org'],
  ],
  [C.Timeout, 'temporary', ['request_timeout']],
  [C.ThreadLost, 'temporary', ['thread_not_found', 'invalid_thread_ts']],
  [C.ThreadLost, 'permanent', ['message_not_found']],
  [
    C.NotFound,
    'permanent',
    [
      'channel_not_found',
      'is_archived',
      'channel_is_archived',
      'users_not_found',
      'user_not_found',
      'user_disabled',
    ],
  ],
  [
    C.Auth,
    'permanent',
    [
      'invalid_auth',
      'not_authed',
      'account_inactive',
      'token_revoked',
      'token_expired',
      'two_factor_setup_required',
      'org_login_required',
    ],
  ],
  [
    C.Forbidden,
    'permanent',
    [
      'not_in_channel',
      'no_permission',
      'missing_scope',
      'not_allowed_token_type',
      'ekm_access_denied',
      'access_denied',
      'restricted_action',
      'restricted_action_read_only_channel',
      'restricted_action_thread_only_channel',
      'restricted_action_non_threadable_channel',
      'team_access_not_granted',
      'enterprise_is_restricted',
      'user_not_visible',
      'cannot_dm_bot',
    ],
  ],
  [C.TooLarge, 'permanent', ['msg_too_long', 'msg_blocks_too_long', 'too_many_attachments']],
  [
    C.Rejected,
    'permanent',
    [
      'invalid_blocks',
      'invalid_blocks_format',
      'invalid_attachments',
      'no_text',
      'invalid_arguments',
      'invalid_arg_name',
      'invalid_array_arg',
      'invalid_charset',
      'invalid_form_data',
      'invalid_post_type',
      'missing_post_type',
      'invalid_json',
      'json_not_object',
      'as_user_not_supported',
      'cant_update_message',
      'edit_window_closed',
      'method_deprecated',
      'deprecated_endpoint',
      'upgrade_required',
      'unknown_method',
    ],
  ],
];

function errorsThat(are: 'permanent' | 'temporary'): ReadonlySet<string> {
  return new Set(SLACK_ERRORS.filter(([, p]) => p === are).flatMap(([, , errors]) => errors));
}

/** Errors that another attempt cannot fix. */
export const PERMANENT_ERRORS = errorsThat('permanent');

/** Errors that can pass; any code not listed counts as one too. */
export const TEMPORARY_ERRORS = errorsThat('temporary');

/** The kind of each Slack `error` pipewatch knows; any other is `UNKNOWN` (and retried). */
export const SLACK_ERROR_CODES: ReadonlyMap<string, DeliveryErrorCode> = new Map(
  SLACK_ERRORS.flatMap(([code, , errors]) => errors.map((e) => [e, code] as const)),
);

/**
 * A Slack error code or a word from a network error, reduced to what a code looks like.
 * Anything shaped like a credential is redacted before the text is cut: the first 60
 * characters of a token are still most of it.
 */
function word(text: unknown, fallback: string): string {
  const s =
    typeof text === 'string'
      ? redactPatterns(text)
          .replace(/[^A-Za-z0-9_.[\]-]/g, '')
          .slice(0, 60)
      : '';
  return s === '' ? fallback : s;
}

/** The destination as it appears in reasons: one line, short. */
export function where(destination: string): string {
  return oneLine(destination).slice(0, 100);
}

/** Slack's `Retry-After` (seconds) in milliseconds, held to a finite bound. */
function seconds(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : Number.parseInt(String(value ?? ''), 10);
  return Number.isFinite(n) && n >= 0 ? Math.min(n * 1000, RETRY_AFTER_CEILING_MS) : undefined;
}

/** What a failed Web API call means for delivery to `destination`. */
export function toDeliveryError(error: unknown, destination: string): DeliveryError {
  if (error instanceof DeliveryError) return error;
  const at = ` (${where(destination)})`;
  if (error instanceof webApi.WebAPIRateLimitedError) {
    return new DeliveryError(`slack: ratelimited${at}`, {
      code: C.RateLimited,
      permanent: false,
      retryAfterMs: seconds(error.retryAfter),
    });
  }
  if (error instanceof webApi.WebAPIPlatformError) {
    const { data } = error;
    const slack = word(data?.error, 'unknown_error');
    const permanent = PERMANENT_ERRORS.has(slack) && !TEMPORARY_ERRORS.has(slack);
    const retryAfterMs = permanent ? undefined : seconds(data?.response_metadata?.retryAfter);
    const code = SLACK_ERROR_CODES.get(slack) ?? C.Unknown;
    return new DeliveryError(`slack: ${slack}${at}`, { code, permanent, retryAfterMs });
  }
  if (error instanceof webApi.WebAPIHTTPError) {
    const retryable = retryableStatus(error.statusCode);
    const retryAfterMs = retryable ? seconds(error.headers?.['retry-after']) : undefined;
    return new DeliveryError(`slack: HTTP ${error.statusCode}${at}`, {
      code: codeForStatus(error.statusCode),
      permanent: !retryable,
      retryAfterMs,
    });
  }
  if (error instanceof webApi.WebAPIRequestError) {
    const { original } = error;
    const timeout = original.name === 'TimeoutError' || original.name === 'AbortError';
    const cause = original.cause;
    const causeCode =
      typeof cause === 'object' && cause !== null && 'code' in cause ? cause.code : undefined;
    const what = timeout ? 'timeout' : `network error ${word(causeCode, 'fetch_failed')}`;
    return new DeliveryError(`slack: ${what}${at}`, {
      code: timeout ? C.Timeout : C.Network,
      permanent: false,
    });
  }
  const e = error instanceof Error ? error : undefined;
  if (e?.name === 'AbortError' || e?.name === 'TimeoutError') {
    return new DeliveryError(`slack: aborted${at}`, { code: C.Aborted, permanent: false });
  }
  // A 429 without a readable Retry-After, or anything unforeseen: retry, and say little.
  const rateLimited = typeof e?.message === 'string' && e.message.startsWith('Retry header');
  return new DeliveryError(`slack: ${rateLimited ? 'ratelimited' : word(e?.name, 'error')}${at}`, {
    code: rateLimited ? C.RateLimited : C.Unknown,
    permanent: false,
  });
}

/**
 * `toDeliveryError`, but a call that ran out of time (`timeoutMs`, whether waiting for the
 * headers or reading the body) says so as the other channels do.
 */
export function failureOf(error: unknown, destination: string, timeoutMs: number): DeliveryError {
  const timedOut =
    (error instanceof Error && error.name === 'TimeoutError') ||
    (error instanceof webApi.WebAPIRequestError && error.original.name === 'TimeoutError');
  if (!timedOut) return toDeliveryError(error, destination);
  return new DeliveryError(`${deadlineReason('slack', timeoutMs)} (${where(destination)})`, {
    code: C.Timeout,
    permanent: false,
  });
}
