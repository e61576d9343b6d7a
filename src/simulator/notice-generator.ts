/**
 * Generates the notice history and, in live mode, the stream of new notices, in-place
 * updates and superseding or terminating notices. Everything comes from seeded streams,
 * so the same seed and start produce the same notices however the time is stepped.
 */

import { addDays, localDate, zonedTime } from '../domain/gas-day.js';
import { keepNewest } from '../lib/bounded-map.js';
import { ANCHORS, type Anchor, HOSTILE_BODIES, type HostileBody } from './anchors.js';
import { type Chain, chainNotice, chainUpdate, copyChain } from './notice-chain.js';
import { NoticeIdentifiers } from './notice-identifiers.js';
import { categoryLabel, isCritical, KIND_WEIGHTS, type Phase, typeLabel } from './notice-labels.js';
import type { NoticeStore, StoredNotice } from './notice-store.js';
import { baseSubject } from './notice-text.js';
import { initialTiming, supersedeTiming } from './notice-timing.js';
import { PIPELINES, type SimPipeline } from './pipelines.js';
import { Random } from './random.js';
import { RefreshSchedule } from './refresh.js';
import { DAY, formatDateTime, HOUR, parseDateTime } from './sim-time.js';

/** What the generator needs from the simulator options. */
export interface GeneratorOptions {
  seed: number;
  startAt: Date;
  historyDays: number;
  noticesPerHour: number;
  /** Every event, history included, is published at the next refresh of this period; 0: at once. */
  refreshEveryMs: number;
}

const CHAIN_LIFETIME = 12 * DAY;

interface HistorySnapshot {
  notices: StoredNotice[];
  open: Array<[number, Chain[]]>;
  counters: Array<[string, number]>;
}

const historyCache = new Map<string, HistorySnapshot>();

/** Writes notices into a store: the history up front, live events on demand. */
export class NoticeGenerator {
  private readonly open = new Map<number, Chain[]>();
  private readonly identifiers = new NoticeIdentifiers();
  private readonly liveRng: Random;
  private readonly manualRng: Random;
  private nextLiveAt: number;
  private readonly refreshes: RefreshSchedule;
  /** When what is being written becomes visible in the service; null: when it happens. */
  private publishAt: number | null = null;

  constructor(
    private readonly store: NoticeStore,
    private readonly opts: GeneratorOptions,
  ) {
    const start = opts.startAt.getTime();
    this.liveRng = Random.of(opts.seed, start, 'live');
    this.manualRng = Random.of(opts.seed, start, 'manual');
    this.nextLiveAt = this.afterGap(start);
    this.refreshes = new RefreshSchedule(opts.seed, opts.refreshEveryMs);
  }

  /**
   * Fills the store with `historyDays` of notices before the start, anchors included. The
   * result is kept per (seed, start, depth, refresh period), so simulators started alike
   * start at once.
   */
  generateHistory(useCache = true): void {
    const o = this.opts;
    const key = `${o.seed}|${o.startAt.getTime()}|${o.historyDays}|${o.refreshEveryMs}`;
    const cached = useCache ? historyCache.get(key) : undefined;
    if (cached && this.store.size === 0) {
      for (const { id: _id, pipeline_id, ...fields } of cached.notices) {
        this.store.insert(pipeline_id, fields);
      }
      for (const [id, chains] of cached.open) this.open.set(id, chains.map(copyChain));
      this.identifiers.restore(cached.counters);
      return;
    }
    this.generate();
    historyCache.set(key, {
      notices: this.store
        .list()
        .map((n) => ({ ...n }))
        .sort((a, b) => a.id - b.id),
      open: [...this.open].map(([id, chains]) => [id, chains.map(copyChain)]),
      counters: this.identifiers.snapshot(),
    });
    keepNewest(historyCache, 4);
  }

  private generate(): void {
    const end = this.opts.startAt.getTime();
    const begin = end - this.opts.historyDays * DAY;
    const events: Array<{ at: number; pipeline: SimPipeline; anchor?: Anchor }> = [];
    for (const p of PIPELINES) {
      const rng = Random.of(this.opts.seed, end, 'history-times', p.slug);
      const last = localDate(new Date(end), p.timezone);
      for (
        let date = localDate(new Date(begin - DAY), p.timezone);
        date <= last;
        date = addDays(date, 1)
      ) {
        const count = Number(rng.weighted({ 0: 1, 1: 3.5, 2: 3.5, 3: 2 }));
        for (let i = 0; i < count; i++) {
          const hour = rng.chance(0.75) ? rng.int(6, 17) : rng.int(0, 23);
          const at = localMs(date, hour, rng.int(0, 59), p.timezone) + rng.int(0, 59) * 1000;
          if (at >= begin && at < end) events.push({ at, pipeline: p });
        }
      }
    }
    for (const anchor of ANCHORS) {
      const at = end - anchor.before;
      const pipeline = PIPELINES.find((p) => p.slug === anchor.slug);
      if (pipeline && at >= begin) events.push({ at, pipeline, anchor });
    }
    events.sort((a, b) => a.at - b.at || a.pipeline.id - b.pipeline.id);
    const rng = Random.of(this.opts.seed, end, 'history');
    for (const e of events) {
      if (e.anchor) this.startChain(e.pipeline, e.at, rng, e.anchor);
      else this.event(e.pipeline, e.at, rng, 0);
    }
    this.dateHistoryByRefresh();
  }

