/**
 * Until the channels exist, the outbox drains to the console: one line per alert,
 * whatever its targets, marked sent. Used by `run` and the demo.
 */

import type { Clock } from '../lib/clock.js';
import { targetKey } from '../rules/types.js';
import type { Store } from '../store/index.js';
import { toUtcIso } from '../upstream/schemas.js';
import type { AlertPayload } from './payload.js';

/** One readable line for an alert. */
export function alertLine(p: AlertPayload, target: string): string {
  const head = `ALERT ${p.rule} → ${target}: ${p.pipeline.slug}`;
  if (p.kind === 'notice' && p.notice) {
    const changed = p.changed ? ` (changed: ${p.changed.join(', ')})` : '';
    return `${head} ${p.state} notice #${p.notice.id} [${p.notice.type}] ${p.notice.subject}${changed}`;
  }
  if (p.kind === 'deadline' && p.notice && p.deadline) {
    return `${head} reminder${p.deadline.late ? ' (late)' : ''}: ${p.deadline.field} ${p.deadline.at} in ${p.deadline.before} for #${p.notice.id} ${p.notice.subject}`;
  }
  if (p.kind === 'capacity' && p.capacity) {
    const l = p.capacity.locations[0];
    const value = l?.oac === null || l?.oac === undefined ? '-' : l.oac.toLocaleString('en-US');
    return `${head} capacity ${p.state} at ${l?.location} (${l?.identifier}): OAC ${value}, threshold ${l?.threshold} (${p.capacity.cycle} cycle, gas day ${p.capacity.gas_day})`;
  }
  return `${head} ${p.kind} ${p.state}`;
}

/** Prints every due outbox row and marks it sent; returns how many. */
export function drainToConsole(store: Store, clock: Clock, print: (line: string) => void): number {
  const now = toUtcIso(clock.now());
  const rows = store.outbox.due(now, 1000);
  for (const row of rows) {
    print(alertLine(row.payload, targetKey(row.target)));
    store.outbox.markSent(row.id, now);
  }
  return rows.length;
}
