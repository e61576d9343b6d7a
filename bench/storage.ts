/**
 * `storage`: what a notice costs on disk. 100,000 simulator notices (the simulator's own
 * history, its texts as the API sends them) go through the real ingest path into a
 * fresh database, in the order a running daemon stores them: as they appear, each
 * 10-minute poll's new ones in one page, latest first as the API lists them. The WAL is
 * checkpointed and the file's size divided by the notices is `bytes_per_notice`. The
 * same notices stored in one deep walk, newest first in pages of 20 (a first sync of
 * everything), fill their pages about half and are reported beside it. Also: how much
 * CPU the polled ingest takes (`ingest_cpu_s`), and migration 8 (with those after it) to
 * convert as many notices stored in the form before it (`migration_8_cpu_s`).
 *
 * Then what `PIPEWATCH_RETENTION` leaves of the polled database (`_retention_180d`, and
 * `_retention_1d` the least it may be set to), pruned and vacuumed as the daily job does,
 * still divided by every notice ever stored; and the same notices stored by a daemon
 * that a team uses from chat (`chat_…`), judged by the real engine with the chat core's
 * subscriptions, reminders and silences in force (see `chatState`), with what retention
 * leaves of that.
 */

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AlertEngine } from '../src/alerts/engine.js';
import { ChatCore } from '../src/chat/service.js';
import type { ChatCaller } from '../src/chat/types.js';
import { ingestNoticePage } from '../src/ingest/notice-sync.js';
import { pruneOld } from '../src/ingest/retention.js';
import { silentLogger } from '../src/lib/logger.js';
import { toUtcIso, type UtcIso } from '../src/lib/time.js';
import { asyncStoreOf } from '../src/store/async-sqlite.js';
import { DATABASE_FILE, openDatabase } from '../src/store/database.js';
import { Store } from '../src/store/index.js';
import { MIGRATIONS } from '../src/store/migrations.js';
import { noticeHash } from '../src/store/notices.js';
import type { Notice } from '../src/upstream/schemas.js';
import { ManualClock } from '../test/support/clock.js';
import { simulatorNotices } from './simulator-notices.js';
import {
  benchChannel,
  seededRandom,
  storeCatalogPipelines,
  subscribeText,
} from './subscriptions.js';

const TOTAL = 100_000;
const PER_PAGE = 20;

function fileBytes(dir: string): number {
  return statSync(join(dir, DATABASE_FILE)).size;
}

const POLL_MS = 600_000;

/** The notices (oldest first) as 10-minute polls see them: each poll's new ones, latest first. */
function asPolled(notices: readonly Notice[]): Notice[][] {
  const pages: Notice[][] = [];
  let window = Number.NaN;
  for (const n of notices) {
    const at = Math.floor(Date.parse(n.service_created_at ?? n.posted_at ?? '') / POLL_MS);
    if (at !== window || pages.at(-1)!.length === PER_PAGE) pages.push([]);
    window = at;
    pages.at(-1)!.unshift(n);
  }
  return pages;
}

/** The notices (oldest first) as one deep walk sees them: newest first, in pages of 20. */
function asDeepWalk(notices: readonly Notice[]): Notice[][] {
  const newest = [...notices].reverse();
  const pages: Notice[][] = [];
  for (let i = 0; i < newest.length; i += PER_PAGE) pages.push(newest.slice(i, i + PER_PAGE));
  return pages;
}

/**
 * CPU seconds (user and system) this process spent since `from`: other work on the
 * machine does not count, as it would in wall time.
 */
function cpuSeconds(from: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(from);
  return (user + system) / 1e6;
}

/** When a page was seen: when its newest notice appeared. */
function seenAt(page: readonly Notice[]): UtcIso {
  const n = page[0]!;
  return toUtcIso(new Date(Date.parse(n.service_created_at ?? n.posted_at ?? END)));
}

/** When the last poll of the history ran. */
const END = '2026-11-20T15:00:00Z';
const DAY_MS = 86_400_000;

/** The file's bytes for each of `stored` notices, after a checkpoint. */
function perNotice(store: Store, dir: string, stored = TOTAL): number {
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  return Math.round(fileBytes(dir) / stored);
}

/**
 * Prunes what is older than `retentionMs` at the end of the history, as the daily job
 * does; bytes for each of `stored` notices after.
 */
async function retained(
  store: Store,
  dir: string,
  retentionMs: number,
  stored = TOTAL,
): Promise<number> {
  await pruneOld(
    { store: asyncStoreOf(store), clock: new ManualClock(END), logger: silentLogger },
    retentionMs,
  );
  return perNotice(store, dir, stored);
}

