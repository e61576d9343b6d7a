/**
 * A data directory whose database holds the API's pipeline list and subscriptions as
 * chat makes them, written through the store's own repositories: what `subs`, `silence`,
 * `rules test`, `why` and `status` read.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/store/index.js';
import type { NewSubscription } from '../../src/store/subscriptions.js';
import { storeLocations, storePipelines } from '../fakes/pipelines.js';

export const AT = '2026-11-20T15:00:00Z';

/** A Slack channel subscription made by `U0ALICE` on 2026-11-23. */
export function slackSubscription(
  rule: Record<string, unknown>,
  extra: Partial<NewSubscription> = {},
): NewSubscription {
  return {
    rule,
    target: 'slack:C0GAS12345',
    source: 'slack',
    channel: 'slack:C0GAS12345',
    created_by: 'U0ALICE',
    created_at: '2026-11-23T10:00:00Z',
    notice_id: null,
    ...extra,
  };
}

/** The subscriptions most tests start from, each kind, paused and per-notice included. */
export const SUBSCRIPTIONS: NewSubscription[] = [
  slackSubscription({
    notices: {
      pipelines: ['transco'],
      types: ['constraint'],
      text: 'force\\s+majeure|station 165',
      on: ['new', 'updated'],
      not: { statuses: ['cancelled'] },
    },
    notify: [{ slack: 'C0GAS12345' }],
  }),
  slackSubscription(
    { deadlines: { field: 'response_at', before: ['24h', '2h'], pipelines: ['texas-eastern'] } },
    {
      target: 'slack_dm:U0ALICE12',
      channel: null,
      created_by: 'U0ALICE12',
    },
  ),
  slackSubscription(
    {
      capacity: {
        pipelines: ['transco'],
        locations: ['STATION 85'],
        oac_pct_below: 20,
        cycles: ['timely', 'evening'],
      },
    },
    { target: 'slack:C0OPS12345', channel: 'slack:C0OPS12345', created_by: 'U0BOB' },
  ),
  slackSubscription(
    { deadlines: { before: ['1h'] } },
    { target: 'slack_dm:U0CAROL12', channel: null, created_by: 'U0CAROL12', notice_id: 4242 },
  ),
];

/** Fills `notify` from the target, as chat does: the rule sends to its one target. */
export function withNotify(s: NewSubscription): NewSubscription {
  if (s.rule.notify) return s;
  const colon = s.target.indexOf(':');
  const target = { [s.target.slice(0, colon)]: s.target.slice(colon + 1) };
  return { ...s, rule: { ...s.rule, notify: [target] } };
}

/** A fresh database with `pipelines` tracked and `subscriptions` stored; returns the data dir. */
export function dataDirWith(
  options: {
    pipelines?: string[];
    subscriptions?: NewSubscription[];
    /** Channels to pause after storing the subscriptions, as chat does when one goes away. */
    paused?: Array<{ channel: string; reason: string; at: string }>;
    /** Locations of a pipeline's capacity, stored as a cycle seen at `AT`. */
    locations?: Record<string, Array<[string, string]>>;
  } = {},
): string {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-subs-data-'));
  const store = Store.open(dir);
  try {
    storePipelines(store, options.pipelines ?? [], AT);
    for (const [slug, locations] of Object.entries(options.locations ?? {}))
      storeLocations(store, slug, locations, AT);
    for (const s of options.subscriptions ?? []) store.subscriptions.add(withNotify(s));
    for (const p of options.paused ?? [])
      store.subscriptions.pauseChannel(p.channel, p.reason, p.at);
  } finally {
    store.close();
  }
  return dir;
}

/** Reads the database of `dir` with `read`, read-only. */
export function readStore<T>(dir: string, read: (store: Store) => T): T {
  const store = Store.openReadonly(dir);
  try {
    return read(store);
  } finally {
    store.close();
  }
}

/** A fresh rules directory holding `yaml` as `rules.yaml`. */
export function rulesDir(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-subs-rules-'));
  writeFileSync(join(dir, 'rules.yaml'), yaml);
  return dir;
}

/** One rule-file rule sending to console. */
export const FILE_RULES = `rules:
  - name: transco-constraints
    notices: { pipelines: [transco], types: [constraint] }
    notify: [{ console: true }]
`;
