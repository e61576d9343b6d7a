/**
 * Slack's side of Socket Mode on loopback, as small as the app needs: the Web API's
 * `apps.connections.open` (the app-level token in `Authorization: Bearer xapp-…`)
 * answering a `ws://` URL, and there a WebSocket (RFC 6455: the handshake, unmasked
 * text frames out, masked frames in, pings answered) that says `hello`, sends envelopes
 * the test writes, and keeps the acknowledgements the app sends back. Every other Web API
 * method is passed to the Slack fake.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

type Json = Record<string, unknown>;

export interface SocketLink {
  /** Base URL of the Web API, ending in `/api/`. */
  apiUrl: string;
  /** The `Authorization` header of each `apps.connections.open` call. */
  opened: string[];
  /** Sends an envelope (`{ envelope_id, type, payload, … }`) to the connected app. */
  send(envelope: Json): void;
  /** The acknowledgement of `envelopeId`, once the app has sent it. */
  ack(envelopeId: string): Promise<Json>;
  /** Whether the app is connected. */
  readonly connected: boolean;
  close(): Promise<void>;
}

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

function frame(opcode: number, payload: Buffer): Buffer {
  const n = payload.length;
  const head =
    n < 126
      ? Buffer.from([0x80 | opcode, n])
      : n < 65536
        ? Buffer.from([0x80 | opcode, 126, n >> 8, n & 0xff])
        : Buffer.concat([Buffer.from([0x80 | opcode, 127]), bigLength(n)]);
  return Buffer.concat([head, payload]);
}

function bigLength(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}

/** Reads whole frames off `buffer`; returns them and what is left. */
function frames(buffer: Buffer): { out: Array<{ opcode: number; payload: Buffer }>; rest: Buffer } {
  const out: Array<{ opcode: number; payload: Buffer }> = [];
  let at = 0;
  while (buffer.length - at >= 2) {
    const opcode = buffer[at]! & 0x0f;
    const masked = (buffer[at + 1]! & 0x80) !== 0;
    let length = buffer[at + 1]! & 0x7f;
    let offset = at + 2;
    if (length === 126) {
      if (buffer.length < offset + 2) break;
      length = buffer.readUInt16BE(offset);
      offset += 2;
    } else if (length === 127) {
      if (buffer.length < offset + 8) break;
      length = Number(buffer.readBigUInt64BE(offset));
      offset += 8;
    }
    const maskAt = offset;
    if (masked) offset += 4;
    if (buffer.length < offset + length) break;
    const payload = Buffer.from(buffer.subarray(offset, offset + length));
    if (masked) for (let i = 0; i < length; i += 1) payload[i]! ^= buffer[maskAt + (i % 4)]!;
    out.push({ opcode, payload });
    at = offset + length;
  }
  return { out, rest: buffer.subarray(at) };
}

async function readAll(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the link; `appToken` is the only one `apps.connections.open` takes. */
export async function startSocketLink(appToken: string, forwardTo: string): Promise<SocketLink> {
  const opened: string[] = [];
  const acks = new Map<string, Json>();
  const waiting = new Map<string, (ack: Json) => void>();
  let socket: Socket | undefined;
  const server = createServer((req, res) => {
    (async () => {
      const raw = await readAll(req);
      const method = new URL(req.url ?? '/', 'http://link').pathname.replace(/^\/api\//, '');
      if (method === 'apps.connections.open') {
        const auth = String(req.headers.authorization ?? '');
        opened.push(auth);
        const body =
          auth === `Bearer ${appToken}`
            ? { ok: true, url: `ws://127.0.0.1:${port}/link` }
            : { ok: false, error: 'invalid_auth' };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        return;
      }
      const forwarded = await fetch(`${forwardTo}${method}`, {
        method: 'POST',
        headers: {
          'content-type': String(req.headers['content-type'] ?? ''),
          authorization: String(req.headers.authorization ?? ''),
        },
        body: raw,
      });
      res.writeHead(forwarded.status, { 'content-type': 'application/json' });
      res.end(await forwarded.text());
    })().catch(() => res.destroy());
  });
  server.on('upgrade', (req, sock: Socket) => {
    const key = String(req.headers['sec-websocket-key'] ?? '');
    const accept = createHash('sha1')
      .update(key + GUID)
      .digest('base64');
    sock.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    socket = sock;
    let pending: Buffer = Buffer.alloc(0);
    sock.on('data', (chunk: Buffer) => {
      const { out, rest } = frames(Buffer.concat([pending, chunk]));
      pending = rest;
      for (const f of out) {
        if (f.opcode === 0x9) sock.write(frame(0xa, f.payload));
        else if (f.opcode === 0x8) {
          sock.end(frame(0x8, f.payload.subarray(0, 2)));
          socket = undefined;
        } else if (f.opcode === 0x1) {
          const ack = JSON.parse(f.payload.toString('utf8')) as Json;
          const id = String(ack.envelope_id);
          acks.set(id, ack);
          waiting.get(id)?.(ack);
        }
      }
    });
    sock.on('error', () => undefined);
    sock.on('close', () => {
      if (socket === sock) socket = undefined;
    });
    const hello = { type: 'hello', num_connections: 1, connection_info: { app_id: 'A0PIPEWATCH' } };
    sock.write(frame(0x1, Buffer.from(JSON.stringify(hello))));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    opened,
    send(envelope) {
      if (!socket) throw new Error('no app is connected');
      socket.write(frame(0x1, Buffer.from(JSON.stringify(envelope))));
    },
    ack: (id) =>
      new Promise((resolve) => {
        const known = acks.get(id);
        if (known) resolve(known);
        else waiting.set(id, resolve);
      }),
    get connected() {
      return socket !== undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        socket?.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
