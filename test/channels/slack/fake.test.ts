/** The Slack fake speaks Slack's wire format and refuses what Slack refuses. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SlackFake, startSlackFake } from '../../fakes/slack.js';
import { checkMessage } from '../../fakes/slack-blocks.js';
import { ManualClock } from '../../support/clock.js';

let fake: SlackFake;
beforeAll(async () => {
  // The rate limit runs on a clock that stands still: a slow machine cannot refill it.
  fake = await startSlackFake({ rate: { perSecond: 1, burst: 2 }, clock: new ManualClock() });
});
afterAll(() => fake.close());

async function call(
  method: string,
  body: Record<string, unknown>,
  as: 'json' | 'form',
  token = fake.token,
) {
  const form = new URLSearchParams(
    Object.entries(body).map(([k, v]): [string, string] => [
      k,
      typeof v === 'string' ? v : JSON.stringify(v),
    ]),
  );
  const res = await fetch(`${fake.url}${method}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type':
        as === 'json' ? 'application/json; charset=utf-8' : 'application/x-www-form-urlencoded',
    },
    body: as === 'json' ? JSON.stringify(body) : form.toString(),
  });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as Record<string, unknown>,
  };
}

const header = (text: string, type = 'plain_text') => ({ type: 'header', text: { type, text } });
const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });

describe('the Slack fake', () => {
  it('takes JSON and form bodies alike, and checks the token', async () => {
    const blocks = [section('hello')];
    const json = await call('chat.postMessage', { channel: '#gas', text: 'a', blocks }, 'json');
    const form = await call('chat.postMessage', { channel: 'C0OPS', text: 'b', blocks }, 'form');
    expect(json.body).toMatchObject({ ok: true, channel: 'C0GAS', ts: '1732111200.000100' });
    expect(form.body).toMatchObject({ ok: true, channel: 'C0OPS', ts: '1732111200.000200' });
    expect(fake.posts.map((p) => p.blocks)).toEqual([blocks, blocks]);
    expect((await call('auth.test', {}, 'json', 'xoxb-wrong')).body).toEqual({
      ok: false,
      error: 'invalid_auth',
    });
    expect((await call('auth.test', {}, 'json', '')).body).toEqual({
      ok: false,
      error: 'not_authed',
    });
  });

  it('limits posting per channel with 429 and Retry-After', async () => {
    const results = [];
    for (let i = 0; i < 3; i++)
      results.push(await call('chat.postMessage', { channel: '#outside-not', text: 'x' }, 'json'));
    expect(results[0]!.body.error).toBe('channel_not_found');
    const burst = [];
    for (let i = 0; i < 3; i++)
      burst.push(await call('chat.postMessage', { channel: 'C0GAS', text: 'x' }, 'form'));
    expect(burst.map((r) => r.status)).toEqual([200, 429, 429]);
    expect(burst[1]!.retryAfter).toBe('1');
    expect(burst[1]!.body).toEqual({ ok: false, error: 'ratelimited' });
    expect(fake.http429).toBe(2);
  });

  it('fails on demand', async () => {
    fake.inject({ method: 'auth.test', status: 503, retryAfter: 4, times: 2 });
    expect((await call('auth.test', {}, 'json')).status).toBe(503);
    expect((await call('auth.test', {}, 'json')).retryAfter).toBe('4');
    expect((await call('auth.test', {}, 'json')).body.ok).toBe(true);
  });

  it.each([
    [
      { text: 'x', blocks: Array.from({ length: 51 }, () => ({ type: 'divider' })) },
      'invalid_blocks',
    ],
    [{ text: 'x', blocks: [header('h'.repeat(151))] }, 'invalid_blocks'],
    [{ text: 'x', blocks: [header('h', 'mrkdwn')] }, 'invalid_blocks'],
    [{ text: 'x', blocks: [section('s'.repeat(3001))] }, 'invalid_blocks'],
    [{ text: 'x', blocks: [section('')] }, 'invalid_blocks'],
    [
      {
        text: 'x',
        blocks: [
          {
            type: 'section',
            fields: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'f' })),
          },
        ],
      },
      'invalid_blocks',
    ],
    [
      {
        text: 'x',
        blocks: [{ type: 'section', fields: [{ type: 'mrkdwn', text: 'f'.repeat(2001) }] }],
      },
      'invalid_blocks',
    ],
    [
      {
        text: 'x',
        blocks: [
          {
            type: 'actions',
            elements: [
              {
                type: 'button',
                text: { type: 'plain_text', text: 'b'.repeat(76) },
                url: 'https://x.example',
              },
            ],
          },
        ],
      },
      'invalid_blocks',
    ],
    [
      {
        text: 'x',
        blocks: [
          {
            type: 'actions',
            elements: [
              {
                type: 'button',
                text: { type: 'plain_text', text: 'b' },
                url: 'javascript:alert(1)',
              },
            ],
          },
        ],
      },
      'invalid_blocks',
    ],
    [
      {
        text: 'x',
        blocks: [
          {
            type: 'actions',
            elements: [
              {
                type: 'button',
                text: { type: 'plain_text', text: 'b' },
                url: `https://x.example/${'a'.repeat(3000)}`,
              },
            ],
          },
        ],
      },
      'invalid_blocks',
    ],
    [
      {
        text: 'x',
        blocks: [
          { ...section('a'), block_id: 'a' },
          { ...section('b'), block_id: 'a' },
        ],
      },
      'invalid_blocks',
    ],
    [
      {
        text: 'x',
        blocks: [
          {
            type: 'actions',
            elements: [
              { type: 'button', action_id: 'a', text: { type: 'plain_text', text: 'b' } },
              { type: 'button', action_id: 'a', text: { type: 'plain_text', text: 'c' } },
            ],
          },
        ],
      },
      'invalid_blocks',
    ],
    [{ text: 'x', blocks: [{ type: 'bogus' }] }, 'invalid_blocks'],
    [{ text: 'x', blocks: '[not json' }, 'invalid_blocks_format'],
    [{}, 'no_text'],
    [{ text: 'x'.repeat(40_001) }, 'msg_too_long'],
  ] as Array<[{ text?: unknown; blocks?: unknown }, string]>)(
    'refuses %#: %s',
    (message, error) => {
      expect(checkMessage(message.text, message.blocks)).toBe(error);
    },
  );

  it('accepts what Slack accepts', () => {
    expect(
      checkMessage('x', [header('h'.repeat(150)), section('s'.repeat(3000)), { type: 'divider' }]),
    ).toBeUndefined();
    expect(checkMessage('only text', undefined)).toBeUndefined();
  });
});
