/**
 * A headless Chromium for tests that must see a page as a browser lays it out (how wide
 * an email is on a phone): one browser process, driven over the DevTools protocol on a
 * pipe (`--remote-debugging-pipe`, no port, no library), so a test opens many pages at
 * several sizes for the cost of one launch. Every command and the browser's whole life
 * are bounded: a hung browser fails the test and is killed, never waits for ever.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

/** The names Chromium goes by on Debian, Ubuntu, Fedora and Google's packages. */
const NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/**
 * The Chromium to test with: `PIPEWATCH_CHROMIUM` when set (it must run), else the first
 * of the usual names on PATH that answers `--version`; undefined when there is none.
 */
export function findChromium(): string | undefined {
  const set = process.env.PIPEWATCH_CHROMIUM;
  if (set) return set;
  return NAMES.find((name) => {
    const r = spawnSync(name, ['--version'], { timeout: 10_000, stdio: 'ignore' });
    return r.status === 0;
  });
}

/** A page of the browser, at one viewport size. */
export interface Page {
  /** Loads `url` at `width`×`height` CSS pixels (a phone's layout below 600 px). */
  open(url: string, width: number, height: number): Promise<void>;
  /** Runs `expression` in the page and returns its value, as JSON. */
  evaluate<T>(expression: string): Promise<T>;
  /** A PNG of the page from the top, at most `maxHeight` pixels tall. */
  screenshot(maxHeight: number): Promise<Buffer>;
}

interface Reply {
  id?: number;
  method?: string;
  sessionId?: string;
  result?: Record<string, unknown>;
  error?: { message: string };
}

/** The browser: `page()` gives a tab; `close()` ends the process, whatever state it is in. */
export interface Browser {
  page(): Promise<Page>;
  close(): Promise<void>;
}

/** Per command; a page load is one command and its load event. */
const COMMAND_MS = 15_000;

/**
 * Starts `executable` headless. The process is killed if it is still running
 * `lifetimeMs` after the start, so a hang ends the test with an error rather than
 * holding it until vitest gives up on it.
 */
export async function launchChromium(executable: string, lifetimeMs = 60_000): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'chromium-'));
  const child: ChildProcess = spawn(
    executable,
    [
      '--headless',
      '--disable-gpu',
      '--no-sandbox',
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-extensions',
      '--disable-background-networking',
      '--hide-scrollbars',
      '--remote-debugging-pipe',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], detached: true },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const kill = () => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  };
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  const lifetime = setTimeout(kill, lifetimeMs);
  lifetime.unref();

  const input = child.stdio[3] as Writable;
  const output = child.stdio[4] as Readable;
  // A browser that is gone shows as `gone`, with its reason, not as a stray pipe error.
  input.on('error', () => {});
  output.on('error', () => {});
  const waiting = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  const listeners = new Set<(r: Reply) => void>();
  let buffered = '';
  let gone: Error | undefined;
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let end = buffered.indexOf('\0');
    while (end >= 0) {
      const reply = JSON.parse(buffered.slice(0, end)) as Reply;
      buffered = buffered.slice(end + 1);
      end = buffered.indexOf('\0');
      if (reply.id !== undefined) waiting.get(reply.id)?.resolve(reply);
      else for (const l of listeners) l(reply);
    }
  });
  child.once('exit', (code, signal) => {
    gone = new Error(`chromium exited (${signal ?? code}): ${stderr.trim().slice(-800)}`);
    for (const w of waiting.values()) w.reject(gone);
  });
  child.once('error', (e) => {
    gone = new Error(`chromium did not start (${executable}): ${e.message}`);
    for (const w of waiting.values()) w.reject(gone);
  });

  let next = 0;
  const send = (method: string, params: object = {}, sessionId?: string) => {
    if (gone) return Promise.reject(gone);
    const id = ++next;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`chromium did not answer ${method} within ${COMMAND_MS} ms`));
      }, COMMAND_MS);
      waiting.set(id, {
        resolve: (r) => {
          clearTimeout(timer);
          waiting.delete(id);
          if (r.error) reject(new Error(`${method}: ${r.error.message}`));
          else resolve(r.result ?? {});
        },
        reject: (e) => {
          clearTimeout(timer);
          waiting.delete(id);
          reject(e);
        },
      });
      input.write(
        `${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`,
      );
    });
  };
  /** The next event `method` of `sessionId`, after `action` has been sent. */
  const eventAfter = async (method: string, sessionId: string, action: () => Promise<unknown>) => {
    let stop = () => {};
    const event = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`chromium sent no ${method} within ${COMMAND_MS} ms`)),
        COMMAND_MS,
      );
      const l = (r: Reply) => {
        if (r.method === method && r.sessionId === sessionId) {
          clearTimeout(timer);
          resolve();
        }
      };
      listeners.add(l);
      stop = () => {
        clearTimeout(timer);
        listeners.delete(l);
      };
    });
    try {
      await action();
      await event;
    } finally {
      stop();
    }
  };

  const browser: Browser = {
    async page() {
      const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
      const attached = await send('Target.attachToTarget', { targetId, flatten: true });
      const session = String(attached.sessionId);
      await send('Page.enable', {}, session);
      let size = { width: 0, height: 0 };
      const evaluate = async <T>(expression: string) => {
        const r = await send(
          'Runtime.evaluate',
          { expression, returnByValue: true, awaitPromise: true },
          session,
        );
        const details = r.exceptionDetails as { text?: string } | undefined;
        if (details) throw new Error(`in the page: ${details.text ?? 'an exception'}`);
        return (r.result as { value: T }).value;
      };
      return {
        evaluate,
        async open(url, width, height) {
          size = { width, height };
          await send(
            'Emulation.setDeviceMetricsOverride',
            { width, height, deviceScaleFactor: 1, mobile: width < 600 },
            session,
          );
          await eventAfter('Page.loadEventFired', session, () =>
            send('Page.navigate', { url }, session),
          );
        },
        async screenshot(maxHeight) {
          const full = await evaluate<number>('document.documentElement.scrollHeight');
          const height = Math.min(Math.max(full, size.height), maxHeight);
          const r = await send(
            'Page.captureScreenshot',
            {
              format: 'png',
              optimizeForSpeed: true,
              captureBeyondViewport: true,
              clip: { x: 0, y: 0, width: size.width, height, scale: 1 },
            },
            session,
          );
          return Buffer.from(String(r.data), 'base64');
        },
      };
    },
    async close() {
      clearTimeout(lifetime);
      if (!gone) await send('Browser.close').catch(() => {});
      const late = setTimeout(kill, 5_000);
      await exited;
      clearTimeout(late);
      rmSync(profile, { recursive: true, force: true });
    },
  };
  // The first answer says the pipe works, or why not (a browser that cannot start).
  await send('Browser.getVersion');
  return browser;
}
