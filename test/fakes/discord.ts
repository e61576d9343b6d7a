/**
 * A Discord REST API on loopback, speaking the real wire format under `{url}/v10`:
 * `POST`/`PATCH` channel messages, `POST /users/@me/channels` (DMs) and
 * `GET /users/@me`. It checks `Authorization: Bot <token>`, answers unknown channels
 * with 404 (10003) and channels without access with 403 (50001), refuses posts where the
 * bot lacks Send Messages, and messages with files where it lacks Attach Files, with 403
 * (50013), sends `X-RateLimit-*`
 * headers with a per-channel bucket and a global limit (429 with `retry_after`), honours
 * `nonce` with `enforce_nonce`, rejects bodies over Discord's embed limits (400, 50035)
 * and empty messages (400, 50006), and can be told to fail the next requests.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWaiters } from '../support/waiters.js';

export const FAKE_TOKEN = 'fake-bot-token.NOT-A-REAL-SECRET';
export const FAKE_CHANNEL = '1100000000000000001';
export const FAKE_USER = {
  id: '1200000000000000001',
  username: 'pipewatch',
  discriminator: '0',
  bot: true,
};

export interface DiscordFakeOptions {
  token?: string;
  /** Text channels that exist; default `[FAKE_CHANNEL]`. */
  channels?: string[];
  /** Channels that exist but the bot cannot see: 403 Missing Access. */
  forbidden?: string[];
  /** Channels where the bot may not post (no Send Messages): any post is 403 50013. */
  noSendMessages?: string[];
  /**
   * Channels where the bot may post but not attach files (no Attach Files): a message with
   * files is 403 50013, one without goes through.
   */
  noAttachFiles?: string[];
  /**
   * Channels where the bot may post but not read the message history (no Read Message
   * History): a reply (`message_reference`) is 403 50013, a message that is none goes
   * through.
   */
  noReadHistory?: string[];
  /** Users whose DMs are closed: 403 50007. */
  blockedUsers?: string[];
  /** Per channel (messages routes); default 5 per 5 s. */
  bucket?: { limit: number; resetAfterMs: number };
  /** All routes together; default 50 per second. */
  global?: { limit: number; windowMs: number };
  /** How long a nonce is remembered; default 5 minutes. */
  nonceWindowMs?: number;
}

export type DiscordFault =
  | { status: 429; retryAfter: number; global?: boolean }
  /** Any other status, with Discord's error body (default a bare 5xx one). */
  | { status: 400 | 401 | 403 | 404 | 500 | 502 | 503 | 504; body?: unknown }
  | { hang: true };

export interface FakeMessage {
  id: string;
  channel_id: string;
  content: string;
  embeds: Array<Json>;
  nonce?: string | number;
  message_reference?: { message_id: string };
  allowed_mentions?: unknown;
  /** Files sent with the message (multipart `files[n]`), as Discord lists them, with their bytes. */
  attachments: FakeAttachment[];
  edits: number;
}

/** A file a message carries. */
export interface FakeAttachment {
  id: string;
  filename: string;
  content_type: string;
  size: number;
  bytes: Uint8Array;
}

export interface FakeCall {
  method: string;
  /** Without the base path: `/v10/channels/1/messages`. */
  path: string;
  status: number;
  authorization: string | undefined;
  body: unknown;
}

export type Reply = { status: number; body: unknown; headers?: Record<string, string> };

/** A request as an extension of the fake sees it: the path after `/v10`, the parsed body. */
export interface FakeRequest {
  method: string;
  path: string;
  body: Json;
  authorization: string | undefined;
}

/**
 * Routes added to the fake from another file (`extend`): tried first, before the bot
 * token is checked (a webhook route authenticates by its URL); undefined passes the
 * request on.
 */
export type FakeRouter = (req: FakeRequest) => Reply | undefined;

/** Where in a body a field is: keys and array indices. */
export type Path = Array<string | number>;
export type Json = Record<string, unknown>;
/** Per-embed text limits: where the text is, and its maximum length. */
const EMBED_TEXT: Array<[Path, number]> = [
  [['title'], 256],
  [['description'], 4096],
  [['footer', 'text'], 2048],
  [['author', 'name'], 256],
];
const len = (s: unknown) => (typeof s === 'string' ? [...s].length : 0);
const at = (o: unknown, path: Path) => path.reduce<unknown>((v, k) => (v as Json)?.[k], o);
const list = (v: unknown) => (Array.isArray(v) ? (v as Json[]) : []);
export const err = (status: number, code: number, message: string): Reply => ({
  status,
  body: { message, code },
});

/**
 * Discord's errors of an invalid body, nested by path as it nests them
 * (`{ embeds: { 0: { title: { _errors: [{ code, message }] } } } }`), added one at a time;
 * `reply` is its 400 50035 once there is one.
 */
