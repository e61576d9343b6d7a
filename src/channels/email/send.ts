/**
 * The email channel: rendered alerts sent through one pooled nodemailer SMTP transport
 * made from SMTP_URL, from EMAIL_FROM. The pool paces itself (`rateLimit` messages per
 * `rateDelta` window, PIPEWATCH_EMAIL_RATE per second) over at most `maxConnections`
 * connections (default 2). SMTP answers become typed failures: a 5xx reply is permanent
 * (503, a protocol-state hiccup, is not), a 4xx reply, a refused or dropped connection and
 * a timeout are temporary, a login refused or impossible is permanent; each failure says
 * its kind (`DeliveryErrorCode`) besides. The SMTP password
 * is scrubbed from every reason, error and log line this channel makes, and never sent
 * in clear text: an `smtp://` login requires STARTTLS (nodemailer's `requireTLS`), and a
 * server that offers none fails the delivery for good, unless `allowPlaintext` says the
 * server is a local relay. With `unsubscribe` set, each message carries a one-click
 * unsubscribe link for its recipients and the rules of its alerts (`unsubscribe.ts`).
 */
import { createTransport, type NodemailerError } from 'nodemailer';
import { redactor } from '../../lib/redact.js';
import { listHeaders, unsubscribeLink } from '../../unsubscribe/links.js';
import { mergeCapacityPayloads } from '../capacity.js';
import { chartsFor } from '../charts.js';
import { DEFAULT_DELIVERY_TIMEOUT_MS, deadlineFor, withDeadline } from '../deadline.js';
import { clip, oneLine } from '../text.js';
import {
  type Alert,
  type Channel,
  type ChannelDeps,
  type Delivered,
  DeliveryError,
  DeliveryErrorCode,
  type SendContext,
  type TargetOf,
} from '../types.js';
import { chartCid } from './html.js';
import { EMAIL_MAX_DIGEST, type EmailMessage, renderEmail } from './render.js';

/** Longest reason or detail, in characters. */
const TEXT_MAX = 300;

export interface EmailChannelOptions {
  /** `smtp://user:pass@host:port` (STARTTLS when offered) or `smtps://…` (TLS from the start). */
  smtpUrl: string;
  /** EMAIL_FROM: `alerts@example.com` or `pipewatch <alerts@example.com>`. */
  from: string;
  /** Most messages per second; `Infinity` for no limit. */
  ratePerSecond: number;
  /** Most SMTP connections open at once; default 2. */
  maxConnections?: number;
  /** Most alerts per message; default 20. */
  maxDigest?: number;
  /**
   * Total time of one message, connecting to the server's last reply, and the longest
   * wait for a connection, the greeting or any reply; default 30 s.
   */
  timeoutMs?: number;
  /**
   * SMTP_ALLOW_PLAINTEXT: an `smtp://` login may go without STARTTLS (a local relay).
   * Default false: it requires STARTTLS.
   */
  allowPlaintext?: boolean;
  /**
   * A certificate authority to trust besides Node's own (PEM), for a server with a
   * private certificate; a deployment sets `NODE_EXTRA_CA_CERTS` instead.
   */
  ca?: string;
  /**
   * Unsubscribe links: PIPEWATCH_PUBLIC_URL, and the key that signs them, read at each
   * send because the channels are built before the database that may keep it is open;
   * undefined while it is not known yet (the send is then retried).
   */
  unsubscribe?: { publicUrl: string; key: () => string | undefined } | undefined;
}

/** Why a login to a server without STARTTLS is refused, as the delivery's reason. */
export const NO_STARTTLS_REASON =
  'email: the server offers no STARTTLS; the password is not sent in clear text (set SMTP_ALLOW_PLAINTEXT=true for a local relay)';

/** Codes of failures that no retry mends: the login, the configuration, the envelope. */
const PERMANENT_CODES = new Set(['EAUTH', 'ENOAUTH', 'ECONFIG', 'EENVELOPE', 'EMAXRECIPIENTS']);

