/**
 * Reading a request body up to a limit, for the endpoints other services call (Slack's
 * and Discord's requests, unsubscribe links). A body declared or found larger is
 * discarded unread past the limit, so a client cannot make pipewatch hold megabytes it
 * will refuse.
 *
 * Until its signature is checked, a body is anyone's: a flood of forged requests, each
 * within the limit, would otherwise hold the limit times their number. So the bodies
 * read before they are trusted share one budget (`UnverifiedBodies`, one per HTTP
 * server): so many bytes and so many requests at once. A request is admitted whole or
 * not at all, before any of its body is read: its declared length (or, without one, the
 * whole limit) is set aside until it has been read, and a request beyond the budget is
 * turned away at once (`busy`: the endpoint answers 503 with `Retry-After`).
 */
import type { IncomingMessage } from 'node:http';

/** What reading a body gave: the bytes, more than the limit, no room now, or a client that went away. */
export type BodyRead = { raw: Buffer } | 'too-large' | 'busy' | 'aborted';

/** How much is given at once to bodies not yet trusted. */
export interface UnverifiedLimits {
  /** Bytes set aside for them, all together. */
  bytes: number;
  /** Requests whose bodies are being read. */
  requests: number;
}

/**
 * The default budget: 8 MiB and 64 requests. Slack's and Discord's requests are a few
 * kilobytes and come a few at a time; eight of the largest body taken (1 MiB) fit at once.
 */
export const UNVERIFIED_LIMITS: Readonly<UnverifiedLimits> = {
  bytes: 8 * 1024 * 1024,
  requests: 64,
};

/** What a request turned away for want of room is told to wait, in seconds. */
export const BUSY_RETRY_AFTER_S = 1;

/** What a request turned away for want of room is told. */
export const BUSY = 'too many requests are being read; try again';

/** The log line of a request turned away: how many so far, and the budget. */
export function turnedAway(path: string, bodies: UnverifiedBodies): string {
  const { bytes, requests } = bodies.limits;
  return `turned away a request to ${path} (${bodies.turnedAway} so far): bodies not yet verified may hold ${requests} requests and ${bytes} bytes at once`;
}

/** The bodies being read before they are trusted, within one budget. */
export class UnverifiedBodies {
  readonly limits: Readonly<UnverifiedLimits>;
  private reserved = 0;
  private reading = 0;
  private held = 0;
  private mostHeld = 0;
  private mostReading = 0;
  private refused = 0;

  constructor(limits: Partial<UnverifiedLimits> = {}) {
    this.limits = { ...UNVERIFIED_LIMITS, ...limits };
  }

  /** Bytes of unverified bodies held now, and the most ever held at once. */
  get buffered(): { now: number; peak: number } {
    return { now: this.held, peak: this.mostHeld };
  }

  /** Requests whose bodies are read now, and the most ever at once. */
  get requests(): { now: number; peak: number } {
    return { now: this.reading, peak: this.mostReading };
  }

  /** Requests turned away so far. */
  get turnedAway(): number {
    return this.refused;
  }

  /**
   * Whether the request just turned away is one to log: the first, and every hundredth
   * after it, so that a flood is seen in the log without writing a line per request.
   */
  worthLogging(): boolean {
    return this.refused === 1 || this.refused % 100 === 0;
  }

  /** Sets `bytes` aside for one request; false (and nothing set aside) when there is no room. */
  admit(bytes: number): boolean {
    const { limits } = this;
    if (this.reading >= limits.requests || this.reserved + bytes > limits.bytes) {
      this.refused += 1;
      return false;
    }
    this.reserved += bytes;
    this.reading += 1;
    this.mostReading = Math.max(this.mostReading, this.reading);
    return true;
  }

  /** Counts `bytes` received into a body admitted. */
  hold(bytes: number): void {
    this.held += bytes;
    this.mostHeld = Math.max(this.mostHeld, this.held);
  }

  /** Gives back what one request was given: `reserved` set aside, `held` received. */
  release(reserved: number, held: number): void {
    this.reserved -= reserved;
    this.held -= held;
    this.reading -= 1;
  }
}

/**
 * The body, up to `limit` bytes; beyond that the rest is discarded unread. Within
 * `budget` when given: `busy`, unread, when it has no room for the body.
 */
export function readBody(
  req: IncomingMessage,
  limit: number,
  budget?: UnverifiedBodies,
): Promise<BodyRead> {
  const declared = Number(req.headers['content-length']);
  const known = req.headers['content-length'] !== undefined && Number.isFinite(declared);
  if (known && declared > limit) {
    req.resume();
    return Promise.resolve('too-large');
  }
  const reserved = known ? declared : limit;
  if (budget && !budget.admit(reserved)) {
    req.resume();
    return Promise.resolve('busy');
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let held = 0;
    let settled = false;
    const settle = (read: BodyRead) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      budget?.release(reserved, held);
      resolve(read);
    };
    function onData(chunk: Buffer) {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        held += chunk.length;
        budget?.hold(chunk.length);
        return;
      }
      req.resume();
      settle('too-large');
    }
    req.on('data', onData);
    req.once('end', () => settle(size <= limit ? { raw: Buffer.concat(chunks) } : 'too-large'));
    // Whichever settles first counts: past the limit, or after a complete body, the
    // events that follow change nothing.
    req.once('error', () => settle('aborted'));
    req.once('close', () => settle('aborted'));
  });
}
