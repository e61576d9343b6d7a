/**
 * Slack's Socket Mode server, on the Slack fake's loopback port: `apps.connections.open`
 * hands out `ws://…/link/?ticket=…&app_id=…`, and a connection with a ticket it issued
 * is greeted with Slack's `hello`. A test then sends envelopes (`slash_commands`,
 * `interactive`, `events_api`: `envelope_id`, `payload`, `accepts_response_payload`, and
 * for events `retry_attempt` and `retry_reason`) and awaits the client's ack
 * (`{ envelope_id, payload? }`), sends Slack's `disconnect` message (`refresh_requested`,
 * `warning`, …) or drops the connection without a close frame, so reconnects can be
 * tested. Unknown tickets are refused with HTTP 401.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';

export type EnvelopeType = 'slash_commands' | 'interactive' | 'events_api';

/** A Socket Mode envelope, as Slack sends it. */
export interface SocketEnvelope {
  envelope_id: string;
  type: EnvelopeType;
  payload: Record<string, unknown>;
  accepts_response_payload: boolean;
  retry_attempt?: number;
  retry_reason?: string;
}

/** A client's acknowledgement of an envelope. */
export interface SocketAck {
  envelope_id: string;
  /** What the client answered with (a command's reply); absent when it sent none. */
  payload?: Record<string, unknown>;
  /** Which connection (1-based) it came over. */
  connection: number;
}

/** One WebSocket connection, open or closed. */
export interface SocketConnection {
  /** 1 for the first connection since the fake started. */
  index: number;
  ticket: string;
  open: boolean;
  /** The close code when closed: 1000 for a clean close, 1006 when dropped. */
  closeCode?: number;
  /** Every frame the client sent, parsed. */
  received: unknown[];
}

export type DisconnectReason =
  | 'refresh_requested'
  | 'warning'
  | 'link_disabled'
  | 'too_many_websockets';

