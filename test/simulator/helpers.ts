import { afterEach } from 'vitest';
import {
  type Simulator,
  type SimulatorOptions,
  simulatorDefaults,
  startSimulator,
} from '../../src/simulator/index.js';
import { ManualClock } from '../support/clock.js';

export const START = '2026-11-20T15:00:00Z';
export const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
export const demo = simulatorDefaults.users.find((u) => u.plan === 'demo')!;

export function basic(username: string, key: string): string {
  return `Basic ${Buffer.from(`${username}:${key}`).toString('base64')}`;
}
export const PREMIUM_AUTH = basic(premium.username, premium.key);
export const DEMO_AUTH = basic(demo.username, demo.key);

export interface Envelope {
  status: string;
  messages: string[];
  meta: Record<string, unknown>;
  data: unknown;
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: Envelope;
}

/** A simulator on a ManualClock, closed after each test of the file that calls this. */
export function useSimulators() {
  const started: Simulator[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.close()));
  });
  return async (opts: Partial<SimulatorOptions> = {}) => {
    const clock = opts.clock instanceof ManualClock ? opts.clock : new ManualClock(START);
    const sim = await startSimulator({ startAt: new Date(START), ...opts, clock });
    started.push(sim);
    return { sim, clock, call: caller(sim.url) };
  };
}

/** Raw HTTP against a simulator: path relative to the base URL, Basic auth by default. */
export function caller(base: string) {
  return async (
    path: string,
    init: { auth?: string | null; method?: string; body?: string; type?: string } = {},
  ): Promise<Reply> => {
    const headers: Record<string, string> = {};
    const auth = init.auth === undefined ? PREMIUM_AUTH : init.auth;
    if (auth) headers.authorization = auth;
    if (init.type) headers['content-type'] = init.type;
    const res = await fetch(`${base}${path}`, {
      method: init.method ?? 'GET',
      headers,
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    const text = await res.text();
    let json: Envelope;
    try {
      json = JSON.parse(text) as Envelope;
    } catch {
      json = { status: 'unparsable', messages: [], meta: {}, data: null };
    }
    return { status: res.status, headers: res.headers, text, json };
  };
}

/** Parses a capacity quantity served as a number or as a string with separators. */
export function qty(value: unknown): number {
  return typeof value === 'number' ? value : Number(String(value).replaceAll(',', ''));
}

export interface NoticeRow {
  id: number;
  pipeline_slug: string;
  posted_at: string;
  service_created_at: string;
  service_updated_at: string;
  [key: string]: unknown;
}

/** Every notice across all pages of /ip/notices. */
export async function allNotices(
  call: ReturnType<typeof caller>,
  query = '',
  auth?: string,
): Promise<NoticeRow[]> {
  const out: NoticeRow[] = [];
  for (let page = 1; ; page++) {
    const sep = query ? '&' : '';
    const r = await call(`/api/v1/ip/notices?${query}${sep}page=${page}`, { auth });
    out.push(...(r.json.data as NoticeRow[]));
    const pagination = r.json.meta.pagination as { total_pages: number };
    if (page >= pagination.total_pages) return out;
  }
}
