/**
 * The dead man's switch against a receiver on loopback: `<url>` after a success,
 * `<url>/fail` after a failure, each request bounded and never piled up, and a receiver
 * that refuses or does not answer is a warning that names its host only.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningHttpServer } from '../../src/http/server.js';
import { failUrl, Heartbeat, heartbeatLabel } from '../../src/lib/heartbeat.js';
import { createLogger } from '../../src/lib/logger.js';
import { serveRoutes } from '../support/http-server.js';

let server: RunningHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A receiver of pings under `/ping/`: what it was asked, answering `status` (or never). */
async function receiver(answer: { status?: number; hang?: boolean } = {}) {
  const paths: string[] = [];
  const hung: ServerResponse[] = [];
  server = await serveRoutes([
    {
      method: 'GET',
      path: '/ping/',
      prefix: true,
      handle: async (req: IncomingMessage, res: ServerResponse) => {
        paths.push(req.url ?? '');
        if (answer.hang) {
          hung.push(res);
          return new Promise<void>((resolve) => res.on('close', resolve));
        }
        res.writeHead(answer.status ?? 200, { 'content-type': 'text/plain' });
        res.end('OK');
      },
    },
  ]);
  return {
    url: server.url,
    paths,
    release: () => {
      for (const r of hung) r.destroy();
    },
  };
}

function logged() {
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = createLogger({
    level: 'debug',
    destination: new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  });
  return { logger, lines, warnings: () => lines.filter((l) => l.level === 40).map((l) => l.msg) };
}

describe('the heartbeat', () => {
  it('requests the URL after a success and <url>/fail after a failure, query kept', async () => {
    const r = await receiver();
    const { logger, warnings } = logged();
    const beat = new Heartbeat(`${r.url}/ping/0b1d-uuid?rid=7`, { logger });
    beat.beat(true);
    await beat.flush();
    beat.beat(false);
    await beat.flush();
    expect(r.paths).toEqual(['/ping/0b1d-uuid?rid=7', '/ping/0b1d-uuid/fail?rid=7']);
    expect(warnings()).toEqual([]);
  });

  it('warns when the receiver refuses, naming its scheme and host only', async () => {
    const r = await receiver({ status: 404 });
    const { logger, lines, warnings } = logged();
    const beat = new Heartbeat(`${r.url}/ping/SECRET-check-token`, { logger });
    beat.beat(true);
    await beat.flush();
    const host = new URL(r.url).host;
    expect(warnings()).toEqual([
      `heartbeat to http://${host}/… was answered 404: check PIPEWATCH_HEARTBEAT_URL`,
    ]);
    expect(JSON.stringify(lines)).not.toContain('SECRET-check-token');
  });

  it('gives up on a receiver that does not answer, and never piles requests up', async () => {
    const r = await receiver({ hang: true });
    const { logger, warnings } = logged();
    const beat = new Heartbeat(`${r.url}/ping/uuid`, { logger, timeoutMs: 300 });
    const started = performance.now();
    for (let i = 0; i < 5; i++) beat.beat(i % 2 === 0);
    await beat.flush();
    r.release();
    // The first, then only the latest of those asked for while it hung.
    expect(r.paths).toEqual(['/ping/uuid', '/ping/uuid']);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(warnings()).toEqual([
      expect.stringMatching(
        /^heartbeat to http:\/\/127\.0\.0\.1:\d+\/… could not be sent \(no answer within 300 ms\); the next poll pings again$/,
      ),
      expect.stringMatching(/^heartbeat to http:\/\/127\.0\.0\.1:\d+\/… could not be sent/),
    ]);
  });

  it('returns at once: the caller never waits for the receiver', async () => {
    const r = await receiver({ hang: true });
    const { logger } = logged();
    const beat = new Heartbeat(`${r.url}/ping/uuid`, { logger, timeoutMs: 300 });
    // Nothing to await: the call is over while the receiver still hangs.
    expect(beat.beat(true)).toBeUndefined();
    await beat.flush();
    r.release();
  });

  it("shows and fails URLs as Healthchecks and Dead Man's Snitch expect", () => {
    expect(failUrl('https://hc-ping.com/abc/')).toBe('https://hc-ping.com/abc/fail');
    expect(failUrl('https://hc-ping.com/key/my-check')).toBe(
      'https://hc-ping.com/key/my-check/fail',
    );
    expect(failUrl('https://nosnch.in/c2354d53d2')).toBe('https://nosnch.in/c2354d53d2?s=1');
    expect(heartbeatLabel('https://hc-ping.com/abc')).toBe('https://hc-ping.com/…');
  });
});
