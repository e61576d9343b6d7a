/**
 * Thread references as channels get them: the database's, one that cannot be read back
 * read as none (with a warning), so that a damaged reference costs an update its thread,
 * never the alert; and those that live as long as the process, for `send-test` and tests.
 */
import type { ThreadRef, Threads } from '../channels/types.js';
import type { Logger } from '../lib/logger.js';
import { StoredDataError } from '../store/stored-json.js';

/**
 * `threads` (the asynchronous store's: a `StoredThreadRef` is a `ThreadRef`), a reference
 * that cannot be read back (`StoredDataError`, thrown or rejected) read as none: the
 * alert goes out as a first message, and a warning line (one a reference) says which
 * reference was lost.
 */
export function readablePastDamage(threads: Threads, logger: Logger): Threads {
  const warned = new Set<string>();
  return {
    async get(target, subject) {
      try {
        return await threads.get(target, subject);
      } catch (error) {
        if (!(error instanceof StoredDataError)) throw error;
        const key = `${target}|${subject}`;
        if (!warned.has(key))
          logger.warn({ subject }, `${error.message}; sent without it, as a first message`);
        warned.add(key);
        return undefined;
      }
    },
    set: async (target, subject, ref) => {
      await threads.set(target, subject, ref);
    },
  };
}

/** Thread references for one process only (`send-test`, tests). */
export class MemoryThreads implements Threads {
  readonly refs = new Map<string, ThreadRef>();

  async get(target: string, subject: string): Promise<ThreadRef | undefined> {
    return this.refs.get(`${target}|${subject}`);
  }

  async set(target: string, subject: string, ref: ThreadRef): Promise<void> {
    if (!this.refs.has(`${target}|${subject}`)) this.refs.set(`${target}|${subject}`, ref);
  }
}
