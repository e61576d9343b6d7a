/**
 * `node --import tsx bench/subscriptions-load.ts DATA_DIR`: what a daemon start pays to
 * put the stored subscriptions in force, in a process of its own so that nothing of it is
 * warm: the milliseconds of constructing the `AlertEngine` (reading every subscription,
 * parsing each with the rule schema, compiling them with 10 file rules), printed as JSON
 * with the number of rules in force. Loading the modules and opening the database come
 * before the clock starts.
 */
import { AlertEngine } from '../src/alerts/engine.js';
import { systemClock } from '../src/lib/clock.js';
import { silentLogger } from '../src/lib/logger.js';
import { asyncStoreOf } from '../src/store/async-sqlite.js';
import { Store } from '../src/store/index.js';
import { fileRules } from './rules.js';

const store = Store.open(process.argv[2]!);
const rules = fileRules();
const started = performance.now();
const engine = new AlertEngine(
  { store: asyncStoreOf(store), clock: systemClock, logger: silentLogger, maxAlertAgeMs: 1e12 },
  rules,
);
const ms = performance.now() - started;
console.log(JSON.stringify({ ms, rules: (await engine.rules()).length }));
store.close();