/**
 * Ingests every page into a fresh database; the file's bytes, the CPU seconds it took, and
 * with `retention` what 180 days and then 1 day of retention leave.
 */
async function ingestAll(
  pages: readonly Notice[][],
  retention = false,
): Promise<{ bytes: number; seconds: number; retention180d?: number; retention1d?: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-bench-storage-'));
  const store = Store.open(dir);
  const started = process.cpuUsage();
  for (const page of pages) {
    const at = seenAt(page);
    await ingestNoticePage(asyncStoreOf(store), page, {
      seenAt: at,
      baseline: false,
      alertableAfter: toUtcIso(new Date(Date.parse(at) - DAY_MS)),
      pipelines: new Set(),
    });
  }
  const seconds = cpuSeconds(started);
  if (store.notices.count() !== TOTAL) throw new Error('notices were lost');
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  const bytes = fileBytes(dir);
  const pruned = retention
    ? {
        retention180d: await retained(store, dir, 180 * DAY_MS),
        retention1d: await retained(store, dir, DAY_MS),
      }
    : {};
  store.close();
  rmSync(dir, { recursive: true, force: true });
  return { bytes, seconds, ...pruned };
}

/** The chat state is built over the latest this many notices (some 18 months). */
const CHAT_NOTICES = 20_000;

/** The latest pages that hold `count` notices. */
function latestPages(pages: readonly Notice[][], count: number): Notice[][] {
  let n = 0;
  let from = pages.length;
  while (from > 0 && n < count) n += pages[--from]!.length;
  return pages.slice(from);
}

/**
 * A team's use of chat, as the daemon's chat core receives it: 20 channels of 5
 * subscriptions each (the words people type, `subscriptions.ts`) and 20 people with a
 * deadline reminder of a busy pipeline each, made at the start; then every day 3 Remind
 * me clicks on a notice with a response deadline ahead, 2 mutes of 1 h, 4 h or 24 h in a
 * channel, and an Acknowledge on 3 in 10 of the alerts sent to a channel. Every poll the
 * engine judges the page, sends the reminders due and sums up the silences that ended,
 * and what it queued is marked sent, as the dispatcher would.
 */
const CHANNELS = 20;
const SUBSCRIPTIONS_PER_CHANNEL = 5;
const PEOPLE = 20;
const REMIND_ME_PER_DAY = 3;
const MUTES_PER_DAY = 2;
const ACKED = 0.3;
const MUTE_FOR = ['1h', '4h', '24h'];
const BUSY = ['transco', 'tennessee', 'texas-eastern', 'columbia', 'anr', 'ngpl'];

const person = (n: number): ChatCaller => ({
  platform: 'slack',
  workspace: 'T0BENCH',
  channel: benchChannel(n % CHANNELS),
  user: `U0BENCH${String(n).padStart(3, '0')}`,
});

/**
 * Stores the latest `CHAT_NOTICES` polled notices with a team's chat state, retention
 * off, then prunes what 180 days of it would leave; the figures of `chat_…`, per notice
 * of those.
 */
