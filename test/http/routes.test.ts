/**
 * Routes mounted on the daemon's server by other parts (`POST /slack/events`, `GET` and
 * `POST` under `/unsubscribe/`): the server passes their requests on by method and path
 * (exact, or a prefix) and knows nothing else of them.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningHttpServer } from '../../src/http/server.js';
import type { HttpRoute } from '../../src/lib/http-route.js';
import { serveRoutes } from '../support/http-server.js';

let server: RunningHttpServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

function start(routes: HttpRoute[], requestTimeoutMs?: number) {
  return serveRoutes(routes, { requestTimeoutMs });
}

const echo: HttpRoute = {
  method: 'POST',
  path: '/slack/events',
  async handle(req, res) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`got ${Buffer.concat(chunks)}`);
  },
};

describe('mounted routes', () => {
  it('answers a POST to a mounted path with its handler', async () => {
    server = await start([echo]);
    const res = await fetch(`${server.url}/slack/events`, { method: 'POST', body: 'hello' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('got hello');
  });

  it('answers another method on a mounted path with 405 and the methods it takes', async () => {
    server = await start([echo]);
    const res = await fetch(`${server.url}/slack/events`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('keeps answering POST elsewhere with 405, and lists mounted paths on a 404', async () => {
    server = await start([echo]);
    const post = await fetch(`${server.url}/healthz`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const missing = await fetch(`${server.url}/nothing`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { endpoints: string[] }).endpoints).toContain(
      '/slack/events',
    );
  });

  it('answers 500 when a handler fails before answering', async () => {
    const failing: HttpRoute = {
      method: 'POST',
      path: '/discord/interactions',
      handle: async () => {
        throw new Error('boom');
      },
    };
    server = await start([failing]);
    const res = await fetch(`${server.url}/discord/interactions`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(500);
  });

  it('without routes, answers 405 to every POST as before', async () => {
    server = await start([]);
    expect((await fetch(`${server.url}/slack/events`, { method: 'POST' })).status).toBe(405);
  });

  it('cuts off a client that drips its request, with 408, instead of holding the socket', async () => {
    server = await start([echo], 300);
    const { port } = server;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write('POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\npart');
      });
      let got = '';
      socket.on('data', (d) => {
        got += d.toString();
      });
      socket.on('close', () => resolve(got));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });
});

describe('routes under a prefix', () => {
  const answer = (method: HttpRoute['method'], path: string, prefix?: boolean): HttpRoute => ({
    method,
    path,
    ...(prefix ? { prefix } : {}),
    async handle(req, res) {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`${method} ${path} ${req.url}`);
    },
  });

  it('take every path under the prefix, a GET answering HEAD too', async () => {
    server = await start([
      answer('GET', '/unsubscribe/', true),
      answer('POST', '/unsubscribe/', true),
    ]);
    const get = await fetch(`${server.url}/unsubscribe/abc.def`);
    expect(await get.text()).toBe('GET /unsubscribe/ /unsubscribe/abc.def');
    const post = await fetch(`${server.url}/unsubscribe/x?y=1`, { method: 'POST' });
    expect(await post.text()).toBe('POST /unsubscribe/ /unsubscribe/x?y=1');
    const head = await fetch(`${server.url}/unsubscribe/abc`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const put = await fetch(`${server.url}/unsubscribe/abc`, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, HEAD');
    expect((await fetch(`${server.url}/unsubscribe`)).status).toBe(404);
  });

  it('yield to a route on the exact path, and to a longer prefix', async () => {
    server = await start([
      answer('GET', '/a/', true),
      answer('GET', '/a/b/', true),
      answer('GET', '/a/b/c'),
    ]);
    expect(await (await fetch(`${server.url}/a/x`)).text()).toMatch(/^GET \/a\/ /);
    expect(await (await fetch(`${server.url}/a/b/x`)).text()).toMatch(/^GET \/a\/b\/ /);
    expect(await (await fetch(`${server.url}/a/b/c`)).text()).toMatch(/^GET \/a\/b\/c /);
  });

  it('leave the server its own paths, which no route may take', async () => {
    server = await start([answer('GET', '/unsubscribe/', true)]);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    for (const route of [
      answer('GET', '/healthz'),
      answer('POST', '/status'),
      answer('GET', '/', true),
      answer('GET', '/met', true),
      answer('GET', '/unsubscribe', true),
    ])
      await expect(start([route]), route.path).rejects.toThrow(/HTTP route/);
  });
});
