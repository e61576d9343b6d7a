import { describe, expect, it } from 'vitest';
import { emailAddress, httpUrl, isEmailAddress } from '../../src/lib/zod-checks.js';

const problem = (result: { success: boolean; error?: { issues: Array<{ message: string }> } }) =>
  result.success ? undefined : result.error?.issues.map((i) => i.message).join('; ');

describe('emailAddress', () => {
  it.each([
    'ops@example.com',
    'gas-ops+alerts@mail.example.co.uk',
    "o'brien@example.com",
    'first.last@example.com',
    'user_name@example.io',
    'OPS@EXAMPLE.COM',
    'a@b.c',
    'x!y@example.com',
  ])('takes %s', (address) => {
    expect(emailAddress.safeParse(address)).toEqual({ success: true, data: address });
    expect(isEmailAddress(address)).toBe(true);
  });

  it('drops spaces around an address', () => {
    expect(emailAddress.parse('  ops@example.com ')).toBe('ops@example.com');
  });

  it.each([
    ['ops'],
    ['ops@example'],
    ['ops@localhost'],
    ['ops at example.com'],
    ['ops@example,com'],
    // Typos the check catches at load rather than at send.
    ['ops@example..com'],
    ['ops@example.com.'],
    ['ops@example.com"'],
    // Valid but refused: not what an ops mailbox looks like.
    ['"ops"@example.com'],
    ['müller@example.de'],
    ['ops@[10.0.0.5]'],
  ])('refuses %s, saying so', (text) => {
    expect(problem(emailAddress.safeParse(text))).toBe('must be an email address');
    expect(isEmailAddress(text)).toBe(false);
  });
});

describe('httpUrl', () => {
  it.each([
    'https://hooks.example.com/alerts?x=1',
    'http://127.0.0.1:8787',
    'http://localhost:3000/api/',
    'http://[::1]:8080/',
    'HTTPS://EXAMPLE.COM/P',
  ])('takes %s', (url) => {
    expect(httpUrl.safeParse(url)).toEqual({ success: true, data: url });
  });

  it('drops spaces around a URL', () => {
    expect(httpUrl.parse(' https://hooks.example.com/x ')).toBe('https://hooks.example.com/x');
  });

  it.each([
    'ftp://example.com',
    'mailto:ops@example.com',
    'javascript:alert(1)',
    'nope',
    '',
    'https://',
    // The `//` is required: these are typos, whatever the URL parser would make of them.
    'http:example.com',
    'http:/example.com',
  ])('refuses %j, saying so', (text) => {
    expect(problem(httpUrl.safeParse(text))).toBe('must be an http:// or https:// URL');
  });

  it('keeps zod’s own message for a value that is not text', () => {
    expect(problem(httpUrl.safeParse(8080))).toBe(
      'Invalid input: expected string, received number',
    );
  });
});
