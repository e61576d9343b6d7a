/** The one HTTP status classifier: which answers are done, worth retrying, or final. */
import { describe, expect, it } from 'vitest';
import { classifyStatus, RETRYABLE_CLIENT_ERRORS } from '../../src/lib/http-status.js';
import { UPSTREAM_RETRYABLE } from '../../src/upstream/status-errors.js';

describe('classifyStatus', () => {
  it.each([
    [200, 'ok'],
    [201, 'ok'],
    [204, 'ok'],
    [299, 'ok'],
    [100, 'permanent'],
    [301, 'permanent'],
    [304, 'permanent'],
    [400, 'permanent'],
    [401, 'permanent'],
    [403, 'permanent'],
    [404, 'permanent'],
    [410, 'permanent'],
    [413, 'permanent'],
    [422, 'permanent'],
    [408, 'retry'],
    [425, 'retry'],
    [429, 'retry'],
    [500, 'retry'],
    [501, 'retry'],
    [502, 'retry'],
    [503, 'retry'],
    [504, 'retry'],
    [505, 'retry'],
    [599, 'retry'],
  ] as const)('HTTP %i: %s', (status, outcome) => {
    expect(classifyStatus(status)).toBe(outcome);
  });

  it('retries 408, 425 and 429 among the client errors, unless the caller lists others', () => {
    expect([...RETRYABLE_CLIENT_ERRORS].sort()).toEqual([408, 425, 429]);
    expect(classifyStatus(408, UPSTREAM_RETRYABLE)).toBe('permanent');
    expect(classifyStatus(425, UPSTREAM_RETRYABLE)).toBe('permanent');
    expect(classifyStatus(429, UPSTREAM_RETRYABLE)).toBe('retry');
    expect(classifyStatus(503, UPSTREAM_RETRYABLE)).toBe('retry');
    expect(classifyStatus(204, UPSTREAM_RETRYABLE)).toBe('ok');
  });
});
