/**
 * A Slack Web API on loopback, speaking the real wire format: `POST /api/<method>` with a
 * form-encoded or JSON body, `Authorization: Bearer xoxb-…` (or a `token` field), answers
 * `{ ok: true, … }` or `{ ok: false, error }` with HTTP 200. Posting and editing
 * (`chat.postMessage`, `chat.update`) are in `slack-messages.ts`: Slack's posting limit per
 * channel (a token bucket, in real time or on a clock it is given) with HTTP 429 and
 * `Retry-After`, and what Block Kit rejects (`slack-blocks.ts`). The other methods
 * (`auth.test`, `conversations.open`, `users.lookupByEmail`, and for the Slack app
 * `views.publish`, `users.conversations`, `conversations.info`, `chat.postEphemeral`) are
 * in `slack-methods.ts`; files upload v2 (`files.getUploadURLExternal`, the upload URL,
 * `files.completeUploadExternal`) in `slack-files.ts`, its upload URLs on the same port.
 * `apps.connections.open` takes only the app-level token, in the header, and hands out a
 * URL of the Socket Mode server on the same port (`slack-socket.ts`); response URLs are
 * served on the same port too (`slack-response-urls.ts`). The workspace has channels (by id and `#name`; some the bot
 * is not in, some archived, each with its members) and users (by id and email), which a
 * test may change. It fails on demand (`inject`) and keeps every accepted message.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWaiters } from '../support/waiters.js';
import { createFiles, type FakeFile } from './slack-files.js';
import { createMessaging } from './slack-messages.js';
import { createMethods, type FakeEphemeral, type FakeHomeView } from './slack-methods.js';
import {
  createResponseUrls,
  type FakeResponse,
  type ResponseUrlContext,
} from './slack-response-urls.js';
import { createSocketModeFake, type SocketModeFake } from './slack-socket.js';

export type { FakeFile } from './slack-files.js';
export type { FakeEphemeral, FakeHomeView } from './slack-methods.js';
export type { FakeResponse, ResponseUrlContext } from './slack-response-urls.js';

export interface FakeChannel {
  id: string;
  name: string;
  /** Whether the bot is in it (default true). */
  member?: boolean;
  archived?: boolean;
  /** A private channel: listed and described only while the bot is in it. */
  private?: boolean;
  /** The users in it (ids): whom `users.conversations` and `chat.postEphemeral` find there. */
  members?: string[];
}

export interface FakeUser {
  id: string;
  name: string;
  email: string;
}

export interface SlackFakeOptions {
  token?: string;
  /** The app-level token `apps.connections.open` takes (`xapp-…`). */
  appToken?: string;
  channels?: FakeChannel[];
  users?: FakeUser[];
  /** Posting limit per channel; default 1 a second with a burst of 3. */
  rate?: { perSecond: number; burst: number };
  /** The bot token's scopes, as the files methods check them; default `FAKE_SCOPES`. */
  scopes?: string[];
  /** Limit of each files method for the workspace; default Tier 4, 100 a minute, burst 20. */
  filesRate?: { perMinute: number; burst: number };
  /**
   * The time the posting limit runs on, messages are stamped with and response URLs
   * expire on; default real time. A test that paces on a manual clock gives the fake the
   * same one.
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
  /** Base URL of the Web API, ending in `/api/`: Bolt's and WebClient's `slackApiUrl`. */
  url: string;
  token: string;
  /** The app-level token (`xapp-…`) for Socket Mode. */
  appToken: string;
  /** The workspace every payload names. */
  team: { id: string; domain: string; name: string };
  /** The app every payload names. */
  appId: string;
  /** Channels by id, as they are now: a test may archive one, remove the bot, delete it. */
  channels: Map<string, FakeChannel>;
  users: FakeUser[];
  posts: FakeMessage[];
  updates: FakeMessage[];
  /** Every accepted `chat.postEphemeral`. */
  ephemerals: FakeEphemeral[];
  /** The home view each user sees now, by user id. */
  views: Map<string, FakeHomeView>;
  /** Every accepted `views.publish`, oldest first. */
  publishes: FakeHomeView[];
  /** Every POST to a response URL, accepted or refused. */
  responses: FakeResponse[];
  /** Every file shared by `files.completeUploadExternal`, oldest first. */
  uploads: FakeFile[];
  calls: FakeCall[];
  /** HTTP 429 answers so far. */
  readonly http429: number;
  /** The Socket Mode server `apps.connections.open` points at. */
  socket: SocketModeFake;
  /** A new response URL, as Slack puts in a command or an action payload. */
  responseUrl(context?: ResponseUrlContext): string;
  inject(fault: Fault): void;
  /** A message as it is now (after edits); undefined once deleted. */
  message(channel: string, ts: string): FakeMessage | undefined;
  /**
   * Resolves once `done()` holds, checked now and after each request the fake answers;
   * rejects after `withinMs` naming `what`.
   */
  until(what: string, done: () => boolean, withinMs: number): Promise<void>;
  close(): Promise<void>;
}

