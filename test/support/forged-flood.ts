/**
 * A flood of forged requests to the daemon's HTTP port, as the test's and the bench's
 * attacker: all at once, each announcing and sending a body of `size` bytes with
 * signature headers of the right form (a timestamp of now, a signature of random bytes),
 * so that only the signature check itself can refuse them. They are sent from a worker
 * thread, an event loop of its own, so that what the server's loop does is measured, not
 * the sender's; or from a process of its own, so that the server's process alone has
 * what the process counts (CPU time, resident memory).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Worker } from 'node:worker_threads';

/** Where forged requests go and the headers that make them look signed. */
export interface FloodTarget {
  path: string;
  /** Sent as they are: content type, timestamp. */
  headers: Record<string, string>;
  /** The signature header, given `prefix` and `bytes` random bytes in hex. */
  signature: { header: string; prefix: string; bytes: number };
}

/** The targets of Slack's and Discord's endpoints, their timestamps `at` (unix seconds). */
export function signedLookingTargets(at: number): FloodTarget[] {
  return [
    {
      path: '/slack/events',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-slack-request-timestamp': String(at),
      },
      signature: { header: 'x-slack-signature', prefix: 'v0=', bytes: 32 },
    },
    {
      path: '/discord/interactions',
      headers: { 'content-type': 'application/json', 'x-signature-timestamp': String(at) },
      signature: { header: 'x-signature-ed25519', prefix: '', bytes: 64 },
    },
  ];
}

/** A flood, ready to go. */
export interface Flood {
  /** Resolves once the sender is ready: its thread and body made, nothing sent. */
  ready: Promise<void>;
  /** Sends every request at once. */
  go(): void;
  /** Resolves once every request has been started. */
  started: Promise<void>;
  /** How each request ended: by status (`"401"`, `"503"`) or connection error code. */
  done: Promise<Record<string, number>>;
}

const SENDER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { randomBytes } = require('node:crypto');
const send = parentPort ? (m) => parentPort.postMessage(m) : (m) => process.send(m);
const { url, count, size, targets } = workerData ?? JSON.parse(process.argv[1]);
const body = randomBytes(size);
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
(parentPort ?? process).once('message', () => {
  for (let i = 0; i < count; i++) one(i);
  send({ started: true });
});
send({ ready: true });
const counts = {};
let left = count;
function one(i) {
  const t = targets[i % targets.length];
  const headers = {
    ...t.headers,
    [t.signature.header]: t.signature.prefix + randomBytes(t.signature.bytes).toString('hex'),
    'content-length': String(size),
  };
  let settled = false;
  const settle = (outcome) => {
    if (settled) return;
    settled = true;
    counts[outcome] = (counts[outcome] || 0) + 1;
    if (--left === 0) {
      agent.destroy();
      send({ counts });
      if (!parentPort) process.disconnect();
    }
  };
  const req = http.request(url + t.path, { method: 'POST', headers, agent });
  req.on('response', (res) => {
    res.resume();
    settle(String(res.statusCode));
  });
  req.on('error', (error) => settle(error.code || 'error'));
  req.end(body);
}
`;

/**
 * Makes ready `count` forged requests of `size` bytes to `url`, spread over `targets`,
 * sent from a worker `thread` (default) or a `process`.
 */
export function forgedFlood(options: {
  url: string;
  count: number;
  size: number;
  targets: FloodTarget[];
  from?: 'thread' | 'process';
}): Flood {
  const { from = 'thread', ...data } = options;
  const sender: Worker | ChildProcess =
    from === 'thread'
      ? new Worker(SENDER, { eval: true, workerData: data })
      : spawn(process.execPath, ['-e', SENDER, JSON.stringify(data)], {
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        });
  const post = (m: string) => (sender instanceof Worker ? sender.postMessage(m) : sender.send(m));
  const stop = () => (sender instanceof Worker ? void sender.terminate() : sender.kill());
  let ready!: () => void;
  const readyP = new Promise<void>((resolve) => {
    ready = resolve;
  });
  let started!: () => void;
  const startedP = new Promise<void>((resolve) => {
    started = resolve;
  });
  const done = new Promise<Record<string, number>>((resolve, reject) => {
    sender.on('message', (m: { ready?: true; started?: true; counts?: Record<string, number> }) => {
      if (m.ready) ready();
      if (m.started) started();
      if (m.counts) {
        resolve(m.counts);
        stop();
      }
    });
    sender.once('error', reject);
    sender.once('exit', (code) => reject(new Error(`the flood's sender exited (${code})`)));
  });
  return { ready: readyP, go: () => post('go'), started: startedP, done };
}
