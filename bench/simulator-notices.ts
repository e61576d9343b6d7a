/**
 * The simulator's generated notices as pipewatch parses them from the API: realistic
 * texts, pipelines and field combinations for the benchmarks that store or judge them.
 */
import { NoticeGenerator } from '../src/simulator/notice-generator.js';
import { NoticeStore, wireNotice } from '../src/simulator/notice-store.js';
import { simulatorDefaults } from '../src/simulator/options.js';
import { parseRecords } from '../src/upstream/records.js';
import { type Notice, NoticeSchema } from '../src/upstream/schemas.js';

/** The simulator makes about 38 notices a day across its pipelines. */
const NOTICES_PER_DAY = 30;

/**
 * The latest `count` notices of a simulator history deep enough to hold them, oldest
 * first, each through JSON text and the client's parsing. Throws when it holds fewer.
 */
export function simulatorNotices(count: number, seed = 1): Notice[] {
  const store = new NoticeStore(1000);
  new NoticeGenerator(store, {
    seed,
    startAt: new Date('2026-11-20T15:00:00Z'),
    historyDays: Math.ceil(count / NOTICES_PER_DAY),
    noticesPerHour: simulatorDefaults.noticesPerHour,
    refreshEveryMs: simulatorDefaults.refreshEveryMs,
  }).generateHistory(false);
  const wire = store.list().slice(0, count).reverse().map(wireNotice);
  if (wire.length < count) throw new Error(`the simulator made only ${wire.length} notices`);
  const context = { method: 'GET', endpoint: '/ip/notices', host: 'bench' };
  return parseRecords(NoticeSchema, JSON.parse(JSON.stringify(wire)), context, 'data').records;
}