export const FAKE_TOKEN = 'xoxb-1234-5678-fakeSecretToken';
/** The app-level token Socket Mode opens its connection with. */
export const FAKE_APP_TOKEN = 'xapp-1-A0PIPEWATCH-1234-fakeAppLevelSecret';
/** The workspace the bot is installed in: `auth.test`'s team and every payload's `team_id`. */
export const FAKE_TEAM = { id: 'T0ACME', domain: 'acme-gas', name: 'Acme Gas' };
/** The app's id: every payload's `api_app_id`, and `hello`'s `connection_info.app_id`. */
export const FAKE_APP_ID = 'A0PIPEWATCH';
/** The bot's own user: the `user_id` of `auth.test`. */
export const FAKE_BOT_USER = 'U0BOT';

/** The bot token's scopes: those `slack-app-manifest.yaml` asks for. */
export const FAKE_SCOPES = [
  'chat:write',
  'commands',
  'im:write',
  'users:read',
  'users:read.email',
  'channels:read',
  'groups:read',
  'files:write',
];

export const FAKE_CHANNELS: FakeChannel[] = [
  { id: 'C0GAS', name: 'gas', members: ['U0ALICE', 'W0BOB'] },
  { id: 'C0OPS', name: 'ops', members: ['U0ALICE'] },
  { id: 'C0OUT', name: 'outside', member: false, members: ['U0ALICE'] },
  { id: 'C0OLD', name: 'old', archived: true, members: ['U0ALICE'] },
];

export const FAKE_USERS: FakeUser[] = [
  { id: 'U0ALICE', name: 'alice', email: 'alice@example.com' },
  { id: 'W0BOB', name: 'bob', email: 'bob@example.com' },
];

/** Request arguments, as parsed from a form or JSON body. */
export type Args = Record<string, unknown>;
/** An answer to a request: HTTP status (default 200), JSON body and extra headers. */
export type Answer = { status?: number; body: Args; headers?: Record<string, string> };

/** What the parts of the fake share: its workspace, its messages and its time. */
export interface SlackWorld {
  channels: Map<string, FakeChannel>;
  users: FakeUser[];
  messages: Map<string, FakeMessage>;
  /** Time for records: `performance.now()`, or the clock's milliseconds. */
  now(): number;
  /** Wall time in milliseconds: the clock's, or the system's. */
  wallNow(): number;
  nextTs(): string;
  team: { id: string; domain: string; name: string };
  appId: string;
  /** The bot's user id. */
  botUser: string;
}

