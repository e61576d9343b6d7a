/**
 * The OAC charts of a capacity alert on Slack, shared as files after the alert's message
 * is posted: files upload v2, `files.getUploadURLExternal` for each chart, its bytes
 * POSTed to the URL Slack returns, then one `files.completeUploadExternal` that shares
 * them in the alert's conversation (and thread) with a comment naming the alert.
 *
 * A chart is extra, and the message is what counts: an upload starts only once the
 * message is posted, runs beside the send rather than in it (the send is delivered
 * whatever happens next, and its lane is not held while charts are drawn and uploaded),
 * and any failure of it is a warning in the log that names Slack's error (and the scope
 * the token lacks, for `missing_scope`). Nothing is retried: the alert went out.
 *
 * The files methods have limits per workspace, not per channel: both calls are paced on
 * one bucket each, at 20 a minute (Slack lists both methods in Tier 4, 100 a minute;
 * pacing at the Tier 2 rate leaves room under any tier Slack lists them in), and a 429
 * holds that method for its Retry-After.
 */
import type * as webApi from '@slack/web-api';
import type { AlertPayload } from '../../alerts/payload.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { redactPatterns } from '../../lib/redact.js';
import { type ChartImage, type ChartSource, chartsFor } from '../charts.js';
import { clip, oneLine } from '../text.js';
import { DeliveryErrorCode } from '../types.js';
import { failureOf } from './errors.js';
import { escapeText } from './escape.js';
import { fetchWithin } from './fetch-within.js';
import { type PaceOptions, Pacer } from './pacing.js';

/** What Slack allows each files method, per workspace, with room to spare (see above). */
export const FILES_PACE: PaceOptions = { perSecond: 20 / 60, burst: 5 };

/** Where the charts of one posted message go. */
export interface ChartShare {
  /** The target, for the log. */
  target: string;
  /** The conversation id the message was posted in (a channel or a DM). */
  channel: string;
  /** The thread the message was posted in, when it was. */
  threadTs?: string | undefined;
  payloads: readonly AlertPayload[];
}

export interface ChartUploadOptions {
  client: webApi.WebClient;
  token: string;
  /** The Web API's base URL, when not Slack's own: an upload URL on its host gets the token too. */
  apiUrl?: string | undefined;
  charts: ChartSource | undefined;
  timeoutMs: number;
  clock: Clock;
  deadlineClock?: Clock | undefined;
  log: Logger;
}

