/**
 * One-click unsubscribe end to end: the alert engine decides, the dispatcher sends through
 * the email channel the daemon builds to a real SMTP server, and the link in the email
 * that arrives is opened on the routes served on loopback over a real database. A GET
 * shows what will stop and changes nothing; a POST (the page's form, or a mail client's
 * one-click request) stops that rule for that address with one endless silence, which
 * `silence list` shows and `silence expire` lifts; a bad link gets a 400 page.
 */
import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AlertEngine } from '../../src/alerts/engine.js';
import { loadConfig } from '../../src/config/index.js';
import { Channels } from '../../src/delivery/channels.js';
import { Dispatcher } from '../../src/delivery/dispatcher.js';
import type { RunningHttpServer } from '../../src/http/server.js';
import { silentLogger } from '../../src/lib/logger.js';
import type { NoticeRule } from '../../src/rules/types.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import { makeToken } from '../../src/unsubscribe/links.js';
import { unsubscribeKey, unsubscribeRoutes } from '../../src/unsubscribe/routes.js';
import { cli } from '../cli/run-cli.js';
import { makeNotice, noticeEvent } from '../fakes/notice.js';
import { type SmtpFake, startSmtpFake } from '../fakes/smtp.js';
import { InstantClock } from '../support/clock.js';
import { serveRoutes } from '../support/http-server.js';
import { listMatchers } from '../support/silence-matchers.js';
import { useTempStore } from '../support/temp-store.js';
import { UNSAFE_IN_MESSAGES } from '../support/unsafe-text.js';

const PUBLIC = 'https://pipewatch.example.com';
const NOW = '2026-11-20T15:00:00Z';
const ALICE = 'alice@example.com';
const BOB = 'bob@example.com';
const rule: NoticeRule = {
  kind: 'notices',
  name: 'transco-constraints',
  at: { file: 'rules/test.yaml', line: 1, col: 1 },
  filter: { pipelines: ['transco'] },
  on: ['new'],
  notify: [
    { kind: 'email', to: [ALICE] },
    { kind: 'email', to: [BOB] },
  ],
};

const temp = useTempStore('pipewatch-unsub-');
let smtp: SmtpFake;
let clock: InstantClock;
let engine: AlertEngine;
let channels: Channels;
let dispatcher: Dispatcher;
let server: RunningHttpServer;
let key: string;

/** Builds everything as the daemon does; `publicUrl` false leaves PIPEWATCH_PUBLIC_URL unset. */
async function setup(publicUrl = true): Promise<void> {
  const config = loadConfig(
    {
      SMTP_URL: smtp.url,
      SMTP_ALLOW_PLAINTEXT: 'true',
      EMAIL_FROM: 'pipewatch <alerts@example.com>',
      ...(publicUrl ? { PIPEWATCH_PUBLIC_URL: PUBLIC } : {}),
    },
    temp.dir,
  );
  const deps = { clock, logger: silentLogger };
  channels = await Channels.create(config, deps, { print: () => {}, unsubscribeKey: () => key });
  key = await unsubscribeKey(asyncStoreOf(temp.store), config.secretKey, clock);
  engine = new AlertEngine(
    { ...deps, store: asyncStoreOf(temp.store), maxAlertAgeMs: 86_400_000 },
    [rule],
  );
  dispatcher = new Dispatcher(
    { ...deps, store: asyncStoreOf(temp.store), channels },
    { digestWindowMs: 0, maxAgeMs: 6 * 3_600_000 },
  );
  server = await serveRoutes(
    unsubscribeRoutes({ store: asyncStoreOf(temp.store), clock, logger: silentLogger, key }),
  );
}

beforeEach(async () => {
  smtp = await startSmtpFake({ starttls: false });
  clock = new InstantClock(NOW);
});
afterEach(async () => {
  await server?.close();
  await channels?.close();
  await smtp.close();
});

/** A new notice `id`, decided by the engine and sent by the dispatcher. */
async function alertOn(id: number): Promise<void> {
  const n = makeNotice({ id, subject: `Constraint ${id}` });
  const s = asyncStoreOf(temp.store);
  await s.transaction(async () => {
    await s.notices.upsert(n, NOW, false);
    await engine.hooks().notices?.([noticeEvent(n)]);
  });
  await dispatcher.dispatchDue();
}

/** The subjects `address` received, in order. */
const received = (address: string) =>
  smtp.messages.filter((m) => m.envelope.to.includes(address)).map((m) => m.parsed!.subject);

/** The unsubscribe link of the last email to `address`, on the loopback server. */
function linkFor(address: string): string {
  const mail = smtp.messages.filter((m) => m.envelope.to.includes(address)).at(-1)!;
  const header = mail.parsed!.headerLines.find((h) => h.key === 'list-unsubscribe')!.line;
  const link = /<([^>]+)>/.exec(header.replace(/\r?\n[ \t]+/g, ''))![1]!;
  expect(link.startsWith(`${PUBLIC}/unsubscribe/`)).toBe(true);
  return `${server.url}${new URL(link).pathname}`;
}

