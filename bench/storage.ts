/**
 * `storage`: what a notice costs on disk. 100,000 simulator notices (the simulator's own
 * history, its texts as the API sends them) go through the real ingest path into a
 * fresh database, in the order a running daemon stores them: as they appear, each
 * 10-minute poll's new ones in one page, latest first as the API lists them. The WAL is
 * checkpointed and the file's size divided by the notices is `bytes_per_notice`. The
 * same notices stored in one deep walk, newest first in pages of 20 (a first sync of
 * everything), fill their pages about half and are reported beside it. Also: how long
 * migration 8 (with those after it) takes to convert as many notices stored in the form
 * before it.
 */

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingestNoticePage } from '../src/ingest/notice-sync.js';
import { DATABASE_FILE, openDatabase } from '../src/store/database.js';
import { Store } from '../src/store/index.js';
import { MIGRATIONS } from '../src/store/migrations.js';
import { noticeHash } from '../src/store/notices.js';
import type { Notice } from '../src/upstream/schemas.js';
import { simulatorNotices } from './simulator-notices.js';

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

/** Ingests every page into a fresh database; the file's bytes and the seconds it took. */
function ingestAll(pages: readonly Notice[][]): { bytes: number; seconds: number } {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-bench-storage-'));
  const store = Store.open(dir);
  const started = performance.now();
  for (const page of pages) {
    ingestNoticePage(store, page, {
      seenAt: '2026-11-20T15:00:00Z',
      baseline: false,
      alertableAfter: '2026-11-19T15:00:00Z',
      pipelines: new Set(),
    });
  }
  const seconds = (performance.now() - started) / 1000;
  if (store.notices.count() !== TOTAL) throw new Error('notices were lost');
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  const bytes = fileBytes(dir);
  store.close();
  rmSync(dir, { recursive: true, force: true });
  return { bytes, seconds };
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
  const started = performance.now();
  const store = Store.open(dir);
  const seconds = (performance.now() - started) / 1000;
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
  const { bytes, seconds } = ingestAll(asPolled(notices));
  const deep = ingestAll(asDeepWalk(notices));
  const m = migration(notices);
  return {
    notices: TOTAL,
    bytes_per_notice: Math.round(bytes / TOTAL),
    file_mb: Math.round(bytes / 1e5) / 10,
    bytes_per_notice_newest_first: Math.round(deep.bytes / TOTAL),
    text_chars_per_notice: Math.round(texts / TOTAL),
    ingest_s: Math.round(seconds * 10) / 10,
    before_migration_8_bytes_per_notice: Math.round(m.oldBytes / TOTAL),
    migration_8_s: Math.round(m.seconds * 10) / 10,
    after_migration_8_bytes_per_notice: Math.round(m.newBytes / TOTAL),
  };
}