export interface SocketModeFake {
  readonly connections: readonly SocketConnection[];
  /** Every ack received, oldest first. */
  readonly acks: readonly SocketAck[];
  /** Resolves once the `n`-th connection (default 1) has been greeted with `hello`. */
  connected(n?: number, timeoutMs?: number): Promise<SocketConnection>;
  /** Resolves once the `n`-th connection has closed. */
  closed(n: number, timeoutMs?: number): Promise<SocketConnection>;
  /** Sends an envelope over the newest open connection; returns its `envelope_id`. */
  send(envelope: Omit<SocketEnvelope, 'envelope_id'> & { envelope_id?: string }): string;
  /** Resolves with the ack of an envelope; rejects when none comes within `timeoutMs` (3 s, Slack's). */
  ackOf(envelopeId: string, timeoutMs?: number): Promise<SocketAck>;
  /** A slash command payload, acknowledged: `accepts_response_payload` true, as Slack sends. */
  command(payload: Record<string, unknown>, timeoutMs?: number): Promise<SocketAck>;
  /** An interaction payload (`block_actions`, …), acknowledged. */
  interactive(payload: Record<string, unknown>, timeoutMs?: number): Promise<SocketAck>;
  /** An `event_callback` payload, acknowledged; `retry` as Slack numbers a redelivery. */
  event(
    payload: Record<string, unknown>,
    options?: { retry?: { attempt: number; reason: string }; timeoutMs?: number },
  ): Promise<SocketAck>;
  /** Slack's `disconnect` message on the newest open connection; the client is to reconnect. */
  disconnect(reason?: DisconnectReason): void;
  /** Drops the newest open connection without a close frame, as a network failure would. */
  drop(): void;
  /** A new connection URL: what `apps.connections.open` answers. */
  issueUrl(): string;
  /** Takes an HTTP upgrade from the fake's server. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): Promise<void>;
}

const ACK_TIMEOUT_MS = 3000;

/** A Socket Mode server for the app `appId`, reached at the fake's `origin` (`host:port`). */
export function createSocketModeFake(options: {
  appId: string;
  origin: () => string;
}): SocketModeFake {
  const wss = new WebSocketServer({ noServer: true });
  const tickets = new Set<string>();
  const connections: SocketConnection[] = [];
  const sockets = new Map<SocketConnection, WebSocket>();
  const acks: SocketAck[] = [];
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of [...waiters]) w();
  };

  /** Resolves when `ready()` gives a value, checked now and after every change. */
  function when<T>(ready: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const check = () => {
        const value = ready();
        if (value === undefined) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(value);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`Socket Mode: no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  }

  function newest(): [SocketConnection, WebSocket] {
    for (let i = connections.length - 1; i >= 0; i--) {
      const c = connections[i]!;
      const ws = sockets.get(c);
      if (c.open && ws) return [c, ws];
    }
    throw new Error('Socket Mode: no open connection');
  }

  function accept(ws: WebSocket, ticket: string): void {
    const c: SocketConnection = { index: connections.length + 1, ticket, open: true, received: [] };
    connections.push(c);
    sockets.set(c, ws);
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      let frame: unknown;
      try {
        frame = JSON.parse(String(data));
      } catch {
        frame = String(data);
      }
      c.received.push(frame);
      if (typeof frame === 'object' && frame !== null && 'envelope_id' in frame) {
        const f = frame as { envelope_id: unknown; payload?: unknown };
        const payload = f.payload;
        acks.push({
          envelope_id: String(f.envelope_id),
          ...(typeof payload === 'object' && payload !== null
            ? { payload: payload as Record<string, unknown> }
            : {}),
          connection: c.index,
        });
      }
      wake();
    });
    ws.on('close', (code) => {
      c.open = false;
      c.closeCode = code;
      sockets.delete(c);
      wake();
    });
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: connections.filter((x) => x.open).length,
        debug_info: {
          host: 'applink-fake-1',
          build_number: 1,
          approximate_connection_time: 18060,
        },
        connection_info: { app_id: options.appId },
      }),
    );
    wake();
  }

  function send(envelope: Omit<SocketEnvelope, 'envelope_id'> & { envelope_id?: string }) {
    const [, ws] = newest();
    const id = envelope.envelope_id ?? randomUUID();
    ws.send(JSON.stringify({ ...envelope, envelope_id: id }));
    return id;
  }

  function ackOf(envelopeId: string, timeoutMs = ACK_TIMEOUT_MS): Promise<SocketAck> {
    return when(
      () => acks.find((a) => a.envelope_id === envelopeId),
      timeoutMs,
      `ack of ${envelopeId}`,
    );
  }

  return {
    connections,
    acks,
    connected: (n = 1, timeoutMs = 10_000) =>
      when(() => connections[n - 1], timeoutMs, `connection #${n}`),
    closed: (n, timeoutMs = 10_000) =>
      when(
        () => (connections[n - 1]?.open === false ? connections[n - 1] : undefined),
        timeoutMs,
        `close of connection #${n}`,
      ),
    send,
    ackOf,
    command: (payload, timeoutMs) =>
      ackOf(send({ type: 'slash_commands', payload, accepts_response_payload: true }), timeoutMs),
    interactive: (payload, timeoutMs) =>
      ackOf(
        send({
          type: 'interactive',
          payload,
          accepts_response_payload: payload.type === 'view_submission',
        }),
        timeoutMs,
      ),
    event: (payload, opts = {}) =>
      ackOf(
        send({
          type: 'events_api',
          payload,
          accepts_response_payload: false,
          retry_attempt: opts.retry?.attempt ?? 0,
          retry_reason: opts.retry?.reason ?? '',
        }),
        opts.timeoutMs,
      ),
    disconnect: (reason = 'refresh_requested') => {
      const [, ws] = newest();
      ws.send(
        JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'applink-fake-1' } }),
      );
    },
    drop: () => newest()[1].terminate(),
    issueUrl: () => {
      const ticket = randomUUID();
      tickets.add(ticket);
      return `ws://${options.origin()}/link/?ticket=${ticket}&app_id=${options.appId}`;
    },
    upgrade: (req, socket, head) => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const ticket = url.searchParams.get('ticket') ?? '';
      if (url.pathname !== '/link/' || !tickets.has(ticket)) {
        socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => accept(ws, ticket));
    },
    close: async () => {
      for (const ws of sockets.values()) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
