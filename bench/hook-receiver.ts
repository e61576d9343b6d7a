/**
 * A webhook receiver for the delivery benchmark, in a process of its own so that its
 * work is not counted as pipewatch's: it answers every POST with 204 and keeps when each
 * path was first reached (milliseconds of the epoch). `GET /arrivals` gives them as JSON,
 * `{ count, paths: { "/hook/7": 1763650800123, … } }`. It prints its port on its first line.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const arrivals = new Map<string, number>();
let count = 0;
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/arrivals') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ count, paths: Object.fromEntries(arrivals) }));
    return;
  }
  req.resume();
  req.on('end', () => {
    count += 1;
    const path = req.url ?? '/';
    if (!arrivals.has(path)) arrivals.set(path, Date.now());
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
