/**
 * Thread references in the database: what a channel remembers about the first message
 * it sent for a notice to a target (Slack's `ts`, Discord's message id), so that an
 * update is posted under it, after a restart too.
 */
import type { ThreadRef, Threads } from '../channels/types.js';
import type { Db } from '../store/database.js';

export class ThreadStore implements Threads {
  private readonly select;
  private readonly upsert;

  constructor(
    db: Db,
    private readonly now: () => string = () => new Date().toISOString(),
  ) {
    this.select = db.prepare<[string, string], { ref: string }>(
      'SELECT ref FROM threads WHERE target = ? AND subject = ?',
    );
    this.upsert = db.prepare(
      `INSERT INTO threads (target, subject, ref, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (target, subject) DO NOTHING`,
    );
  }

  get(target: string, subject: string): ThreadRef | undefined {
    const row = this.select.get(target, subject);
    return row ? (JSON.parse(row.ref) as ThreadRef) : undefined;
  }

  /** Keeps the first reference: an update threads under the first message, always. */
  set(target: string, subject: string, ref: ThreadRef): void {
    this.upsert.run(target, subject, JSON.stringify(ref), this.now());
  }
}

/** Thread references for one process only (`send-test`, tests). */
export class MemoryThreads implements Threads {
  readonly refs = new Map<string, ThreadRef>();

  get(target: string, subject: string): ThreadRef | undefined {
    return this.refs.get(`${target}|${subject}`);
  }

  set(target: string, subject: string, ref: ThreadRef): void {
    if (!this.refs.has(`${target}|${subject}`)) this.refs.set(`${target}|${subject}`, ref);
  }
}
