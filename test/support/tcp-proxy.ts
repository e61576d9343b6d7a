/**
 * A TCP proxy on loopback, between a client and a real server, that a test can cut:
 * `hang()` keeps the connections open and drops every byte (a host paused or a network
 * that silently lost it), `refuse()` closes every connection, old and new (a server
 * down), `drop()` closes the open ones once (a connection lost), `heal()` forwards again
 * (a connection that hung has lost bytes for good: only new ones work).
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** The proxy's port on 127.0.0.1. */
  readonly port: number;
  /** `url` with its host and port the proxy's. */
  via(url: string): string;
  hang(): void;
  /** Resolves when the next bytes are dropped while hung: the client has sent and waits. */
  swallowed(): Promise<void>;
  refuse(): void;
  drop(): void;
  heal(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(host: string, port: number): Promise<TcpProxy> {
  let mode: 'forward' | 'hang' | 'refuse' = 'forward';
  const onSwallow: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  };
  const server: Server = createServer((client) => {
    track(client);
    if (mode === 'refuse') {
      client.destroy();
      return;
    }
    const upstream = createConnection({ host, port });
    track(upstream);
    client.on('data', (chunk) => {
      if (mode === 'forward') upstream.write(chunk);
      else if (mode === 'hang') for (const resolve of onSwallow.splice(0)) resolve();
    });
    upstream.on('data', (chunk) => {
      if (mode === 'forward') client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const own = (server.address() as { port: number }).port;
  const dropAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    port: own,
    via(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(own);
      return u.toString();
    },
    hang() {
      mode = 'hang';
    },
    swallowed() {
      return new Promise((resolve) => onSwallow.push(resolve));
    },
    refuse() {
      mode = 'refuse';
      dropAll();
    },
    drop: dropAll,
    heal() {
      mode = 'forward';
    },
    async close() {
      dropAll();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
