/**
 * A Slack Web API on loopback, speaking the real wire format: `POST /api/<method>` with a
 * form-encoded or JSON body, `Authorization: Bearer xoxb-…` (or a `token` field), answers
 * `{ ok: true, … }` or `{ ok: false, error }` with HTTP 200. It knows `auth.test`,
 * `chat.postMessage`, `chat.update`, `conversations.open` and `users.lookupByEmail`, its
 * channels (by id and `#name`; some the bot is not in, some archived) and users (by id and
 * email). It enforces Slack's posting limit per channel (a token bucket: `perSecond`, with
 * a burst, in real time or on a clock it is given) with HTTP 429 and `Retry-After`,
 * rejects what Block Kit rejects (`slack-blocks.ts`), and fails on demand (`inject`).
 * Every accepted message is kept.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkMessage, parseBlocks } from './slack-blocks.js';

export interface FakeChannel {
  id: string;
  name: string;
  /** Whether the bot is in it (default true). */
  member?: boolean;
  archived?: boolean;
}

export interface FakeUser {
  id: string;
  name: string;
  email: string;
}

export interface SlackFakeOptions {
  token?: string;
  channels?: FakeChannel[];
  users?: FakeUser[];
  /** Posting limit per channel; default 1 a second with a burst of 3. */
  rate?: { perSecond: number; burst: number };
  /**
   * The time the posting limit runs on and messages are stamped with; default real time.
   * A test that paces on a manual clock gives the fake the same one.
   */
  clock?: { now(): Date };
}

/** A message as the fake holds it. */
export interface FakeMessage {
  channel: string;
  ts: string;
  text: string;
  blocks: unknown[];
  thread_ts?: string;
  reply_broadcast?: boolean;
  /** The request's other arguments, as received. */
  args: Record<string, unknown>;
  /** When it was accepted: `performance.now()`, or the clock's milliseconds when given one. */
  at: number;
}

export interface FakeCall {
  method: string;
  status: number;
  error?: string;
  contentType: string;
  at: number;
}

/** A failure for the next `times` (default 1) calls of `method` (default any). */
export interface Fault {
  method?: string;
  times?: number;
  /** HTTP status to answer with (default 200). */
  status?: number;
  /** Slack error code in the body (default `fatal_error` for a non-200 status). */
  error?: string;
  /** `Retry-After` header, seconds. */
  retryAfter?: number;
  /** Close the connection without answering. */
  reset?: boolean;
  /** Answer only after this many milliseconds. */
  delayMs?: number;
}

export interface SlackFake {
  /** Base URL of the Web API, ending in `/api/`. */
  url: string;
  token: string;
  posts: FakeMessage[];
  updates: FakeMessage[];
  calls: FakeCall[];
  /** HTTP 429 answers so far. */
  readonly http429: number;
  inject(fault: Fault): void;
  /** A message as it is now (after edits). */
  message(channel: string, ts: string): FakeMessage | undefined;
  close(): Promise<void>;
}

export const FAKE_TOKEN = 'xoxb-1234-5678-fakeSecretToken';

export const FAKE_CHANNELS: FakeChannel[] = [
  { id: 'C0GAS', name: 'gas' },
  { id: 'C0OPS', name: 'ops' },
  { id: 'C0OUT', name: 'outside', member: false },
  { id: 'C0OLD', name: 'old', archived: true },
];

export const FAKE_USERS: FakeUser[] = [
  { id: 'U0ALICE', name: 'alice', email: 'alice@example.com' },
  { id: 'W0BOB', name: 'bob', email: 'bob@example.com' },
];

type Args = Record<string, unknown>;
type Answer = { status?: number; body: Args; headers?: Record<string, string> };

