/** One readable line per ingest event, for the console (the demo, and `run` until alerts exist). */
import type { CapacityEvent, NoticeEvent, SchemaDriftEvent } from '../ingest/events.js';
import { quantity } from '../lib/quantity.js';
import { counted } from '../lib/words.js';
import { clip, when } from './format.js';

export function noticeLine(e: NoticeEvent): string {
  const n = e.notice;
  const tag = e.change === 'new' ? 'new' : `updated v${e.version}: ${e.changedFields.join(', ')}`;
  const old = e.tooOld ? ' (posted too long ago to alert)' : '';
  return `[${tag}] ${n.pipeline_slug} #${n.id} ${when(n.posted_at)} ${clip(n.type, 28)} (${n.category || '-'}, ${n.status || 'no status'}): ${clip(n.subject, 80)}${old}`;
}

export function capacityLine(e: CapacityEvent): string {
  const low = e.locations.reduce<(typeof e.locations)[number] | undefined>(
    (min, l) => (l.oac !== null && (min === undefined || (min.oac ?? Infinity) > l.oac) ? l : min),
    undefined,
  );
  const lowest = low ? `, lowest OAC ${quantity(low.oac)} at ${low.location}` : '';
  return `[capacity ${e.change}] ${e.cycle.pipeline_slug} ${e.cycle.cycle} cycle, gas day ${e.cycle.gas_day}: ${counted(e.locations.length, 'location')}${lowest}`;
}

export function driftLine(e: SchemaDriftEvent): string {
  return `[schema drift] the API's catalog for ${e.table} changed (hash ${e.previousHash.slice(0, 12)}… → ${e.hash.slice(0, 12)}…)`;
}
