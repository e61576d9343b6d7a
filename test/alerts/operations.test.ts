import { describe, expect, it } from 'vitest';
import { AlertEngine } from '../../src/alerts/engine.js';
import type { SchemaDriftEvent } from '../../src/ingest/events.js';
import { silentLogger } from '../../src/lib/logger.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import type { Store } from '../../src/store/index.js';
import { ManualClock } from '../support/clock.js';
import { useTempStore } from '../support/temp-store.js';

const drift = (hash: string): SchemaDriftEvent => ({
  kind: 'schema-drift',
  table: 'notices',
  previousHash: 'a'.repeat(64),
  hash,
  description: {
    name: 'notices',
    description: '',
    primary_key: 'id',
    fields: [{ name: 'id', description: '', type: 'int' }],
  },
  seenAt: '2026-11-20T15:00:00Z',
});

function engine(store: Store, opsTarget?: { kind: 'slack'; channel: string }) {
  return new AlertEngine(
    {
      store: asyncStoreOf(store),
      clock: new ManualClock(),
      logger: silentLogger,
      maxAlertAgeMs: 86_400_000,
      opsTarget,
    },
    [],
  );
}

const temp = useTempStore('pipewatch-operations-');

describe('schema drift', () => {
  it('goes to the operations target once per table and catalog hash', async () => {
    const { store } = temp;
    const hooks = engine(store, { kind: 'slack', channel: '#pipewatch-ops' }).hooks();
    await asyncStoreOf(store).transaction(async () => hooks.schemaDrift?.(drift('b'.repeat(64))));
    await asyncStoreOf(store).transaction(async () => hooks.schemaDrift?.(drift('b'.repeat(64))));
    await asyncStoreOf(store).transaction(async () => hooks.schemaDrift?.(drift('c'.repeat(64))));
    const rows = store.outbox.due('2030-01-01T00:00:00Z');
    expect(rows.map((r) => r.key)).toEqual([
      `pipewatch-operations|schema-drift:notices:${'b'.repeat(64)}|slack:#pipewatch-ops`,
      `pipewatch-operations|schema-drift:notices:${'c'.repeat(64)}|slack:#pipewatch-ops`,
    ]);
    expect(rows[0]?.payload).toMatchObject({
      kind: 'operations',
      state: 'schema-drift',
      operations: {
        table: 'notices',
        summary:
          "The API's catalog for notices changed (it now lists 1 field): check that pipewatch still reads it correctly.",
      },
    });
  });

  it('is only logged without an operations target', async () => {
    const { store } = temp;
    const hooks = engine(store).hooks();
    await asyncStoreOf(store).transaction(async () => hooks.schemaDrift?.(drift('b'.repeat(64))));
    expect(store.outbox.counts().pending).toBe(0);
  });
});