async function chatState(all: readonly Notice[][]): Promise<Record<string, number>> {
  const pages = latestPages(all, CHAT_NOTICES);
  const stored = pages.reduce((n, p) => n + p.length, 0);
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-bench-chat-'));
  const store = Store.open(dir);
  const random = seededRandom(26);
  const clock = new ManualClock(seenAt(pages[0]!));
  storeCatalogPipelines(store, clock.now());
  const engine = new AlertEngine(
    { store: asyncStoreOf(store), clock, logger: silentLogger, maxAlertAgeMs: DAY_MS },
    [],
  );
  const core = new ChatCore({
    store: asyncStoreOf(store),
    engine,
    clock,
    logger: silentLogger,
    policy: { admins: new Set() },
  });
  for (let c = 0; c < CHANNELS; c++)
    for (let i = 0; i < SUBSCRIPTIONS_PER_CHANNEL; i++)
      await core.command({ ...person(c), channel: benchChannel(c) }, subscribeText(random));
  for (let p = 0; p < PEOPLE; p++) await core.command(person(p), `remind ${BUSY[p % BUSY.length]}`);
  const hooks = engine.hooks();
  let day = -1;
  let withDeadline: number[] = [];
  for (const page of pages) {
    const at = seenAt(page);
    clock.set(at);
    await ingestNoticePage(asyncStoreOf(store), page, {
      seenAt: at,
      baseline: false,
      alertableAfter: toUtcIso(new Date(Date.parse(at) - DAY_MS)),
      pipelines: new Set(),
      hooks,
    });
    for (const n of page) if (n.response_at && n.response_at > at) withDeadline.push(n.id);
    const today = Math.floor(Date.parse(at) / DAY_MS);
    if (today !== day) {
      day = today;
      for (let i = 0; i < REMIND_ME_PER_DAY && withDeadline.length > 0; i++) {
        const noticeId = withDeadline[Math.floor(random() * withDeadline.length)]!;
        await core.action(person(Math.floor(random() * PEOPLE)), { kind: 'remind', noticeId });
      }
      withDeadline = [];
      for (let i = 0; i < MUTES_PER_DAY; i++) {
        const pipeline = random() < 0.5 ? ` ${BUSY[Math.floor(random() * BUSY.length)]}` : '';
        const forWords = MUTE_FOR[Math.floor(random() * MUTE_FOR.length)];
        await core.command(
          person(Math.floor(random() * PEOPLE)),
          `mute${pipeline} for ${forWords}`,
        );
      }
    }
    await engine.runReminders();
    const queued = store.outbox.due(at, 10_000);
    if (queued.length > 0) {
      store.outbox.markSent(
        queued.map((r) => r.id),
        at,
        `{"ok":true,"ts":"${Math.floor(Date.parse(at) / 1000)}.000100"}`,
      );
      for (const r of queued)
        if (r.target.kind === 'slack' && random() < ACKED)
          store.acks.acknowledge('slack', r.target.channel, `${r.id}.000100`, 'U0BENCH001', at);
    }
  }
  const rows = (table: string) =>
    (store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  const figures: Record<string, number> = {
    chat_notices: stored,
    chat_bytes_per_notice: perNotice(store, dir, stored),
    chat_subscriptions: rows('subscriptions'),
    chat_reminders: rows('reminders'),
    chat_silences: rows('silences'),
    chat_held: rows('held'),
    chat_acks: rows('acks'),
    chat_alerts: rows('outbox'),
    chat_bytes_per_notice_retention_180d: await retained(store, dir, 180 * DAY_MS, stored),
  };
  figures.chat_rows_after_retention_180d =
    rows('subscriptions') + rows('reminders') + rows('silences') + rows('held') + rows('acks');
  store.close();
  rmSync(dir, { recursive: true, force: true });
  return figures;
}

/**
 * Seconds the first open takes over `notices` stored as before migration 8 (it and the
 * later migrations, then the one VACUUM), and the file before and after.
 */
function migration(notices: readonly Notice[]) {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-bench-migration-'));
  const before = MIGRATIONS.filter((m) => m.version < 8);
  const db = openDatabase(join(dir, DATABASE_FILE), before);
  // As a file made before incremental vacuum: its first open under migration 8 rewrites it.
  db.pragma('auto_vacuum = NONE');
  db.exec('VACUUM');
  const columns = Object.keys(notices[0]!);
  const insert = db.prepare(
    `INSERT INTO notices (${columns.join(', ')}, content_hash, first_seen_at, last_seen_at, last_changed_at)
     VALUES (${columns.map((c) => `@${c}`).join(', ')}, @hash, @at, @at, @at)`,
  );
  db.transaction(() => {
    for (const n of notices) insert.run({ ...n, hash: noticeHash(n), at: '2026-11-20T15:00:00Z' });
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const oldBytes = fileBytes(dir);
  const started = process.cpuUsage();
  const store = Store.open(dir);
  const seconds = cpuSeconds(started);
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  const newBytes = fileBytes(dir);
  store.close();
  rmSync(dir, { recursive: true, force: true });
  return { seconds, oldBytes, newBytes };
}

/** The storage figures. */
export async function storageBench(): Promise<Record<string, number>> {
  const notices = simulatorNotices(TOTAL);
  const texts = notices.reduce((n, x) => n + x.notice.length + x.html.length + x.mobile.length, 0);
  const polled = asPolled(notices);
  const { bytes, seconds, retention180d, retention1d } = await ingestAll(polled, true);
  const deep = await ingestAll(asDeepWalk(notices));
  const m = migration(notices);
  const chat = await chatState(polled);
  return {
    notices: TOTAL,
    bytes_per_notice: Math.round(bytes / TOTAL),
    file_mb: Math.round(bytes / 1e5) / 10,
    bytes_per_notice_newest_first: Math.round(deep.bytes / TOTAL),
    text_chars_per_notice: Math.round(texts / TOTAL),
    ingest_cpu_s: Math.round(seconds * 10) / 10,
    before_migration_8_bytes_per_notice: Math.round(m.oldBytes / TOTAL),
    migration_8_cpu_s: Math.round(m.seconds * 10) / 10,
    after_migration_8_bytes_per_notice: Math.round(m.newBytes / TOTAL),
    bytes_per_notice_retention_180d: retention180d!,
    bytes_per_notice_retention_1d: retention1d!,
    ...chat,
  };
}
