/**
 * Pipelines' own notice numbering: `26-0412` (per-year sequence), `114523` (running
 * number) or `20261120-03` (per-day sequence). The same identifier can occur on two
 * pipelines, as it does in the real data.
 */
import { localDate } from '../domain/gas-day.js';
import type { SimPipeline } from './pipelines.js';
import { DAY } from './sim-time.js';

/** The numbering state of all pipelines of one simulator. */
export class NoticeIdentifiers {
  private readonly counters = new Map<string, number>();

  /** The identifier of a pipeline's next notice, posted at `at`. */
  next(p: SimPipeline, at: number): string {
    const date = localDate(new Date(at), p.timezone);
    switch (p.identifierStyle) {
      case 'year-seq': {
        const key = `${p.slug}:${date.slice(0, 4)}`;
        const dayOfYear = (Date.parse(date) - Date.parse(`${date.slice(0, 4)}-01-01`)) / DAY;
        const n = this.counters.get(key) ?? Math.floor(dayOfYear * 1.6) + (p.id % 4);
        this.counters.set(key, n + 1);
        return `${date.slice(2, 4)}-${String(n + 1).padStart(4, '0')}`;
      }
      case 'seq': {
        const n = this.counters.get(p.slug) ?? 100_000 + p.id * 7_919;
        this.counters.set(p.slug, n + 1);
        return String(n + 1);
      }
      case 'date-seq': {
        const key = `${p.slug}:${date}`;
        const n = (this.counters.get(key) ?? 0) + 1;
        this.counters.set(key, n);
        return `${date.replaceAll('-', '')}-${String(n).padStart(2, '0')}`;
      }
    }
  }

  /** The counters, to restore an identical state elsewhere. */
  snapshot(): Array<[string, number]> {
    return [...this.counters];
  }

  /** Continues from a snapshot. */
  restore(entries: Array<[string, number]>): void {
    for (const [key, n] of entries) this.counters.set(key, n);
  }
}

/** The URL of a notice; pipelines without per-notice pages get their postings page. */
export function noticeUrl(p: SimPipeline, identifier: string): string {
  if (p.noticeStyle === 'abbrev') return p.url;
  const sep = p.url.includes('?') ? '&' : '?';
  return `${p.url}${sep}notice=${encodeURIComponent(identifier)}`;
}
