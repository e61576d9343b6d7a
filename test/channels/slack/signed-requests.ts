/**
 * Requests as Slack sends them to an app's request URL, signed as Slack signs them (v0:
 * `X-Slack-Signature: v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<body>` keyed with the
 * signing secret, `X-Slack-Request-Timestamp` in seconds): slash commands form-encoded,
 * interactivity (`block_actions`) as a form's `payload` field, events as JSON. And a
 * plain HTTP client that reads an early answer (a 413 before the body was all sent).
 */
import { createHmac } from 'node:crypto';
import { request } from 'node:http';

/** The signing secret the tests' app is given (32 hex characters, as Slack's are). */
export const SIGNING_SECRET = '3f1c9a7be05d4c2f8a6b1e9d7c3a5f20';

export interface SignedRequest {
  headers: Record<string, string>;
  body: string;
}

/** Signs `body` sent at `at` as Slack does. */
export function signed(
  body: string,
  contentType: string,
  at: Date,
  secret = SIGNING_SECRET,
): SignedRequest {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const digest = createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex');
  return {
    body,
    headers: {
      'content-type': contentType,
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': `v0=${digest}`,
    },
  };
}

/** `/pipewatch <text>` typed by U0ALICE in #gas, its follow-ups to `responseUrl`. */
export function slashCommand(
  text: string,
  at: Date,
  responseUrl: string,
  over: Record<string, string> = {},
): SignedRequest {
  const form = new URLSearchParams({
    token: 'deprecated-verification-token',
    team_id: 'T0ACME',
    team_domain: 'acme-gas',
    channel_id: 'C0GAS',
    channel_name: 'gas',
    user_id: 'U0ALICE',
    user_name: 'alice',
    command: '/pipewatch',
    text,
    api_app_id: 'A0PIPEWATCH',
    is_enterprise_install: 'false',
    response_url: responseUrl,
    trigger_id: '1234.5678.abcd',
    ...over,
  });
  return signed(form.toString(), 'application/x-www-form-urlencoded', at);
}

/** A click on one element of a message (`message` as Slack holds it), by `user` in `channel`. */
export function blockActions(
  action: Record<string, unknown>,
  at: Date,
  options: {
    responseUrl?: string;
    message?: { ts: string; text: string; blocks: unknown[] };
    user?: string;
    channel?: string;
    view?: Record<string, unknown>;
  } = {},
): SignedRequest {
  const user = options.user ?? 'U0ALICE';
  const payload = {
    type: 'block_actions',
    user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: 'T0ACME' },
    api_app_id: 'A0PIPEWATCH',
    token: 'deprecated-verification-token',
    trigger_id: '1234.5678.abcd',
    team: { id: 'T0ACME', domain: 'acme-gas' },
    ...(options.view
      ? { container: { type: 'view', view_id: 'V0HOME' }, view: options.view }
      : {
          container: {
            type: 'message',
            message_ts: options.message?.ts ?? '1732111200.000100',
            channel_id: options.channel ?? 'C0GAS',
            is_ephemeral: false,
          },
          channel: { id: options.channel ?? 'C0GAS', name: 'gas' },
          message: { type: 'message', user: 'U0BOT', bot_id: 'B0BOT', ...options.message },
        }),
    ...(options.responseUrl ? { response_url: options.responseUrl } : {}),
    actions: [{ block_id: 'pipewatch-actions', action_ts: '1732111260.000200', ...action }],
  };
  const form = new URLSearchParams({ payload: JSON.stringify(payload) });
  return signed(form.toString(), 'application/x-www-form-urlencoded', at);
}

/** An Events API callback carrying `event`. */
export function eventCallback(event: Record<string, unknown>, at: Date): SignedRequest {
  const body = {
    token: 'deprecated-verification-token',
    team_id: 'T0ACME',
    api_app_id: 'A0PIPEWATCH',
    event: { event_ts: '1732111260.000300', ...event },
    type: 'event_callback',
    event_id: `Ev${Math.floor(at.getTime() / 1000)}`,
    event_time: Math.floor(at.getTime() / 1000),
    authorizations: [{ team_id: 'T0ACME', user_id: 'U0BOT', is_bot: true }],
  };
  return signed(JSON.stringify(body), 'application/json', at);
}

/** The challenge Slack sends when the request URL is set. */
export function urlVerification(challenge: string, at: Date): SignedRequest {
  const body = { token: 'deprecated-verification-token', challenge, type: 'url_verification' };
  return signed(JSON.stringify(body), 'application/json', at);
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * POSTs `body` to `url` and reads the answer, even one that comes before the body was
 * all sent (the write error that may follow is then ignored).
 */
export function post(url: string, req: { headers: Record<string, string>; body: string | Buffer }) {
  return new Promise<Answer>((resolve, reject) => {
    const out = request(url, { method: 'POST', headers: req.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    let answered = false;
    out.on('response', () => {
      answered = true;
    });
    out.on('error', (error) => {
      if (!answered) reject(error);
    });
    out.end(req.body);
  });
}
