/**
 * Servers that never finish answering, on loopback. The HTTP one reads a request, sends
 * `200` and its headers, then one byte of body at once and another every `everyMs` on
 * its clock, for as long as the client stays (as a webhook receiver, or as the Slack or
 * Discord API). The SMTP one takes a message and then drips its reply to the data a
 * character at a time, never ending the line. Every timeout that watches one phase at a
 * time (connecting, the headers, the silence between two chunks) is satisfied; only a
 * total time limit ends such a request. With a `ManualClock`, a byte goes out each time
 * the test moves the clock past the next tick.
 */
import { createServer } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import type { Clock } from '../../src/lib/clock.js';

export interface DripReceiver {
  /** Base URL: `http://127.0.0.1:<port>`. */
  url: string;
  /** The body of each request, in arrival order. */
  bodies: string[];
  /** Requests the client is still connected for. */
  readonly open: number;
  /** Requests the client gave up on (closed its connection). */
  readonly abandoned: number;
  /** Bytes of answer sent, over all requests. */
  readonly bytes: number;
  close(): Promise<void>;
}

export async function startDripReceiver(options: {
  clock: Clock;
  everyMs: number;
}): Promise<DripReceiver> {
  const state = { open: 0, abandoned: 0, bytes: 0 };
  const bodies: string[] = [];
  const stop = new AbortController();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      state.open += 1;
      const gone = new AbortController();
      res.on('close', () => {
        state.open -= 1;
        if (!res.writableFinished) state.abandoned += 1;
        gone.abort();
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      const drip = async () => {
        const signal = AbortSignal.any([gone.signal, stop.signal]);
        while (!signal.aborted) {
          res.write(' ');
          state.bytes += 1;
          await options.clock.sleep(options.everyMs, signal);
        }
      };
      drip().catch(() => undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    get open() {
      return state.open;
    },
    get abandoned() {
      return state.abandoned;
    },
    get bytes() {
      return state.bytes;
    },
    close: () =>
      new Promise<void>((resolve) => {
        stop.abort();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Drips `text` (then spaces) onto `socket`, a character each `everyMs`, until it closes. */
async function dripOnto(
  socket: Socket,
  text: string,
  clock: Clock,
  everyMs: number,
  stop: AbortSignal,
) {
  const gone = new AbortController();
  socket.once('close', () => gone.abort());
  const signal = AbortSignal.any([gone.signal, stop]);
  for (let i = 0; !signal.aborted; i++) {
    socket.write(text[i] ?? ' ');
    await clock.sleep(everyMs, signal);
  }
}

export interface DripSmtp {
  /** `smtp://127.0.0.1:<port>`, no login. */
  url: string;
  /** Messages whose data arrived (their reply is then dripped). */
  readonly messages: number;
  /** Connections the client closed while the reply was dripping. */
  readonly abandoned: number;
  close(): Promise<void>;
}

/** An SMTP server that accepts a message's data and never finishes saying so. */
export async function startDripSmtp(options: { clock: Clock; everyMs: number }): Promise<DripSmtp> {
  const state = { messages: 0, abandoned: 0 };
  const stop = new AbortController();
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    let buffer = '';
    let data = false;
    let dripping = false;
    socket.on('close', () => {
      sockets.delete(socket);
      if (dripping) state.abandoned += 1;
    });
    socket.on('error', () => undefined);
    socket.write('220 drip ESMTP\r\n');
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      for (;;) {
        if (data) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          buffer = buffer.slice(end + 5);
          data = false;
          dripping = true;
          state.messages += 1;
          dripOnto(socket, '250 queued', options.clock, options.everyMs, stop.signal).catch(
            () => undefined,
          );
          return;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffer.slice(0, eol).toUpperCase();
        buffer = buffer.slice(eol + 2);
        if (line.startsWith('DATA')) {
          data = true;
          socket.write('354 go ahead\r\n');
        } else if (line.startsWith('QUIT')) socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    get messages() {
      return state.messages;
    },
    get abandoned() {
      return state.abandoned;
    },
    close: () =>
      new Promise<void>((resolve) => {
        stop.abort();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