export async function startSlackFake(options: SlackFakeOptions = {}): Promise<SlackFake> {
  const token = options.token ?? FAKE_TOKEN;
  const appToken = options.appToken ?? FAKE_APP_TOKEN;
  const rate = options.rate ?? { perSecond: 1, burst: 3 };
  const clock = options.clock;
  const now = () => (clock ? clock.now().getTime() : performance.now());
  const channels = new Map<string, FakeChannel>();
  for (const c of options.channels ?? FAKE_CHANNELS) {
    channels.set(c.id, { ...c, ...(c.members ? { members: [...c.members] } : {}) });
  }
  const users = [...(options.users ?? FAKE_USERS)];
  const messages = new Map<string, FakeMessage>();
  const faults: Fault[] = [];
  const calls: FakeCall[] = [];
  let http429 = 0;
  let seq = 0;
  let origin = '';

  const nextTs = () => {
    seq += 1;
    const micros = seq * 100;
    const seconds = 1_732_111_200 + Math.floor(micros / 1_000_000);
    return `${seconds}.${String(micros % 1_000_000).padStart(6, '0')}`;
  };
  const world: SlackWorld = {
    channels,
    users,
    messages,
    now,
    wallNow: () => (clock ? clock.now().getTime() : Date.now()),
    nextTs,
    team: FAKE_TEAM,
    appId: FAKE_APP_ID,
    botUser: FAKE_BOT_USER,
  };
  const messaging = createMessaging(world, rate);
  const { posts, updates } = messaging;
  const methods = createMethods(world);
  const filing = createFiles(world, {
    scopes: options.scopes ?? FAKE_SCOPES,
    perMinute: options.filesRate?.perMinute ?? 100,
    burst: options.filesRate?.burst ?? 20,
    origin: () => origin,
  });
  const { ephemerals, views, publishes } = methods;
  const respond = createResponseUrls(world, () => origin);
  const socket = createSocketModeFake({ appId: FAKE_APP_ID, origin: () => origin });
  const fail = (error: string, status = 200): Answer => ({ status, body: { ok: false, error } });

  function answer(method: string, args: Args): Answer {
    if (method === 'chat.postMessage') return messaging.postMessage(args);
    if (method === 'chat.update') return messaging.update(args);
    if (method === 'apps.connections.open') return { body: { ok: true, url: socket.issueUrl() } };
    if (method === 'files.getUploadURLExternal') return filing.getUploadURL(args);
    if (method === 'files.completeUploadExternal') return filing.complete(args);
    return methods.answer(method, args) ?? fail('unknown_method', 404);
  }

  /**
   * Who may call: the bot token (header or `token` field) for every method but
   * `apps.connections.open`, which takes only the app-level token and only in the header.
   */
  function authorize(method: string, header: string | undefined, field: unknown): Answer | null {
    if (method === 'apps.connections.open') {
      if (header === appToken) return null;
      return header === undefined && (field === undefined || field === '')
        ? fail('not_authed')
        : fail('invalid_auth');
    }
    const auth = header ?? field;
    if (auth === undefined || auth === '') return fail('not_authed');
    return auth === token ? null : fail('invalid_auth');
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, raw: string, path: string) {
    const contentType = String(req.headers['content-type'] ?? '');
    const method = path.replace(/^\/api\//, '');
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
    const header = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    let out: Answer;
    if (fault && (fault.status !== undefined || fault.error !== undefined)) {
      const status = fault.status ?? 200;
      out = fail(fault.error ?? (status === 429 ? 'ratelimited' : 'fatal_error'), status);
      if (fault.retryAfter !== undefined) out.headers = { 'retry-after': String(fault.retryAfter) };
    } else {
      out = authorize(method, header, args.token) ?? answer(method, args);
    }
    const status = out.status ?? 200;
    if (status === 429) http429 += 1;
    const error = out.body.ok === false ? String(out.body.error) : undefined;
    calls.push({ method, status, ...(error ? { error } : {}), contentType, at: now() });
    send(res, out);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    const raw = bytes.toString('utf8');
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const uploadTo = /^\/upload\/v1\/(\w+)$/.exec(path)?.[1];
    if (uploadTo !== undefined && req.method === 'POST') {
      const auth = req.headers.authorization === `Bearer ${token}`;
      const out = filing.receive(uploadTo, bytes, String(req.headers['content-type'] ?? ''), auth);
      calls.push({ method: 'upload', status: out.status ?? 200, contentType: '', at: now() });
      send(res, out);
      return;
    }
    const respondTo = /^\/respond\/([\w-]+)$/.exec(path)?.[1];
    if (respondTo !== undefined) {
      send(res, respond.handle(respondTo, req.method ?? 'GET', raw));
      return;
    }
    await handleApi(req, res, raw, path);
  }

  const waiters = createWaiters('Slack');
  const server = createServer((req, res) => {
    handle(req, res)
      .catch(() => res.destroy())
      .finally(() => {
        waiters.check();
      });
  });
  server.on('upgrade', (req, sock, head) => socket.upgrade(req, sock, head));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `127.0.0.1:${port}`;
  return {
    url: `http://${origin}/api/`,
    token,
    appToken,
    team: { ...FAKE_TEAM },
    appId: FAKE_APP_ID,
    channels,
    users,
    posts,
    updates,
    ephemerals,
    views,
    publishes,
    responses: respond.responses,
    uploads: filing.uploads,
    calls,
    get http429() {
      return http429;
    },
    socket,
    responseUrl: (context) => respond.issue(context),
    inject: (fault) => void faults.push({ ...fault }),
    message: (channel, ts) => messages.get(`${channel}/${ts}`),
    until: waiters.until,
    close: async () => {
      await socket.close();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

function send(res: ServerResponse, out: Answer): void {
  res.writeHead(out.status ?? 200, {
    'content-type': 'application/json; charset=utf-8',
    ...out.headers,
  });
  res.end(JSON.stringify(out.body));
}
