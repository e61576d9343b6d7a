/** What the upstream API's statuses and envelopes mean: which error, and whether it retries. */
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  NotFoundError,
  RateLimitedError,
  RequestRejectedError,
  ServerError,
} from '../../src/upstream/errors.js';
import { errorForEnvelope, errorForStatus } from '../../src/upstream/status-errors.js';

const context = { method: 'GET', endpoint: '/ip/notices', host: 'api.example.com' };
const facts = (status: number, apiMessages: string[] = [], retryAfterMs?: number) => ({
  context,
  status,
  apiMessages,
  retryAfterMs,
});

describe('errorForStatus', () => {
  it.each([
    [401, AuthenticationError, 'UPSTREAM_AUTH', false, 'authentication failed (HTTP 401)'],
    [403, AuthenticationError, 'UPSTREAM_AUTH', false, 'authentication failed (HTTP 403)'],
    [404, NotFoundError, 'UPSTREAM_NOT_FOUND', false, 'not found (HTTP 404)'],
    [400, RequestRejectedError, 'UPSTREAM_REJECTED', false, 'request rejected (HTTP 400)'],
    [301, RequestRejectedError, 'UPSTREAM_REJECTED', false, 'request rejected (HTTP 301)'],
    [408, RequestRejectedError, 'UPSTREAM_REJECTED', false, 'request rejected (HTTP 408)'],
    [425, RequestRejectedError, 'UPSTREAM_REJECTED', false, 'request rejected (HTTP 425)'],
    [429, RateLimitedError, 'UPSTREAM_RATE_LIMITED', true, 'rate limited (HTTP 429)'],
    [500, ServerError, 'UPSTREAM_SERVER', true, 'server error (HTTP 500)'],
    [501, ServerError, 'UPSTREAM_SERVER', true, 'server error (HTTP 501)'],
    [503, ServerError, 'UPSTREAM_SERVER', true, 'server error (HTTP 503)'],
  ])('HTTP %i: %o', (status, Kind, code, retryable, reason) => {
    const error = errorForStatus(facts(status));
    expect(error).toBeInstanceOf(Kind);
    expect(error).toMatchObject({ code, retryable, reason, status, context });
  });

  it.each([200, 204, 299])('HTTP %i is no error', (status) => {
    expect(errorForStatus(facts(status))).toBeUndefined();
  });

  it("carries the API's messages and its Retry-After", () => {
    const error = errorForStatus(facts(429, ['slow down', 'please'], 30_000));
    expect(error).toMatchObject({
      reason: 'rate limited (HTTP 429): slow down please',
      apiMessages: ['slow down', 'please'],
      retryAfterMs: 30_000,
    });
  });
});

describe('errorForEnvelope', () => {
  it.each([
    [['The API key does not appear to be valid'], AuthenticationError],
    [['This endpoint requires a premium plan'], AuthenticationError],
    [['Unauthorized'], AuthenticationError],
    [['Unknown pipeline slug'], RequestRejectedError],
    [[], RequestRejectedError],
  ])('an error envelope saying %j', (messages, Kind) => {
    const error = errorForEnvelope('error', facts(200, messages));
    expect(error).toBeInstanceOf(Kind);
    expect(error.retryable).toBe(false);
    const said = messages.length > 0 ? `: ${messages.join(' ')}` : '';
    expect(error.reason).toBe(`API answered status "error"${said}`);
  });
});