export function formErrors() {
  const errors: Json = {};
  return {
    add(path: Path, code: string, message: string): void {
      let node = errors;
      for (const key of path) {
        node[String(key)] ??= {};
        node = node[String(key)] as Json;
      }
      node._errors = [...((node._errors as unknown[]) ?? []), { code, message }];
    },
    reply(): Reply | undefined {
      if (Object.keys(errors).length === 0) return undefined;
      return { status: 400, body: { message: 'Invalid Form Body', code: 50035, errors } };
    },
  };
}

/** Discord's 429: `retry_after` (seconds) in the body and `Retry-After`, global or not. */
function tooMany(after: number, global: boolean, headers: Record<string, string> = {}): Reply {
  const seconds = Number(after.toFixed(3));
  const scope: Record<string, string> = global
    ? { 'x-ratelimit-global': 'true', 'x-ratelimit-scope': 'global' }
    : { 'x-ratelimit-scope': 'user' };
  const body = { message: 'You are being rate limited.', retry_after: seconds, global };
  return { status: 429, body, headers: { ...headers, ...scope, 'retry-after': String(seconds) } };
}

let sequence = 0;
function snowflake(): string {
  return ((BigInt(Date.now() - 1_420_070_400_000) << 22n) | BigInt(sequence++ & 0xfff)).toString();
}

/** Discord's 400 for a body that breaks the rules: errors nested by path, as Discord does. */
function validate(body: Json, creating: boolean): Reply | undefined {
  const errors = formErrors();
  const add = errors.add;
  const max = (path: Path, value: unknown, limit: number) => {
    const n = Array.isArray(value) ? value.length : len(value);
    if (n > limit) add(path, 'BASE_TYPE_MAX_LENGTH', `Must be ${limit} or fewer in length.`);
  };
  max(['content'], body.content, 2000);
  max(['nonce'], body.nonce === undefined ? undefined : String(body.nonce), 25);
  const embeds = list(body.embeds);
  max(['embeds'], embeds, 10);
  let total = 0;
  embeds.forEach((e, i) => {
    for (const [path, limit] of EMBED_TEXT) {
      max(['embeds', i, ...path], at(e, path), limit);
      total += len(at(e, path));
    }
    max(['embeds', i, 'fields'], list(e.fields), 25);
    list(e.fields).forEach((f, j) => {
      for (const key of ['name', 'value'] as const) {
        if (len(f[key]) === 0)
          add(['embeds', i, 'fields', j, key], 'BASE_TYPE_REQUIRED', 'This field is required');
        max(['embeds', i, 'fields', j, key], f[key], key === 'name' ? 256 : 1024);
        total += len(f[key]);
      }
    });
    if (e.url !== undefined && !/^https?:\/\/\S+$/.test(String(e.url)))
      add(['embeds', i, 'url'], 'URL_TYPE_INVALID_URL', 'Not a well formed URL.');
    if (e.timestamp !== undefined && Number.isNaN(Date.parse(String(e.timestamp))))
      add(['embeds', i, 'timestamp'], 'DATE_TYPE_PARSE', 'Could not parse timestamp.');
    const color = e.color as number | undefined;
    if (color !== undefined && !(Number.isInteger(color) && color >= 0 && color <= 0xffffff))
      add(['embeds', i, 'color'], 'NUMBER_TYPE_MAX', 'Color out of range.');
  });
  if (total > 6000)
    add(['embeds'], 'MAX_EMBED_SIZE_EXCEEDED', 'Embed size exceeds maximum size of 6000');
  const invalid = errors.reply();
  if (invalid) return invalid;
  if (creating && String(body.content ?? '').trim() === '' && embeds.length === 0) {
    return err(400, 50006, 'Cannot send an empty message');
  }
  return undefined;
}

