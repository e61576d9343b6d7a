/**
 * The kind of a failed delivery is kept with its reason, and dead deliveries are counted
 * by kind, each kind with its latest reason; rows written before kinds were kept show as
 * a kind of their own.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChannelSet } from '../../src/channels/types.js';
import { createWebhookChannel } from '../../src/channels/webhook/send.js';
import { Dispatcher } from '../../src/delivery/dispatcher.js';
import type { Target } from '../../src/domain/targets.js';
import { silentLogger } from '../../src/lib/logger.js';
import { toUtcIso } from '../../src/lib/time.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import { openDatabase } from '../../src/store/database.js';
import { Store } from '../../src/store/index.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { noticeAlert } from '../fakes/alerts.js';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook.js';
import { InstantClock } from '../support/clock.js';
import { useTempDir } from '../support/temp-store.js';

const MINUTE = 60_000;

describe('dead deliveries by kind', () => {
  const temp = useTempDir('pipewatch-dead-codes-');
  let receiver: WebhookReceiver;
  let clock: InstantClock;

  beforeEach(async () => {
    receiver = await startWebhookReceiver();
    clock = new InstantClock('2026-11-20T15:00:00Z');
  });
  afterEach(() => receiver.close());

  const hook = (path: string): Target => ({ kind: 'webhook', url: `${receiver.url}${path}` });

  /** Puts notice `id` for `target` in the outbox, decided `minutesAgo` minutes ago. */
  function enqueue(store: Store, id: number, target: Target, minutesAgo: number): void {
    const alert = noticeAlert({ id }, `rule|notice:${id}:v1|${target.kind}`);
    const at = new Date(clock.now().getTime() - minutesAgo * MINUTE);
    store.outbox.enqueue(alert.key, 'rule', target, alert.payload, toUtcIso(at));
  }

  /** Sends what is due within `boundMs`, each answered in turn with `statuses`. */
  async function deliver(store: Store, statuses: number[], boundMs = 0): Promise<void> {
    const webhook = createWebhookChannel(
      { pace: { perUrl: 1000, perHost: 1000 } },
      { clock, logger: silentLogger },
    );
    const channels: ChannelSet = { for: () => webhook as never };
    const dispatcher = new Dispatcher(
      { store: asyncStoreOf(store), channels, clock, logger: silentLogger },
      { digestWindowMs: 0, maxAgeMs: 6 * 60 * MINUTE, random: () => 0.5 },
    );
    for (const status of statuses) receiver.fail(status);
    await dispatcher.drain(boundMs);
    await webhook.close?.();
  }

  it('keeps the kind of each failure with its reason, and counts the dead by kind', async () => {
    const store = Store.open(temp.dir);
    try {
      enqueue(store, 1, hook('/a'), 3);
      await deliver(store, [404]);
      enqueue(store, 2, hook('/b'), 2);
      await deliver(store, [410]);
      enqueue(store, 3, hook('/c'), 1);
      await deliver(store, [400]);
      enqueue(store, 4, hook('/d'), 0);
      await deliver(store, [503]);

      const codes = store.db
        .prepare('SELECT status, last_error_code AS code FROM outbox ORDER BY id')
        .all();
      expect(codes).toEqual([
        { status: 'dead', code: 'NOT_FOUND' },
        { status: 'dead', code: 'NOT_FOUND' },
        { status: 'dead', code: 'REJECTED' },
        { status: 'pending', code: 'SERVER_ERROR' },
      ]);
      const origin = receiver.url;
      expect(store.outbox.summary().dead_reasons).toEqual([
        {
          code: 'NOT_FOUND',
          count: 2,
          reasons: 2,
          reason: `webhook: HTTP 410 (${origin})`,
          last_at: '2026-11-20T14:58:00Z',
        },
        {
          code: 'REJECTED',
          count: 1,
          reasons: 1,
          reason: `webhook: HTTP 400 (${origin})`,
          last_at: '2026-11-20T14:59:00Z',
        },
      ]);

      // Delivered at last: the failure's kind goes with its reason.
      await deliver(store, [], MINUTE);
      const sent = store.db.prepare('SELECT last_error, last_error_code FROM outbox WHERE id = 4');
      expect(sent.get()).toEqual({ last_error: null, last_error_code: null });
    } finally {
      store.close();
    }
  });

  it('shows rows from before kinds were kept as a kind of their own', async () => {
    const path = join(temp.dir, 'pipewatch.db');
    const old = openDatabase(
      path,
      MIGRATIONS.filter((m) => m.version <= 4),
    );
    old
      .prepare(
        `INSERT INTO outbox (key, rule, target, target_json, payload, status, attempts,
           next_attempt_at, last_error, created_at)
         VALUES ('k', 'rule', 'webhook:x', '{}', '{}', 'dead', 1, ?, 'webhook: HTTP 404 (x)', ?)`,
      )
      .run('2026-11-20T14:00:00Z', '2026-11-20T14:00:00Z');
    old.close();

    const store = Store.open(temp.dir);
    try {
      enqueue(store, 1, hook('/a'), 1);
      await deliver(store, [404]);
      expect(store.outbox.summary().dead_reasons.map((d) => [d.code, d.count])).toEqual([
        [null, 1],
        ['NOT_FOUND', 1],
      ]);
    } finally {
      store.close();
    }
  });
});