/** The kinds of nodemailer's codes, and of the socket errors it passes on. */
const EMAIL_CODES: ReadonlyMap<string, DeliveryErrorCode> = new Map([
  ['EAUTH', DeliveryErrorCode.Auth],
  ['ENOAUTH', DeliveryErrorCode.Auth],
  ['ECONFIG', DeliveryErrorCode.NotConfigured],
  ['EENVELOPE', DeliveryErrorCode.Rejected],
  ['EMAXRECIPIENTS', DeliveryErrorCode.Rejected],
  ['EMESSAGE', DeliveryErrorCode.Rejected],
  ['ETIMEDOUT', DeliveryErrorCode.Timeout],
  ['EABORT', DeliveryErrorCode.Aborted],
  ['ECONNECTION', DeliveryErrorCode.Network],
  ['ECONNREFUSED', DeliveryErrorCode.Network],
  ['ECONNRESET', DeliveryErrorCode.Network],
  ['ESOCKET', DeliveryErrorCode.Network],
  ['ETLS', DeliveryErrorCode.Network],
  ['EDNS', DeliveryErrorCode.Network],
  ['ENOTFOUND', DeliveryErrorCode.Network],
  ['EPROTOCOL', DeliveryErrorCode.ServerError],
]);

/** The email channel over a pooled SMTP transport. */
export function createEmailChannel(
  options: EmailChannelOptions,
  deps: ChannelDeps,
): Channel<'email'> {
  const url = parseSmtpUrl(options.smtpUrl);
  const secure = url.protocol === 'smtps:';
  const host = url.hostname;
  const port = Number(url.port) || (secure ? 465 : 587);
  const user = decodeURIComponent(url.username);
  const login = url.username !== '' || url.password !== '';
  // With implicit TLS (smtps) nodemailer ignores requireTLS; it matters for smtp:// only.
  const requireTLS = login && !(options.allowPlaintext ?? false);
  const where = { server: `${host}:${port}`, user };
  const scrub = redactor([options.smtpUrl, url.password, decodeURIComponent(url.password)]);
  const timeout = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
  const log = deps.logger.child({ channel: 'email' });
  const transporter = createTransport({
    pool: true,
    url: options.smtpUrl,
    maxConnections: options.maxConnections ?? 2,
    ...pacing(options.ratePerSecond),
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
    requireTLS,
    ...(options.ca ? { tls: { ca: options.ca } } : {}),
  });
  transporter.on('error', (err: Error) => {
    const { reason } = describe(err, where, scrub);
    log.warn({ reason }, `email transport error: ${reason}`);
  });

  return {
    kind: 'email',
    maxDigest: options.maxDigest ?? EMAIL_MAX_DIGEST,

    async send(target: TargetOf<'email'>, alerts: readonly Alert[], ctx: SendContext) {
      let list: Record<string, string> = {};
      let unsubscribeUrl: string | undefined;
      if (options.unsubscribe) {
        const { publicUrl, key } = options.unsubscribe;
        const secret = key();
        if (secret === undefined)
          throw new DeliveryError('email: the key of unsubscribe links is not ready yet', {
            code: DeliveryErrorCode.NotConfigured,
            permanent: false,
          });
        const payloads = alerts.map((a) => a.payload);
        unsubscribeUrl = unsubscribeLink(publicUrl, target.to, payloads, secret);
        list = listHeaders(publicUrl, unsubscribeUrl);
      }
      const merged = mergeCapacityPayloads(alerts.map((a) => a.payload));
      const charts = await chartsFor(merged, deps.charts, log);
      let message: EmailMessage;
      try {
        message = renderEmail(alerts, {
          from: options.from,
          now: ctx.now,
          unsubscribeUrl,
          charts,
        });
      } catch (err) {
        const why = oneLine(err instanceof Error ? err.message : String(err));
        throw new DeliveryError(clip(`email: cannot render: ${why}`, TEXT_MAX), {
          code: DeliveryErrorCode.Rejected,
          permanent: true,
        });
      }
      // The socket timeouts watch silence only: a server trickling its replies passes them.
      // The deadline counts the wait for a pooled connection too.
      const deadline = deadlineFor(
        'email',
        ctx,
        { ms: timeout, clock: deps.deadlineClock },
        where.server,
      );
      try {
        const info = await withDeadline(deadline, (signal) =>
          transporter.sendMail({
            from: options.from,
            to: target.to,
            subject: message.subject,
            text: message.text,
            html: message.html,
            messageId: message.messageId,
            ...(message.inReplyTo ? { inReplyTo: message.inReplyTo } : {}),
            ...(message.references ? { references: message.references } : {}),
            headers: { ...message.headers, ...list },
            attachments: charts.map((c) => ({
              filename: c.name,
              content: Buffer.from(c.png),
              contentType: 'image/png',
              cid: chartCid(c.name),
            })),
            date: new Date(ctx.now),
            signal,
          }),
        );
        const rejected = info.rejected.length > 0 ? ` rejected=${info.rejected.length}` : '';
        if (rejected)
          log.warn(
            { rejected: info.rejected },
            `email: recipients refused: ${info.rejected.join(', ')}`,
          );
        const detail = `ok ${info.messageId} accepted=${info.accepted.length}${rejected} ${oneLine(info.response)}`;
        return { detail: clip(scrub(detail), TEXT_MAX) } satisfies Delivered;
      } catch (err) {
        if (err instanceof DeliveryError) throw err;
        throw describe(err, where, scrub);
      }
    },

    async verify() {
      try {
        await transporter.verify();
      } catch (err) {
        throw describe(err, where, scrub);
      }
      const tls = secure ? 'TLS' : requireTLS ? 'STARTTLS required' : 'STARTTLS when offered';
      return `email: ${host}:${port}${user ? ` as ${user}` : ' without login'} (${tls})`;
    },

    async close() {
      transporter.close();
    },
  };
}

