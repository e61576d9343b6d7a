/**
 * Unsubscribe links: the token names the addresses and the rules an email's alerts came
 * from, verifies only as made and under its key; a digest naming more rules than a link
 * holds stops every rule; operations alerts and silence summaries get no link; the list
 * headers follow the public URL.
 */
import { describe, expect, it } from 'vitest';
import {
  listHeaders,
  listId,
  MAX_LINK_LENGTH,
  makeToken,
  stoppableRules,
  UNSUBSCRIBE_PATH,
  unsubscribeLink,
  verifyToken,
} from '../../src/unsubscribe/links.js';
import { sampleAlerts } from '../channels/payload-samples.js';
import { noticeAlert } from '../fakes/alerts.js';
import { silenceAlert } from '../fakes/silence.js';

const KEY = 'k'.repeat(43);
const OTHER_KEY = 'o'.repeat(43);
const PUBLIC = 'https://pipewatch.example.com';
const scope = { addresses: ['ops@example.com'], rules: ['sub-12', 'transco-constraints'] };

/** `text` with the character at `i` replaced by another of the base64url alphabet. */
function flip(text: string, i: number): string {
  const c = text[i] === 'A' ? 'B' : 'A';
  return text.slice(0, i) + c + text.slice(i + 1);
}

const ruleAlert = (rule: string) => {
  const a = noticeAlert();
  return { ...a, payload: { ...a.payload, rule } };
};

describe('unsubscribe tokens', () => {
  it('are compact, URL-safe and versioned, and name the addresses and rules', () => {
    const token = makeToken(scope, KEY);
    expect(token).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(token.length).toBeLessThan(120);
    expect(verifyToken(token, KEY)).toEqual(scope);
    const all = makeToken({ addresses: ['a@example.com', 'b@example.com'], rules: 'all' }, KEY);
    expect(verifyToken(all, KEY)).toEqual({
      addresses: ['a@example.com', 'b@example.com'],
      rules: 'all',
    });
  });

  it('refuse a token cut short, changed anywhere, or signed with another key', () => {
    const token = makeToken(scope, KEY);
    const refused: string[] = [];
    for (let n = 0; n < token.length; n += 1) refused.push(token.slice(0, n));
    for (let i = 0; i < token.length; i += 1) if (token[i] !== '.') refused.push(flip(token, i));
    refused.push(
      makeToken(scope, OTHER_KEY),
      token.replace(/^v1/, 'v2'),
      `${token}.x`,
      `${token}=`,
      `${token}/more`,
      token.replace(/\./g, '%2E'),
      `v1.${'A'.repeat(3000)}.${token.split('.')[2]}`,
    );
    // The last character of a base64url part also holds unused bits: a token changed
    // only there decodes to the same bytes, and is refused all the same.
    const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const unused = (t: string) => t.slice(0, -1) + ALPHABET[ALPHABET.indexOf(t.at(-1)!) ^ 1];
    refused.push(unused(token));
    // The payload of one token with the signature of another.
    const [, , otherSignature] = makeToken({ ...scope, rules: 'all' }, KEY).split('.');
    refused.push(token.replace(/[^.]+$/, otherSignature!));
    for (const bad of refused) expect(verifyToken(bad, KEY), bad).toBeUndefined();
    expect(verifyToken(token, OTHER_KEY)).toBeUndefined();
  });
});

describe('unsubscribe links', () => {
  it('name each rule of a digest once, and none of operations alerts or silence summaries', () => {
    const ops = sampleAlerts('operations-schema-drift', 'email:ops@example.com');
    const alerts = [ruleAlert('b-rule'), ruleAlert('a-rule'), ruleAlert('b-rule'), ...ops];
    alerts.push(silenceAlert());
    expect(stoppableRules(alerts.map((a) => a.payload))).toEqual(['a-rule', 'b-rule']);
    const link = unsubscribeLink(
      PUBLIC,
      ['ops@example.com'],
      alerts.map((a) => a.payload),
      KEY,
    );
    expect(link?.startsWith(`${PUBLIC}${UNSUBSCRIBE_PATH}v1.`)).toBe(true);
    expect(verifyToken(link!.slice(`${PUBLIC}${UNSUBSCRIBE_PATH}`.length), KEY)).toEqual({
      addresses: ['ops@example.com'],
      rules: ['a-rule', 'b-rule'],
    });
    const only = [...ops, silenceAlert()].map((a) => a.payload);
    expect(unsubscribeLink(PUBLIC, ['ops@example.com'], only, KEY)).toBeUndefined();
  });

  it('keep the public URL path, without its trailing slash, query or fragment', () => {
    const payloads = [ruleAlert('r').payload];
    const link = unsubscribeLink('https://example.com/pw/?x=1#y', ['a@example.com'], payloads, KEY);
    expect(link).toMatch(/^https:\/\/example\.com\/pw\/unsubscribe\/v1\.[^/?#]+$/);
  });

  it('stop every rule when a digest names more than a link holds, and fit in a header line', () => {
    const rules = Array.from({ length: 20 }, (_, i) => `rule-${i}-${'x'.repeat(60)}`);
    const payloads = rules.map((r) => ruleAlert(r).payload);
    const link = unsubscribeLink(PUBLIC, ['ops@example.com'], payloads, KEY)!;
    expect(link.length).toBeLessThanOrEqual(MAX_LINK_LENGTH);
    const token = link.slice(`${PUBLIC}${UNSUBSCRIBE_PATH}`.length);
    expect(verifyToken(token, KEY)).toEqual({ addresses: ['ops@example.com'], rules: 'all' });
    const few = unsubscribeLink(PUBLIC, ['ops@example.com'], payloads.slice(0, 3), KEY)!;
    expect(verifyToken(few.split('/').at(-1)!, KEY)?.rules).toEqual(rules.slice(0, 3).sort());
    const hugeUrl = `https://example.com/${'p'.repeat(MAX_LINK_LENGTH)}`;
    expect(unsubscribeLink(hugeUrl, ['ops@example.com'], payloads, KEY)).toBeUndefined();
  });
});

describe('list headers', () => {
  it('offer one-click unsubscribe for an https link, and name the list after the host', () => {
    const link = `${PUBLIC}/unsubscribe/v1.x.y`;
    expect(listHeaders(PUBLIC, link)).toEqual({
      'List-Id': 'pipewatch alerts <alerts.pipewatch.example.com>',
      'List-Unsubscribe': `<${link}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
    expect(listHeaders(PUBLIC, undefined)).toEqual({
      'List-Id': 'pipewatch alerts <alerts.pipewatch.example.com>',
    });
  });

  it('offer no one-click POST over plain http, which RFC 8058 does not allow', () => {
    const headers = listHeaders('http://10.0.0.5:8080', 'http://10.0.0.5:8080/unsubscribe/t');
    expect(headers).toEqual({
      'List-Id': 'pipewatch alerts <alerts.10.0.0.5>',
      'List-Unsubscribe': '<http://10.0.0.5:8080/unsubscribe/t>',
    });
    expect(listId('http://[::1]:8080')).toBe('pipewatch alerts <alerts.1>');
  });
});