const oneClick = (url: string, init: RequestInit = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
    ...init,
  });

describe('an unsubscribe link', () => {
  it('shows on GET what will stop, and changes nothing', async () => {
    await setup();
    await alertOn(1);
    const url = linkFor(ALICE);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain(`<strong>${ALICE}</strong>`);
    expect(html).toContain('<code>transco-constraints</code>');
    expect(html).toMatch(/<form method="post">.*<button type="submit">Unsubscribe<\/button>/);
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(temp.store.silences.list()).toEqual([]);
    await alertOn(2);
    expect(received(ALICE)).toHaveLength(2);
  });

  it('stops on POST that rule for that address alone, with one silence without end', async () => {
    await setup();
    await alertOn(1);
    const res = await oneClick(linkFor(ALICE));
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('You are unsubscribed');
    expect(html).toContain('<code>pipewatch silence expire 1</code>');
    expect(temp.store.silences.list()).toEqual([
      expect.objectContaining({
        id: 1,
        matchers: listMatchers({ targets: [`email:${ALICE}`], rules: ['transco-constraints'] }),
        starts_at: NOW,
        ends_at: null,
        created_by: 'unsubscribe link',
        lifted_at: null,
      }),
    ]);
    await alertOn(2);
    expect(received(ALICE)).toEqual(['[Transco] Capacity Constraint: Constraint 1']);
    expect(received(BOB)).toEqual([
      '[Transco] Capacity Constraint: Constraint 1',
      '[Transco] Capacity Constraint: Constraint 2',
    ]);
    expect(temp.store.silences.heldBy(1).map((h) => h.alert)).toEqual([
      expect.objectContaining({ rule: 'transco-constraints', notice_id: 2 }),
    ]);
  });

  it('adds nothing when posted again, and answers the same', async () => {
    await setup();
    await alertOn(1);
    const url = linkFor(ALICE);
    const first = await oneClick(url);
    const again = await oneClick(url);
    expect(again.status).toBe(first.status);
    expect(await again.text()).toBe(await first.text());
    expect(temp.store.silences.list()).toHaveLength(1);
    expect(await (await fetch(url)).text()).toContain('You are already unsubscribed');
  });

  it('is shown by silence list, and silence expire lifts it', async () => {
    await setup();
    await alertOn(1);
    await oneClick(linkFor(ALICE));
    const env = { PIPEWATCH_DATA_DIR: temp.dir };
    const at = { clock: new InstantClock(NOW) };
    const list = await cli(['silence', 'list'], env, at);
    expect(list.code).toBe(0);
    const row = list.stdout.split('\n').find((l) => l.trim().startsWith('1 '));
    expect(row).toMatch(/target=email:alice@example\.com rule=transco-constraints/);
    expect(row).toMatch(/until lifted +active +0 +unsubscribe link/);
    expect((await cli(['silence', 'expire', '1'], env, at)).code).toBe(0);
    await alertOn(2);
    expect(received(ALICE)).toHaveLength(2);
  });

  it('takes the POST as multipart form data too, and refuses a large body unread', async () => {
    await setup();
    await alertOn(1);
    const url = linkFor(ALICE);
    const big = await oneClick(url, { body: `List-Unsubscribe=One-Click&x=${'y'.repeat(5000)}` });
    expect(big.status).toBe(413);
    expect(await big.text()).toContain('too large');
    expect(temp.store.silences.list()).toEqual([]);
    const form = new FormData();
    form.set('List-Unsubscribe', 'One-Click');
    const multipart = await fetch(url, { method: 'POST', body: form });
    expect(multipart.status).toBe(200);
    expect(temp.store.silences.list()).toHaveLength(1);
  });

  it('a POST that does not say List-Unsubscribe=One-Click changes nothing and shows the button', async () => {
    await setup();
    await alertOn(1);
    const url = linkFor(ALICE);
    const otherField = new FormData();
    otherField.set('unsubscribe', 'yes');
    for (const init of [
      { body: '' },
      { body: 'x=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      { body: 'List-Unsubscribe=Yes' },
      { body: 'One-Click', headers: { 'content-type': 'text/plain' } },
      { body: otherField },
      { body: '{"List-Unsubscribe":"One-Click"}', headers: { 'content-type': 'application/json' } },
    ] as RequestInit[]) {
      const res = await fetch(url, { method: 'POST', ...init });
      expect(res.status, String(init.body)).toBe(400);
      const html = await res.text();
      expect(html).toContain('Nothing was changed: this request did not say');
      expect(html).toMatch(/<form method="post">.*<button type="submit">Unsubscribe<\/button>/);
    }
    expect(temp.store.silences.list()).toEqual([]);
    // A one-click body under another type (a text/plain form) is still one.
    const plain = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'List-Unsubscribe=One-Click\r\n',
    });
    expect(plain.status).toBe(200);
    expect(temp.store.silences.list()).toHaveLength(1);
  });

  it('a link that does not verify is refused before its body arrives', async () => {
    await setup();
    const token = makeToken({ addresses: [ALICE], rules: ['transco-constraints'] }, 'x'.repeat(40));
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/unsubscribe/${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '4000' },
      });
      req.on('response', (res) => {
        resolve(res.statusCode ?? 0);
        res.resume();
        req.destroy();
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(status).toBe(400);
    expect(server.bodies.requests.peak).toBe(0);
  });

  it('cut short, changed or signed with another key, gets a 400 page and changes nothing', async () => {
    await setup();
    await alertOn(1);
    const url = linkFor(ALICE);
    const token = url.split('/').at(-1)!;
    const base = url.slice(0, -token.length);
    const flipped = (i: number) =>
      token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
    const bad = [
      token.slice(0, -1),
      token.slice(0, token.length / 2),
      flipped(5),
      flipped(token.length - 3),
      makeToken({ addresses: [ALICE], rules: ['transco-constraints'] }, 'x'.repeat(40)),
      makeToken({ addresses: [BOB], rules: 'all' }, `${key}x`),
      `${token}/more`,
      '',
      '%3Cscript%3E',
    ];
    for (const t of bad) {
      for (const method of ['GET', 'POST']) {
        const res = await fetch(`${base}${t}`, { method });
        expect(res.status, `${method} ${t}`).toBe(400);
        expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
        const html = await res.text();
        expect(html).toContain('This unsubscribe link is not valid');
        expect(html).not.toMatch(/Error|\bat .*\(|<script/);
      }
    }
    expect(temp.store.silences.list()).toEqual([]);
  });

  it('answers with a page under a strict policy: no scripts, nothing from elsewhere, no cache', async () => {
    await setup();
    await alertOn(1);
    const res = await fetch(linkFor(ALICE));
    const html = await res.text();
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*';/);
    expect(csp).toContain("form-action 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    const { createHash } = await import('node:crypto');
    const hash = createHash('sha256').update(style).digest('base64');
    expect(csp).toContain(`'sha256-${hash}'`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(html).not.toMatch(/<script|<img|<link|src=|href=|url\(/i);
  });

  it('escapes what the link names', async () => {
    await setup();
    const token = makeToken({ addresses: ['a<b>&"x@example.com'], rules: ['r.1'] }, key);
    const html = await (await fetch(`${server.url}/unsubscribe/${token}`)).text();
    expect(html).toContain('<strong>a&lt;b&gt;&amp;&quot;x@example.com</strong>');
    expect(html).not.toContain('<b>');
  });

  it('shows what the link names without bidirectional or control characters, before and after', async () => {
    await setup();
    // Reads as "alice@example.com" with the override: "moc.elpmaxe@" reversed.
    const address = 'ecila\u202emoc.elpmaxe@\u2066\u0007x';
    const token = makeToken({ addresses: [address], rules: ['r.1'] }, key);
    const url = `${server.url}/unsubscribe/${token}`;
    const before = await (await fetch(url)).text();
    expect(before).toContain('<strong>ecilamoc.elpmaxe@x</strong>');
    const after = await (await oneClick(url)).text();
    expect(after).toContain('You are unsubscribed');
    expect(after).toContain('<strong>ecilamoc.elpmaxe@x</strong>');
    for (const html of [before, after]) expect(html).not.toMatch(UNSAFE_IN_MESSAGES);
    // The silence is made for the address as signed: it is what the alerts are sent to.
    expect(temp.store.silences.list()[0]!.matchers).toEqual(
      listMatchers({ targets: [`email:${address}`], rules: ['r.1'] }),
    );
  });

  it('answers with a page, not a trace, when the database fails', async () => {
    await setup();
    const token = makeToken({ addresses: [ALICE], rules: ['transco-constraints'] }, key);
    temp.store.close();
    const res = await oneClick(`${server.url}/unsubscribe/${token}`);
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).toContain('Something went wrong');
    expect(html).not.toMatch(/database|Error|\bat .*\(/);
  });
});

describe('email without PIPEWATCH_PUBLIC_URL', () => {
  it('carries no unsubscribe link', async () => {
    await setup(false);
    await alertOn(1);
    const mail = smtp.messages.find((m) => m.envelope.to.includes(ALICE))!.parsed!;
    expect(mail.headerLines.map((h) => h.key)).not.toContain('list-unsubscribe');
    expect(mail.text).not.toContain('Unsubscribe');
  });
});