/** The URL, or an error that does not repeat it (Node's own carries the input). */
function parseSmtpUrl(smtpUrl: string): URL {
  try {
    return new URL(smtpUrl);
  } catch {
    throw new Error('email: SMTP_URL is not a valid URL');
  }
}

/**
 * nodemailer's pool pacing for a rate per second: `rateLimit` messages per `rateDelta`
 * milliseconds (2.5/s → 3 per 1200 ms, 0.2/s → 1 per 5000 ms).
 */
export function pacing(ratePerSecond: number): { rateLimit?: number; rateDelta?: number } {
  if (ratePerSecond === Number.POSITIVE_INFINITY) return {};
  if (!(ratePerSecond > 0)) throw new RangeError('ratePerSecond must be greater than 0');
  if (ratePerSecond < 1) return { rateLimit: 1, rateDelta: Math.round(1000 / ratePerSecond) };
  const rateLimit = Math.round(ratePerSecond);
  return { rateLimit, rateDelta: Math.round((1000 * rateLimit) / ratePerSecond) };
}

/** A nodemailer failure as a secret-free `DeliveryError`. */
function describe(
  err: unknown,
  where: { server: string; user: string },
  scrub: (t: string) => string,
): DeliveryError {
  const e = (typeof err === 'object' && err !== null ? err : {}) as NodemailerError;
  const message = oneLine(e.message ?? String(err));
  const code = e.code ?? '';
  const reply = e.responseCode;
  let reason: string;
  let permanent: boolean;
  let kind: DeliveryErrorCode;
  if (code === 'ETLS' && e.command === 'STARTTLS' && typeof reply === 'number') {
    // requireTLS asked for STARTTLS and the server refused the command: it has none.
    reason = NO_STARTTLS_REASON;
    permanent = true;
    kind = DeliveryErrorCode.NotConfigured;
  } else if (typeof reply === 'number' && reply >= 400) {
    permanent = typeof e.permanent === 'boolean' ? e.permanent : reply >= 500;
    kind =
      code === 'EAUTH'
        ? DeliveryErrorCode.Auth
        : permanent
          ? DeliveryErrorCode.Rejected
          : DeliveryErrorCode.ServerError;
    const response = oneLine(e.response ?? '') || `${reply} ${message}`;
    const who = e.rejected?.length ? ` (${e.rejected.join(', ')})` : '';
    const login = code === 'EAUTH' ? `login as ${where.user} refused: ` : '';
    reason = `email: ${login}${response}${who}`;
  } else {
    permanent = PERMANENT_CODES.has(code);
    const cause = e.originalCode ?? code;
    kind = EMAIL_CODES.get(code) ?? EMAIL_CODES.get(cause) ?? DeliveryErrorCode.Unknown;
    if (cause === 'ECONNREFUSED') reason = `email: connection refused by ${where.server}`;
    else if (code === 'ETIMEDOUT')
      reason = `email: timed out talking to ${where.server} (${e.timeoutType ?? 'reply'})`;
    else if (code === 'EABORT') reason = 'email: aborted';
    else reason = `email: ${code ? `${code} ` : ''}${message}`;
  }
  const safe = clip(scrub(reason), TEXT_MAX);
  // The cause keeps what helps to debug, scrubbed, and nothing else of the original error.
  const cause = Object.assign(new Error(scrub(message)), {
    code: code || undefined,
    responseCode: reply,
    // An AUTH command carries the credentials, base64-encoded.
    command: e.command ? (/^auth/i.test(e.command) ? 'AUTH' : scrub(e.command)) : undefined,
  });
  return new DeliveryError(safe, { code: kind, permanent, cause });
}