export async function startDiscordFake(options: DiscordFakeOptions = {}) {
  const token = options.token ?? FAKE_TOKEN;
  const channels = new Set(options.channels ?? [FAKE_CHANNEL]);
  const forbidden = new Set(options.forbidden ?? []);
  const noSend = new Set(options.noSendMessages ?? []);
  const noAttach = new Set(options.noAttachFiles ?? []);
  const noHistory = new Set(options.noReadHistory ?? []);
  const blocked = new Set(options.blockedUsers ?? []);
  const bucket = options.bucket ?? { limit: 5, resetAfterMs: 5000 };
  const globalLimit = options.global ?? { limit: 50, windowMs: 1000 };
  const nonceWindowMs = options.nonceWindowMs ?? 300_000;
  const messages: FakeMessage[] = [];
  const calls: FakeCall[] = [];
  /** User id → DM channel id. */
  const dms = new Map<string, string>();
  const nonces = new Map<string, { message: FakeMessage; at: number }>();
  const buckets = new Map<string, { remaining: number; resetAt: number }>();
  const faults: DiscordFault[] = [];
  const routers: FakeRouter[] = [];
  /** Checks of `until`, run after each request is answered. */
  const waiters = createWaiters('Discord');
  let global = { count: 0, resetAt: 0 };

  const dmUser = (channel: string) => [...dms].find(([, id]) => id === channel)?.[0];
  const messageJson = (m: FakeMessage) => ({
    ...m,
    attachments: m.attachments.map(({ bytes: _bytes, ...a }) => ({
      ...a,
      url: `https://cdn.discordapp.com/attachments/${m.channel_id}/${a.id}/${a.filename}`,
    })),
    type: m.message_reference ? 19 : 0,
    author: FAKE_USER,
  });

  /** Takes one request from a bucket: its headers, and a 429 when it is empty. */
  function take(key: string, limit: number, resetAfterMs: number, now: number) {
    let b = buckets.get(key);
    if (!b || b.resetAt <= now) b = { remaining: limit, resetAt: now + resetAfterMs };
    buckets.set(key, b);
    const after = (b.resetAt - now) / 1000;
    const headers: Record<string, string> = {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(Math.max(0, b.remaining - 1)),
      'x-ratelimit-reset': (b.resetAt / 1000).toFixed(3),
      'x-ratelimit-reset-after': after.toFixed(3),
      'x-ratelimit-bucket': key.startsWith('channel:') ? 'f4ke5e55a9e5' : `f4ke-${key.length}`,
    };
    if (b.remaining <= 0) return { reply: tooMany(after, false, headers), headers };
    b.remaining -= 1;
    return { headers };
  }

  function route(method: string, path: string, body: Json, files: FakeAttachment[] = []): Reply {
    if (method === 'GET' && path === '/users/@me') return { status: 200, body: FAKE_USER };
    if (method === 'POST' && path === '/users/@me/channels') {
      const user = String(body.recipient_id ?? '');
      if (!/^\d{17,20}$/.test(user)) return err(400, 50033, 'Invalid Recipient(s)');
      if (!dms.has(user)) dms.set(user, snowflake());
      return { status: 200, body: { id: dms.get(user), type: 1, recipients: [{ id: user }] } };
    }
    const m = /^\/channels\/(\d+)\/messages(?:\/(\d+))?$/.exec(path);
    if (!m || !((method === 'POST' && !m[2]) || (method === 'PATCH' && m[2])))
      return err(404, 0, '404: Not Found');
    const channel = m[1]!;
    const user = dmUser(channel);
    if (forbidden.has(channel)) return err(403, 50001, 'Missing Access');
    if (!channels.has(channel) && !user) return err(404, 10003, 'Unknown Channel');
    if (user && blocked.has(user)) return err(403, 50007, 'Cannot send messages to this user');
    const refused =
      noSend.has(channel) ||
      (files.length > 0 && noAttach.has(channel)) ||
      (body.message_reference !== undefined && noHistory.has(channel));
    if (method === 'POST' && refused) return err(403, 50013, 'Missing Permissions');
    const invalid = validate(body, method === 'POST');
    if (invalid) return invalid;
    if (method === 'PATCH') {
      const target = messages.find((x) => x.id === m[2] && x.channel_id === channel);
      if (!target) return err(404, 10008, 'Unknown Message');
      if (body.content !== undefined) target.content = String(body.content);
      if (Array.isArray(body.embeds)) target.embeds = body.embeds;
      target.edits += 1;
      return { status: 200, body: messageJson(target) };
    }
    const nonceKey = `${channel}|${String(body.nonce)}`;
    const seen = nonces.get(nonceKey);
    if (body.enforce_nonce === true && seen && Date.now() - seen.at < nonceWindowMs) {
      return { status: 200, body: messageJson(seen.message) };
    }
    const ref = body.message_reference as
      | { message_id?: string; fail_if_not_exists?: boolean }
      | undefined;
    const exists = ref && messages.some((x) => x.id === ref.message_id && x.channel_id === channel);
    if (ref && !exists && ref.fail_if_not_exists !== false) {
      const errors = formErrors();
      errors.add(['message_reference'], 'REPLIES_UNKNOWN_MESSAGE', 'Unknown message');
      return errors.reply()!;
    }
    const message: FakeMessage = {
      id: snowflake(),
      channel_id: channel,
      content: String(body.content ?? ''),
      embeds: (body.embeds as FakeMessage['embeds']) ?? [],
      ...(body.nonce !== undefined ? { nonce: body.nonce as string } : {}),
      ...(ref && exists ? { message_reference: { message_id: ref.message_id! } } : {}),
      allowed_mentions: body.allowed_mentions,
      attachments: files,
      edits: 0,
    };
    messages.push(message);
    if (body.nonce !== undefined) nonces.set(nonceKey, { message, at: Date.now() });
    return { status: 200, body: messageJson(message) };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    // A message with files comes as multipart/form-data, as Discord takes it: the JSON in
    // the `payload_json` part, each file in a part `files[n]`.
    const multipart = await formParts(raw, req.headers['content-type']);
    const text = multipart ? multipart.json : raw.toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname.replace(/^\/api/, '');
    const call: FakeCall = {
      method: req.method ?? 'GET',
      path,
      status: 0,
      authorization: req.headers.authorization,
      body: undefined,
    };
    calls.push(call);
    const send = (reply: Reply) => {
      call.status = reply.status;
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body));
      waiters.check();
    };
    if (path.startsWith('/v10/') && routers.length > 0) {
      let parsed: Json | undefined;
      try {
        parsed = text === '' ? {} : (JSON.parse(text) as Json);
      } catch {}
      const request = {
        method: req.method ?? 'GET',
        path: path.slice('/v10'.length),
        body: parsed ?? {},
        authorization: req.headers.authorization,
      };
      for (const router of routers) {
        const reply = parsed === undefined ? undefined : router(request);
        if (reply) {
          call.body = parsed;
          return send(reply);
        }
      }
    }
    if (req.headers.authorization !== `Bot ${token}`) return send(err(401, 0, '401: Unauthorized'));
    const fault = faults.shift();
    if (fault && 'hang' in fault) return;
    if (fault?.status === 429) return send(tooMany(fault.retryAfter, !!fault.global));
    if (fault) return send({ status: fault.status, body: fault.body ?? err(0, 0, 'Error').body });
    if (!path.startsWith('/v10/')) return send(err(404, 0, '404: Not Found'));
    const now = Date.now();
    if (global.resetAt <= now) global = { count: 0, resetAt: now + globalLimit.windowMs };
    if (++global.count > globalLimit.limit)
      return send(tooMany((global.resetAt - now) / 1000, true));
    const route_ = path.slice('/v10'.length);
    const channel = /^\/channels\/(\d+)/.exec(route_)?.[1];
    const limited = channel
      ? take(`channel:${channel}`, bucket.limit, bucket.resetAfterMs, now)
      : take(`${req.method} ${route_}`, 50, 1000, now);
    if (limited.reply) return send(limited.reply);
    let body: Json = {};
    try {
      body = text === '' ? {} : (JSON.parse(text) as Json);
    } catch {
      return send({
        ...err(400, 50109, 'The request body contains invalid JSON.'),
        headers: limited.headers,
      });
    }
    call.body = body;
    const reply = route(req.method ?? 'GET', route_, body, multipart?.files ?? []);
    send({ ...reply, headers: { ...limited.headers, ...reply.headers } });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: String(e), code: 0 }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    /** The value for `DISCORD_API_URL`. */
    url: `http://127.0.0.1:${port}/api`,
    token,
    messages,
    calls,
    /** User id → DM channel id, as opened. */
    dms,
    /** Channels where the bot may not attach files (`noAttachFiles`), to change mid-test. */
    noAttachFiles: noAttach,
    /** Channels where the bot may not read the history (`noReadHistory`), to change mid-test. */
    noReadHistory: noHistory,
    /** The next `times` requests (after the token check) fail with `fault`. */
    inject(fault: DiscordFault, times = 1): void {
      for (let i = 0; i < times; i++) faults.push(fault);
    },
    /**
     * Resolves once `done()` holds, checked now and after each request the fake answers;
     * rejects after `withinMs` naming `what`.
     */
    until: waiters.until,
    /** Adds routes, tried before the fake's own (see `FakeRouter`). */
    extend(router: FakeRouter): void {
      routers.push(router);
    },
    /** Requests that got this status. */
    count(status: number): number {
      return calls.filter((c) => c.status === status).length;
    },
    async close(): Promise<void> {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type DiscordFake = Awaited<ReturnType<typeof startDiscordFake>>;

/**
 * The parts of a multipart/form-data body: the `payload_json` text and the files of the
 * `files[n]` parts, in order; undefined for any other body.
 */
async function formParts(
  raw: Buffer,
  contentType: string | undefined,
): Promise<{ json: string; files: FakeAttachment[] } | undefined> {
  if (!contentType?.startsWith('multipart/form-data')) return undefined;
  const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
  const files: FakeAttachment[] = [];
  for (const [name, value] of form.entries()) {
    if (!/^files\[\d+\]$/.test(name) || typeof value === 'string') continue;
    const bytes = new Uint8Array(await value.arrayBuffer());
    files.push({
      id: snowflake(),
      filename: value.name,
      content_type: value.type,
      size: bytes.length,
      bytes,
    });
  }
  const json = form.get('payload_json');
  return { json: typeof json === 'string' ? json : '', files };
}
