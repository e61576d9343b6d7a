/**
 * Thread references that live as long as the process: what `send-test` and tests give a
 * channel instead of the database's `ThreadStore`, with the same first-one-wins rule.
 */
import type { ThreadRef, Threads } from '../channels/types.js';

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
