/**
 * A real SMTP server on loopback (the `smtp-server` package) for the email channel's tests
 * and benchmark. It requires a login (PLAIN or LOGIN, user and password checked) and
 * offers STARTTLS with a certificate made for the test (`ca` is what a client trusts);
 * with `starttls: false` it offers none, as a local relay might. Either way it takes a
 * login in clear text, like the servers a password must not be sent to, and records
 * whether each login came over TLS. Accepted messages are parsed with `mailparser` and
 * kept with their envelope; `reject` makes the server refuse the coming messages with a
 * chosen reply at a chosen step.
 */
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { selfSignedCertificate } from './certificate.js';

export interface SmtpFakeOptions {
  user?: string;
  pass?: string;
  /** Parse messages with mailparser (default); off, only the raw text is kept. */
  parse?: boolean;
  /** Offer STARTTLS (default); `false`: plain text only, as a local relay. */
  starttls?: boolean;
}

/** A login attempt as the server saw it. */
export interface SmtpLogin {
  user: string;
  /** It came over TLS (after STARTTLS). */
  secure: boolean;
}

/** A reply the server gives instead of accepting. */
export interface SmtpFault {
  /** `550`, `451` … */
  code: number;
  message: string;
  /** The command refused: `mail` (MAIL FROM), `rcpt` (RCPT TO, the default) or `data`. */
  stage?: 'mail' | 'rcpt' | 'data';
  /** Only this recipient (RCPT); default every recipient. */
  recipient?: string;
  /** How many messages (or recipients, at `rcpt`) it applies to; default 1. */
  times?: number;
}

/** One message as the server received it. */
export interface ReceivedMail {
  envelope: { from: string; to: string[] };
  raw: string;
  /** `undefined` when the fake was started with `parse: false`. */
  parsed: ParsedMail | undefined;
}

export interface SmtpFake {
  /** `smtp://user:pass@127.0.0.1:port`. */
  url: string;
  host: string;
  port: number;
  user: string;
  pass: string;
  /** PEM of the certificate STARTTLS presents, for a client to trust. */
  ca: string;
  /** Every login attempt, accepted or not. */
  logins: SmtpLogin[];
  messages: ReceivedMail[];
  /** Connections: opened in all, open now, most open at once. */
  connections: { total: number; open: number; maxOpen: number };
  /** Refuse coming commands as `fault` says. */
  reject(fault: SmtpFault): void;
  /** Resolves once `count` messages have arrived in all. */
  waitFor(count: number): Promise<void>;
  close(): Promise<void>;
}

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/** Starts the server on 127.0.0.1 on a free port. */
export async function startSmtpFake(options: SmtpFakeOptions = {}): Promise<SmtpFake> {
  const user = options.user ?? 'pipewatch';
  const pass = options.pass ?? 'S3cret-pa55word!';
  const parse = options.parse ?? true;
  const starttls = options.starttls ?? true;
  const certificate = selfSignedCertificate();
  const logins: SmtpLogin[] = [];
  const messages: ReceivedMail[] = [];
  const faults: Array<
    Required<Pick<SmtpFault, 'code' | 'message' | 'stage' | 'times'>> & SmtpFault
  > = [];
  const connections = { total: 0, open: 0, maxOpen: 0 };
  const waiters: Array<{ count: number; resolve: () => void }> = [];

  const take = (stage: SmtpFault['stage'], recipient?: string): Error | undefined => {
    const i = faults.findIndex(
      (f) => f.stage === stage && (f.recipient === undefined || f.recipient === recipient),
    );
    const f = faults[i];
    if (!f) return undefined;
    f.times -= 1;
    if (f.times <= 0) faults.splice(i, 1);
    return smtpError(f.code, f.message);
  };
  const arrived = () => {
    for (const w of waiters.filter((w) => messages.length >= w.count)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };

  const server = new SMTPServer({
    secure: false,
    ...(starttls ? { key: certificate.key, cert: certificate.cert } : {}),
    disabledCommands: starttls ? [] : ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    closeTimeout: 100,
    disableReverseLookup: true,
    size: 25 * 1024 * 1024,
    onConnect(_session, callback) {
      connections.total += 1;
      connections.open += 1;
      connections.maxOpen = Math.max(connections.maxOpen, connections.open);
      callback();
    },
    onClose() {
      connections.open -= 1;
    },
    onAuth(auth, session, callback) {
      logins.push({ user: auth.username ?? '', secure: session.secure });
      if (auth.username === user && auth.password === pass) {
        callback(null, { user: auth.username });
      } else {
        callback(smtpError(535, 'Authentication credentials invalid'));
      }
    },
    onMailFrom(_address, _session, callback) {
      callback(take('mail'));
    },
    onRcptTo(address, _session, callback) {
      callback(take('rcpt', address.address));
    },
    onData(stream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const fault = take('data');
        if (fault) {
          callback(fault);
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
        };
        const done = (parsed: ParsedMail | undefined) => {
          messages.push({ envelope, raw, parsed });
          callback(null, 'OK: message queued');
          arrived();
        };
        if (!parse) done(undefined);
        else simpleParser(raw).then(done, (err: Error) => callback(err));
      });
    },
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  const host = '127.0.0.1';
  const port = address.port;

  return {
    url: `smtp://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@${host}:${port}`,
    host,
    port,
    user,
    pass,
    ca: certificate.cert,
    logins,
    messages,
    connections,
    reject(fault) {
      faults.push({ stage: 'rcpt', times: 1, ...fault });
    },
    waitFor(count) {
      return new Promise<void>((resolve) => {
        waiters.push({ count, resolve });
        arrived();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
