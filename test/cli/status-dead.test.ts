/**
 * `pipewatch status` lists dead deliveries by kind of failure: a kind whose deliveries
 * all died of one reason shows that reason, a kind with several shows how many and the
 * latest.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Target } from '../../src/domain/targets.js';
import { toUtcIso } from '../../src/lib/time.js';
import { noticeAlert } from '../fakes/alerts.js';
import { InstantClock } from '../support/clock.js';
import { useTempStore } from '../support/temp-store.js';
import { cli } from './run-cli.js';

const NOW = new Date('2026-11-20T15:00:00Z');

describe('status', () => {
  const temp = useTempStore('pipewatch-status-dead-');

  it('counts dead deliveries by kind of failure', async () => {
    const { store, dir } = temp;
    const dead = (id: number, target: Target, reason: string, code: string) => {
      const alert = noticeAlert({ id }, `rule|notice:${id}:v1|${target.kind}`);
      const at = toUtcIso(new Date(NOW.getTime() - (10 - id) * 60_000));
      const subject = `notice:${id}:v1`;
      store.outbox.enqueue(subject, 'rule', target, alert.payload, at);
      const [due] = store.outbox.due(toUtcIso(NOW)).filter((r) => r.subject === subject);
      store.outbox.markDead([due!.id], reason, code);
    };
    dead(
      1,
      { kind: 'slack', channel: '#outside' },
      'slack: not_in_channel (#outside)',
      'FORBIDDEN',
    );
    dead(
      2,
      { kind: 'slack', channel: '#nowhere' },
      'slack: channel_not_found (#nowhere)',
      'NOT_FOUND',
    );
    dead(
      3,
      { kind: 'webhook', url: 'https://hooks.example.com/x' },
      'webhook: HTTP 404 (https://hooks.example.com)',
      'NOT_FOUND',
    );
    dead(
      4,
      { kind: 'webhook', url: 'https://hooks.example.com/y' },
      'webhook: HTTP 404 (https://hooks.example.com)',
      'NOT_FOUND',
    );
    store.close();

    const env = { PIPEWATCH_DATA_DIR: dir, PIPEWATCH_RULES_DIR: join(dir, 'rules') };
    const run = await cli(['status'], env, { clock: new InstantClock(NOW) });
    const lines = run.stdout.split('\n').filter((l) => l.startsWith('  dead: '));
    expect(lines).toEqual([
      '  dead: 3 × NOT_FOUND, 2 reasons, the latest webhook: HTTP 404 (https://hooks.example.com) (last decided 2026-11-20T14:54:00Z)',
      '  dead: 1 × slack: not_in_channel (#outside) [FORBIDDEN] (last decided 2026-11-20T14:51:00Z)',
    ]);
    const json = JSON.parse(
      (await cli(['status', '--json'], env, { clock: new InstantClock(NOW) })).stdout,
    );
    expect(json.outbox.dead_reasons.map((d: { code: string }) => d.code)).toEqual([
      'NOT_FOUND',
      'FORBIDDEN',
    ]);
  });
});
