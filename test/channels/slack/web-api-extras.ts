/**
 * What the Slack app needs of Slack beyond the loopback fake (`test/fakes/slack.ts`),
 * on a loopback server of its own: the Web API methods the fake does not know
 * (`views.publish`, `users.conversations`) answered here with the fake's token, every
 * other method passed to the fake as it came, and response URLs (`/respond/<name>`)
 * that keep what is posted to them. A test waits for what arrives with `next`, which
 * settles as soon as it has come: no polling, no sleeps.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SlackFake } from '../../fakes/slack.js';

/** Something that arrived: a response URL post or a `views.publish` call. */
export interface Arrival {
  kind: 'respond' | 'views.publish' | 'users.conversations' | 'conversations.open';
  /** The response URL's name, or the method. */
  name: string;
  body: Record<string, unknown>;
}

export interface SlackExtras {
  /** Base URL of the Web API, ending in `/api/`: give it to the app as `apiUrl`. */
  url: string;
  /** A response URL that keeps what is posted to it under `name`. */
  responseUrl(name: string): string;
  arrivals: Arrival[];
  /**
   * The arrival of `kind` number `index` (from 0; default: the next one after those
   * already come), once it has come.
   */
  next(kind: Arrival['kind'], index?: number): Promise<Arrival>;
  close(): Promise<void>;
}

async function readAll(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function args(raw: string, contentType: string): Record<string, unknown> {
  if (contentType.includes('application/json')) return JSON.parse(raw || '{}');
  const form = Object.fromEntries(new URLSearchParams(raw)) as Record<string, unknown>;
  for (const key of ['view', 'blocks']) {
    if (typeof form[key] === 'string') form[key] = JSON.parse(form[key] as string);
  }
  return form;
}

/** Starts the extras in front of `fake`; `channelsOf` says which channels a user is in. */
export async function startSlackExtras(
  fake: SlackFake,
  channelsOf: Record<string, string[]> = {},
): Promise<SlackExtras> {
  const arrivals: Arrival[] = [];
  const waiters: Array<{ kind: Arrival['kind']; index: number; resolve: (a: Arrival) => void }> =
    [];
  const arrive = (a: Arrival) => {
    arrivals.push(a);
    for (const w of [...waiters]) {
      const matching = arrivals.filter((x) => x.kind === w.kind);
      if (matching.length > w.index) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(matching[w.index]!);
      }
    }
  };
  const server = createServer((req, res) => {
    (async () => {
      const raw = await readAll(req);
      const contentType = String(req.headers['content-type'] ?? '');
      const path = new URL(req.url ?? '/', 'http://extras').pathname;
      const send = (body: unknown): void => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      if (path.startsWith('/respond/')) {
        arrive({ kind: 'respond', name: path.slice('/respond/'.length), body: JSON.parse(raw) });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        return;
      }
      const method = path.replace(/^\/api\//, '');
      const authorized = req.headers.authorization === `Bearer ${fake.token}`;
      if (method === 'views.publish' || method === 'users.conversations') {
        if (!authorized) return send({ ok: false, error: 'invalid_auth' });
        const body = args(raw, contentType);
        arrive({ kind: method, name: method, body });
        if (method === 'views.publish') return send({ ok: true, view: { id: 'V0HOME' } });
        const ids = channelsOf[String(body.user)] ?? [];
        return send({ ok: true, channels: ids.map((id) => ({ id })), response_metadata: {} });
      }
      if (method === 'conversations.open')
        arrive({ kind: method, name: method, body: args(raw, contentType) });
      const forwarded = await fetch(`${fake.url}${method}`, {
        method: 'POST',
        headers: {
          'content-type': contentType,
          ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
        },
        body: raw,
      });
      res
        .writeHead(forwarded.status, { 'content-type': 'application/json' })
        .end(await forwarded.text());
      return undefined;
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/api/`,
    responseUrl: (name) => `${base}/respond/${name}`,
    arrivals,
    next(kind, index) {
      const at = index ?? arrivals.filter((a) => a.kind === kind).length;
      return new Promise((resolve) => {
        const came = arrivals.filter((x) => x.kind === kind)[at];
        if (came) resolve(came);
        else waiters.push({ kind, index: at, resolve });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
