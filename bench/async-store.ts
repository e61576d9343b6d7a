/**
 * `async_store`: what the asynchronous store (`AsyncStore` on SQLite) costs a call over
 * the synchronous one underneath it. 100,000 reads of one subscription by id, each way,
 * by the process's CPU time: synchronously and awaited, outside any transaction and inside
 * one (where each awaited call looks up its asynchronous context). Each figure is the
 * median of 5 rounds, in nanoseconds a call; `_overhead_ns` is what awaiting adds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asyncStoreOf } from '../src/store/async-sqlite.js';
import { Store } from '../src/store/index.js';
import { median } from './median.js';

const CALLS = 100_000;
const ROUNDS = 5;

function cpuNs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) * 1000;
}

export async function asyncStoreBench(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-bench-async-'));
  const store = Store.open(dir);
  try {
    const shared = asyncStoreOf(store);
    const id = store.subscriptions.add({
      rule: { notices: {}, notify: ['console'] },
      target: 'console',
      source: 'cli',
      channel: null,
      created_by: 'bench',
      created_at: '2026-11-20T15:00:00Z',
      notice_id: null,
    });
    const sync = () => {
      const started = cpuNs();
      for (let i = 0; i < CALLS; i++) if (!store.subscriptions.get(id)) throw new Error('gone');
      return (cpuNs() - started) / CALLS;
    };
    const awaited = async () => {
      const started = cpuNs();
      for (let i = 0; i < CALLS; i++)
        if (!(await shared.subscriptions.get(id))) throw new Error('gone');
      return (cpuNs() - started) / CALLS;
    };
    const runs = {
      sync: [] as number[],
      async: [] as number[],
      syncInTx: [] as number[],
      asyncInTx: [] as number[],
    };
    for (let r = 0; r < ROUNDS; r++) {
      runs.sync.push(sync());
      runs.async.push(await awaited());
      runs.syncInTx.push(store.transaction(sync));
      runs.asyncInTx.push(await shared.transaction(awaited));
    }
    const ns = (values: number[]) => Math.round(median(values));
    return {
      sync_get_ns: ns(runs.sync),
      async_get_ns: ns(runs.async),
      async_overhead_ns: ns(runs.async) - ns(runs.sync),
      // Inside a transaction a read takes no lock of its own: both sides are cheaper.
      sync_get_in_transaction_ns: ns(runs.syncInTx),
      async_get_in_transaction_ns: ns(runs.asyncInTx),
      async_in_transaction_overhead_ns: ns(runs.asyncInTx) - ns(runs.syncInTx),
    };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