export async function startSlackFake(options: SlackFakeOptions = {}): Promise<SlackFake> {
  const token = options.token ?? FAKE_TOKEN;
  const rate = options.rate ?? { perSecond: 1, burst: 3 };
  const clock = options.clock;
  const now = () => (clock ? clock.now().getTime() : performance.now());
  const channels = new Map<string, FakeChannel>();
  for (const c of options.channels ?? FAKE_CHANNELS) channels.set(c.id, c);
  const users = options.users ?? FAKE_USERS;
  const buckets = new Map<string, { tokens: number; last: number }>();
  const messages = new Map<string, FakeMessage>();
  const faults: Fault[] = [];
  const posts: FakeMessage[] = [];
  const updates: FakeMessage[] = [];
  const calls: FakeCall[] = [];
  let http429 = 0;
  let seq = 0;

  const nextTs = () => {
    seq += 1;
    const micros = seq * 100;
    const seconds = 1_732_111_200 + Math.floor(micros / 1_000_000);
    return `${seconds}.${String(micros % 1_000_000).padStart(6, '0')}`;
  };
  const fail = (error: string, status = 200): Answer => ({ status, body: { ok: false, error } });

  function channelOf(ref: unknown): FakeChannel | undefined {
    if (typeof ref !== 'string') return undefined;
    const byId = channels.get(ref);
    if (byId) return byId;
    const name = ref.replace(/^#/, '');
    return [...channels.values()].find((c) => c.name === name && !c.id.startsWith('D'));
  }

  /** Takes a token from the channel's bucket, or says how many seconds until one. */
  function take(channel: string): number | undefined {
    const at = now();
    const b = buckets.get(channel) ?? { tokens: rate.burst, last: at };
    b.tokens = Math.min(rate.burst, b.tokens + ((at - b.last) / 1000) * rate.perSecond);
    b.last = at;
    buckets.set(channel, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / rate.perSecond));
  }

  function postMessage(args: Args): Answer {
    const c = channelOf(args.channel);
    if (!c) return fail('channel_not_found');
    if (c.archived) return fail('is_archived');
    if (c.member === false) return fail('not_in_channel');
    const problem = checkMessage(args.text, args.blocks);
    if (problem) return fail(problem);
    const threadTs = typeof args.thread_ts === 'string' ? args.thread_ts : undefined;
    if (threadTs && !messages.has(`${c.id}/${threadTs}`)) return fail('thread_not_found');
    const wait = take(c.id);
    if (wait !== undefined) {
      return {
        status: 429,
        body: { ok: false, error: 'ratelimited' },
        headers: { 'retry-after': String(wait) },
      };
    }
    const ts = nextTs();
    const m: FakeMessage = {
      channel: c.id,
      ts,
      text: String(args.text ?? ''),
      blocks: parseBlocks(args.blocks),
      ...(threadTs ? { thread_ts: threadTs } : {}),
      ...(args.reply_broadcast === true || args.reply_broadcast === 'true'
        ? { reply_broadcast: true }
        : {}),
      args,
      at: now(),
    };
    messages.set(`${c.id}/${ts}`, { ...m });
    posts.push(m);
    return {
      body: {
        ok: true,
        channel: c.id,
        ts,
        message: {
          type: 'message',
          text: m.text,
          ts,
          user: 'U0BOT',
          bot_id: 'B0BOT',
          blocks: m.blocks,
        },
      },
    };
  }

  function update(args: Args): Answer {
    const c = typeof args.channel === 'string' ? channels.get(args.channel) : undefined;
    if (!c) return fail('channel_not_found');
    const key = `${c.id}/${String(args.ts)}`;
    const m = messages.get(key);
    if (!m) return fail('message_not_found');
    const problem = checkMessage(args.text, args.blocks);
    if (problem) return fail(problem);
    const edited = {
      ...m,
      text: String(args.text ?? ''),
      blocks: parseBlocks(args.blocks),
      args,
      at: now(),
    };
    messages.set(key, edited);
    updates.push(edited);
    return { body: { ok: true, channel: c.id, ts: m.ts, text: edited.text } };
  }

  function answer(method: string, args: Args): Answer {
    switch (method) {
      case 'auth.test':
        return {
          body: {
            ok: true,
            url: 'https://acme-gas.slack.com/',
            team: 'Acme Gas',
            user: 'pipewatch',
            team_id: 'T0ACME',
            user_id: 'U0BOT',
            bot_id: 'B0BOT',
          },
        };
      case 'chat.postMessage':
        return postMessage(args);
      case 'chat.update':
        return update(args);
      case 'conversations.open': {
        const ids = String(args.users ?? '')
          .split(',')
          .filter(Boolean);
        const user = users.find((u) => u.id === ids[0]);
        if (ids.length !== 1 || !user) return fail('user_not_found');
        const id = `D${user.id}`;
        channels.set(id, { id, name: id });
        return { body: { ok: true, channel: { id } } };
      }
      case 'users.lookupByEmail': {
        const user = users.find(
          (u) => u.email.toLowerCase() === String(args.email ?? '').toLowerCase(),
        );
        if (!user) return fail('users_not_found');
        return {
          body: {
            ok: true,
            user: { id: user.id, name: user.name, profile: { email: user.email } },
          },
        };
      }
      default:
        return fail('unknown_method', 404);
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const contentType = String(req.headers['content-type'] ?? '');
    const method = new URL(req.url ?? '/', 'http://fake').pathname.replace(/^\/api\//, '');
    let args: Args = {};
    try {
      args = contentType.includes('application/json')
        ? (JSON.parse(raw || '{}') as Args)
        : Object.fromEntries(new URLSearchParams(raw));
    } catch {
      args = {};
    }
    const fault = faults.find((f) => (f.method ?? method) === method && (f.times ?? 1) > 0);
    if (fault) fault.times = (fault.times ?? 1) - 1;
    if (fault?.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
    if (fault?.reset) {
      calls.push({ method, status: 0, error: 'reset', contentType, at: now() });
      req.socket.destroy();
      return;
    }
    const auth = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1] ?? args.token;
    let out: Answer;
    if (fault && (fault.status !== undefined || fault.error !== undefined)) {
      const status = fault.status ?? 200;
      out = fail(fault.error ?? (status === 429 ? 'ratelimited' : 'fatal_error'), status);
      if (fault.retryAfter !== undefined) out.headers = { 'retry-after': String(fault.retryAfter) };
    } else if (auth === undefined || auth === '') out = fail('not_authed');
    else if (auth !== token) out = fail('invalid_auth');
    else out = answer(method, args);
    const status = out.status ?? 200;
    if (status === 429) http429 += 1;
    const error = out.body.ok === false ? String(out.body.error) : undefined;
    calls.push({ method, status, ...(error ? { error } : {}), contentType, at: now() });
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...out.headers });
    res.end(JSON.stringify(out.body));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/`,
    token,
    posts,
    updates,
    calls,
    get http429() {
      return http429;
    },
    inject: (fault) => void faults.push({ ...fault }),
    message: (channel, ts) => messages.get(`${channel}/${ts}`),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
