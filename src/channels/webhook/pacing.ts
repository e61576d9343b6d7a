/**
 * Pacing of webhook requests: each URL is a target with a limit of its own, as the
 * hosted receivers limit each webhook (Slack about one a second, Discord five every two
 * seconds, both with short bursts, both answering 429 with `Retry-After` past that); and
 * the URLs of one host share a cap, so that a thousand subscribers' webhooks on one host
 * are reached in seconds without flooding it: at most `concurrent` requests in flight to
 * it and `perHost` a second (50, Discord's limit for everything one client sends it).
 * A URL waits its own turn first, then the host's, in the order requests came; the
 * buckets are kept on `clock` (real time unless a test gives its own). Idle URLs and
 * hosts are forgotten.
 */
import { type Clock, systemClock } from '../../lib/clock.js';
import { type PaceOptions, paceTurn } from '../pace.js';
import { DeliveryError, DeliveryErrorCode } from '../types.js';

/** How webhook requests are spread out. */
export interface WebhookPace {
  /** Requests a second to one URL, after a first one at once. */
  perUrl: number;
  /** Requests a second to one host, all its URLs together, after a first `concurrent`. */
  perHost: number;
  /** Requests in flight to one host at once. */
  concurrent: number;
}

/** What a webhook channel allows unless told otherwise. */
export const DEFAULT_WEBHOOK_PACE: WebhookPace = { perUrl: 5, perHost: 50, concurrent: 8 };

/** A request waiting for its host's turn. */
interface Waiter {
  go: () => void;
  fail: (reason: unknown) => void;
}

/** One host's share: requests in flight, its bucket, who waits, and whether a timer runs. */
class Host {
  inFlight = 0;
  bucket: number | undefined;
  readonly queue: Waiter[] = [];
  timed = false;
}

/** What a request called off while it waited its turn fails with: a temporary failure. */
function calledOff(reason: unknown): DeliveryError {
  if (reason instanceof DeliveryError) return reason;
  return new DeliveryError('webhook: stopped while waiting its turn', {
    code: DeliveryErrorCode.Aborted,
    permanent: false,
    cause: reason,
  });
}

/** Forget full buckets of URLs once there are this many more than at the last sweep. */
const SWEEP_EVERY = 1_024;

export class WebhookPacer {
  private readonly hosts = new Map<string, Host>();
  /** Each URL's bucket (see `paceTurn`). */
  private readonly urls = new Map<string, number>();
  private sweepAt = SWEEP_EVERY;
  private readonly closing = new AbortController();
  private readonly perUrl: PaceOptions;
  private readonly perHost: PaceOptions;

  constructor(
    private readonly pace: WebhookPace,
    private readonly clock: Clock = systemClock,
  ) {
    if (!(pace.perUrl > 0) || !(pace.perHost > 0) || !(pace.concurrent >= 1))
      throw new RangeError('webhook pacing needs perUrl > 0, perHost > 0 and concurrent >= 1');
    this.perUrl = { perSecond: pace.perUrl, burst: 1 };
    this.perHost = { perSecond: pace.perHost, burst: Math.floor(pace.concurrent) };
  }

  /**
   * Runs `send` once `url` and its `host` may take another request, and lets the next
   * go when it ends. An abort while waiting, or the pacer closing, fails it as called
   * off (`ABORTED`, temporary).
   */
  async run<T>(
    url: string,
    host: string,
    send: () => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    await this.urlTurn(url, signal);
    const share = this.hostOf(host);
    await this.hostTurn(share, signal);
    try {
      return await send();
    } finally {
      share.inFlight--;
      this.next(host, share);
    }
  }

  /** Calls off every wait; requests in flight run to their end. */
  close(): void {
    this.closing.abort(calledOff(new Error('the channel closed')));
    for (const share of this.hosts.values())
      for (const w of share.queue.splice(0)) w.fail(this.closing.signal.reason);
  }

  private signals(signal?: AbortSignal): AbortSignal {
    return signal ? AbortSignal.any([signal, this.closing.signal]) : this.closing.signal;
  }

  /** Waits until `url`'s bucket lets a request go, and takes it. */
  private async urlTurn(url: string, signal?: AbortSignal): Promise<void> {
    for (;;) {
      for (const s of [this.closing.signal, signal]) if (s?.aborted) throw calledOff(s.reason);
      const now = this.clock.now().getTime();
      const { waitMs, next } = paceTurn(this.urls.get(url), now, this.perUrl);
      if (waitMs <= 0) {
        this.urls.set(url, next);
        if (this.urls.size >= this.sweepAt) {
          for (const [key, at] of this.urls) if (at <= now) this.urls.delete(key);
          this.sweepAt = this.urls.size + SWEEP_EVERY;
        }
        return;
      }
      await this.clock.sleep(waitMs, this.signals(signal)).catch((reason: unknown) => {
        throw calledOff(reason);
      });
    }
  }

  private hostOf(host: string): Host {
    let share = this.hosts.get(host);
    if (!share) {
      share = new Host();
      this.hosts.set(host, share);
    }
    return share;
  }

  /** Queues for a place among `share`'s requests in flight and a turn of its bucket. */
  private hostTurn(share: Host, signal?: AbortSignal): Promise<void> {
    for (const s of [this.closing.signal, signal])
      if (s?.aborted) return Promise.reject(calledOff(s.reason));
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const at = share.queue.indexOf(waiter);
        if (at >= 0) share.queue.splice(at, 1);
        reject(calledOff(signal?.reason));
      };
      const waiter: Waiter = {
        go: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        fail: (reason) => {
          signal?.removeEventListener('abort', onAbort);
          reject(reason);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      share.queue.push(waiter);
      this.next(undefined, share);
    });
  }

  /**
   * Lets the first waiters of `share` go while it has room and its bucket allows; when
   * the bucket holds them back, looks again once it allows. A host with nothing left to
   * do (and `name`, when known) is forgotten once its bucket is full.
   */
  private next(name: string | undefined, share: Host): void {
    while (share.queue.length > 0 && share.inFlight < this.pace.concurrent) {
      const now = this.clock.now().getTime();
      const { waitMs, next } = paceTurn(share.bucket, now, this.perHost);
      if (waitMs > 0) {
        if (share.timed) return;
        share.timed = true;
        this.clock.sleep(waitMs, this.closing.signal).then(
          () => {
            share.timed = false;
            this.next(undefined, share);
          },
          () => {
            share.timed = false;
          },
        );
        return;
      }
      share.bucket = next;
      share.inFlight++;
      share.queue.shift()?.go();
    }
    if (
      name !== undefined &&
      share.queue.length === 0 &&
      share.inFlight === 0 &&
      !share.timed &&
      (share.bucket ?? 0) <= this.clock.now().getTime()
    )
      this.hosts.delete(name);
  }
}