  /**
   * Dates the history as the service does: each notice created, and each update served,
   * at the first refresh at or after it happened. Done once the history is written, so
   * the seeded streams, and every other field, are the same whatever the period. The
   * last events before the start may be dated by a refresh after it: the service shows
   * them from that refresh on (see NoticeStore.list).
   */
  private dateHistoryByRefresh(): void {
    if (this.refreshes.periodMs <= 0) return;
    const served = (text: string) => formatDateTime(this.refreshes.visibleAt(parseDateTime(text)));
    for (const n of this.store.list()) {
      this.store.update(n.id, {
        service_created_at: served(n.service_created_at),
        service_updated_at: served(n.service_updated_at),
      });
    }
  }

  /**
   * Applies every live event whose refresh has come by simulated `now`, in time order.
   * An event happens at its own instant (the posting time derives from it) but the
   * service shows it, and dates its `service_created_at`/`service_updated_at`, from the
   * first refresh at or after it.
   */
  advanceTo(now: number): void {
    for (;;) {
      const at = this.nextLiveAt;
      if (!Number.isFinite(at)) return;
      const visible = this.refreshes.visibleAt(at);
      if (visible > now) return;
      this.publishAt = visible;
      try {
        this.event(this.liveRng.pick(PIPELINES), at, this.liveRng, 0.02);
      } finally {
        this.publishAt = null;
      }
      this.nextLiveAt = this.afterGap(at);
    }
  }

  /** A realistic new notice for a control request to adjust; it joins the live chains. */
  startManual(pipeline: SimPipeline, at: number): StoredNotice {
    return this.startChain(pipeline, at, this.manualRng);
  }

  private afterGap(from: number): number {
    const rate = this.opts.noticesPerHour;
    if (!(rate > 0)) return Number.POSITIVE_INFINITY;
    return from + Math.max(1000, Math.round(this.liveRng.exponential(HOUR / rate)));
  }

  private event(pipeline: SimPipeline, at: number, rng: Random, hostileChance: number): void {
    const open = (this.open.get(pipeline.id) ?? []).filter(
      (c) => c.startedAt > at - CHAIN_LIFETIME,
    );
    this.open.set(pipeline.id, open);
    const roll = rng.next();
    if (open.length > 0 && roll < 0.3) this.continueChain(rng.pick(open), at, rng);
    else if (open.length > 0 && roll < 0.4) this.updateInPlace(rng.pick(open), at, rng);
    else {
      const body = rng.chance(hostileChance) ? rng.pick(HOSTILE_BODIES) : undefined;
      this.startChain(pipeline, at, rng, body && { body });
    }
  }

  private startChain(
    pipeline: SimPipeline,
    at: number,
    rng: Random,
    fixed?: Partial<Anchor>,
  ): StoredNotice {
    const kind = fixed?.kind ?? rng.weighted(KIND_WEIGHTS);
    const place = rng.pick(pipeline.places);
    const critical = fixed?.critical ?? isCritical(kind, rng);
    const timing = initialTiming(kind, at, pipeline.timezone, rng);
    if (fixed?.responseIn !== undefined) timing.responseAt = at + fixed.responseIn;
    if (fixed?.endAt !== undefined) timing.end = fixed.endAt;
    const chain: Chain = {
      pipeline,
      kind,
      place,
      base: baseSubject(kind, place, rng),
      type: typeLabel(kind, pipeline.noticeStyle, rng),
      category: categoryLabel(critical, pipeline.noticeStyle, rng),
      timing,
      lastIdentifier: '',
      lastNoticeId: 0,
      steps: 0,
      startedAt: at,
    };
    const notice = this.write(chain, 'initiate', at, rng, fixed?.body);
    if (!fixed?.slug) this.open.set(pipeline.id, [...(this.open.get(pipeline.id) ?? []), chain]);
    return notice;
  }

  private continueChain(chain: Chain, at: number, rng: Random): void {
    if (chain.steps >= 3 || rng.chance(0.45)) {
      const phase: Phase =
        chain.kind === 'maintenance' && rng.chance(0.5) ? 'complete' : 'terminate';
      chain.timing = { effectiveAt: at, end: at, responseAt: null };
      this.write(chain, phase, at, rng);
      const open = this.open.get(chain.pipeline.id) ?? [];
      this.open.set(
        chain.pipeline.id,
        open.filter((c) => c !== chain),
      );
      return;
    }
    chain.timing = supersedeTiming(chain.timing, at, rng);
    this.write(chain, 'supersede', at, rng);
  }

  private updateInPlace(chain: Chain, at: number, rng: Random): void {
    const notice = this.store.get(chain.lastNoticeId);
    const served = formatDateTime(this.publishAt ?? at);
    if (!notice || notice.service_updated_at >= served) return;
    this.store.update(notice.id, {
      ...chainUpdate(chain, notice, at, rng),
      service_updated_at: served,
    });
  }

  private write(
    chain: Chain,
    phase: Phase,
    at: number,
    rng: Random,
    body?: HostileBody,
  ): StoredNotice {
    const identifier = this.identifiers.next(chain.pipeline, at);
    const fields = chainNotice(chain, phase, at, rng, identifier, body);
    if (this.publishAt !== null) {
      fields.service_created_at = formatDateTime(this.publishAt);
      fields.service_updated_at = fields.service_created_at;
    }
    const stored = this.store.insert(chain.pipeline.id, fields);
    chain.lastIdentifier = identifier;
    chain.lastNoticeId = stored.id;
    chain.steps++;
    return stored;
  }
}

function localMs(date: string, hh: number, mm: number, zone: string): number {
  return zonedTime(date, hh, mm, zone).getTime();
}