/** The charts of posted messages, uploaded one message at a time beside the sends. */
export class ChartUploads {
  private readonly pacer: Pacer;
  private readonly fetch: typeof fetch;
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly o: ChartUploadOptions) {
    this.pacer = new Pacer(FILES_PACE, o.clock, 'slack');
    this.fetch = fetchWithin(o.timeoutMs, o.deadlineClock);
  }

  /** Starts sharing the charts of a posted message; never throws, never rejects. */
  start(share: ChartShare): void {
    if (!this.o.charts || !share.payloads.some((p) => p.kind === 'capacity')) return;
    const run = this.share(share).catch((error: unknown) => this.warn(share, error));
    this.pending.add(run);
    void run.finally(() => this.pending.delete(run));
  }

  /**
   * Lets the uploads started finish, for at most one call's time limit, then calls off
   * those still waiting their turn and waits for the rest to end.
   */
  async close(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.o.timeoutMs);
      timer.unref();
    });
    await Promise.race([Promise.allSettled([...this.pending]), limit]);
    clearTimeout(timer);
    await this.pacer.close();
    await Promise.allSettled([...this.pending]);
  }

  private async share(share: ChartShare): Promise<void> {
    const charts = await chartsFor(share.payloads, this.o.charts, this.o.log);
    const [first, ...rest] = charts;
    if (!first) return;
    const files: webApi.FilesCompleteUploadExternalArguments['files'] = [
      await this.upload(first, share),
      ...(await this.each(rest, share)),
    ];
    const where = share.threadTs
      ? { channel_id: share.channel, thread_ts: share.threadTs }
      : { channel_id: share.channel };
    await this.call('files.completeUploadExternal', share, () =>
      this.o.client.files.completeUploadExternal({
        ...where,
        files,
        initial_comment: comment(share.payloads),
      }),
    );
    this.o.log.info(
      { target: share.target, channel: share.channel, files: charts.length },
      `slack: shared ${charts.length} OAC chart${charts.length === 1 ? '' : 's'} with ${share.target}`,
    );
  }

  private async each(
    charts: readonly ChartImage[],
    share: ChartShare,
  ): Promise<Array<{ id: string; title: string }>> {
    const out: Array<{ id: string; title: string }> = [];
    for (const c of charts) out.push(await this.upload(c, share));
    return out;
  }

  /** One call of a files method on its bucket; a 429 holds the method for its Retry-After. */
  private async call<T>(method: string, share: ChartShare, fn: () => Promise<T>): Promise<T> {
    return this.pacer.run(method, async () => {
      try {
        return await fn();
      } catch (error) {
        const failure = failureOf(error, share.target, this.o.timeoutMs);
        if (failure.code === DeliveryErrorCode.RateLimited)
          this.pacer.pause(method, failure.retryAfterMs ?? 1000);
        throw error;
      }
    });
  }

  /** One chart: an upload URL and a file id for it, then its bytes to that URL. */
  private async upload(
    chart: ChartImage,
    share: ChartShare,
  ): Promise<{ id: string; title: string }> {
    // Slack's argument is `alt_txt` (the client's type says `alt_text`).
    const args = { filename: chart.name, length: chart.png.byteLength, alt_txt: chart.alt };
    const got = await this.call('files.getUploadURLExternal', share, () =>
      this.o.client.files.getUploadURLExternal(args as webApi.FilesGetUploadURLExternalArguments),
    );
    if (!got.upload_url || !got.file_id) throw new Error('no upload_url or file_id in the answer');
    const res = await this.fetch(got.upload_url, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', ...this.auth(got.upload_url) },
      body: chart.png,
      redirect: 'error',
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status !== 200) throw new Error(`the upload URL answered HTTP ${res.status}`);
    return { id: got.file_id, title: clip(`OAC, ${chart.pipeline} ${chart.location}`, 100) };
  }

  /** The bot token, for an upload URL on Slack's hosts or the Web API's own; no other host. */
  private auth(url: string): Record<string, string> {
    const host = new URL(url).hostname;
    const api = this.o.apiUrl ? new URL(this.o.apiUrl).hostname : 'slack.com';
    const slack = host === 'slack.com' || host.endsWith('.slack.com');
    return slack || host === api ? { authorization: `Bearer ${this.o.token}` } : {};
  }

  /** A failed share as a warning: Slack's error, the scope the token lacks, the wait a 429 asks. */
  private warn(share: ChartShare, error: unknown): void {
    const failure = failureOf(error, share.target, this.o.timeoutMs);
    const needed = neededScope(error);
    // Errors of its own (no upload URL, the upload refused) say what went wrong.
    const own = failure.code === DeliveryErrorCode.Unknown && error instanceof Error;
    const reason = own
      ? clip(oneLine(redactPatterns(`slack: ${error.message}`)), 200)
      : failure.message;
    const scope = needed ? ` (the Slack app needs the ${needed} scope)` : '';
    this.o.log.warn(
      { target: share.target, channel: share.channel, reason, ...(needed ? { needed } : {}) },
      `slack: the alert was posted, its OAC chart was not: ${reason}${scope}`,
    );
  }
}

/** `files:write`, from a `missing_scope` answer's `needed` (codes only: no free text). */
function neededScope(error: unknown): string | undefined {
  const data = (error as { data?: { error?: unknown; needed?: unknown } } | undefined)?.data;
  if (data?.error !== 'missing_scope' || typeof data.needed !== 'string') return undefined;
  const scopes = data.needed.replace(/[^a-z:._,-]/gi, '').slice(0, 80);
  return scopes === '' ? undefined : scopes;
}

/** The comment the charts are shared with: which alert they belong to. */
function comment(payloads: readonly AlertPayload[]): string {
  const capacity = payloads.filter((p) => p.kind === 'capacity');
  const rules = [...new Set(capacity.map((p) => p.rule))].join(', ');
  const states = [...new Set(capacity.map((p) => p.state))].join(', ');
  return clip(escapeText(`OAC chart for capacity alert ${rules} (${states})`), 300);
}
