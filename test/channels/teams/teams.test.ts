/**
 * The Teams channel against a workflow on loopback (`test/fakes/teams.ts`, which checks
 * each card with the Adaptive Cards library): a card posted is accepted (202); 429 is
 * retried after its Retry-After, 5xx retried; any other refusal is permanent with the
 * reason Teams gave; the workflow's signature shows nowhere. Then the whole way, through
 * the dispatcher and the outbox: a 429 waited out and delivered, a 400 dead with its
 * reason.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTeamsChannel } from '../../../src/channels/teams/send.js';
import type { ChannelSet } from '../../../src/channels/types.js';
import { DeliveryErrorCode } from '../../../src/channels/types.js';
import { Dispatcher } from '../../../src/delivery/dispatcher.js';
import type { Target } from '../../../src/domain/targets.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { toUtcIso } from '../../../src/lib/time.js';
import { asyncStoreOf } from '../../../src/store/async-sqlite.js';
import { Store } from '../../../src/store/index.js';
import {
  capacityAlert,
  deadlineAlert,
  failure,
  memoryThreads,
  noticeAlert,
} from '../../fakes/alerts.js';
import { startTeamsWorkflow, type TeamsWorkflow, workflowError } from '../../fakes/teams.js';
import { InstantClock, ManualClock } from '../../support/clock.js';
import { useTempDir } from '../../support/temp-store.js';

const ctx = () => ({ now: '2026-11-20T15:00:00Z' as const, threads: memoryThreads() });
const FAST = { perSecond: 1000, burst: 1000 };

describe('the Teams channel', () => {
  let workflow: TeamsWorkflow;
  beforeEach(async () => {
    workflow = await startTeamsWorkflow();
  });
  afterEach(() => workflow.close());

  const target = (): Target & { kind: 'teams' } => ({ kind: 'teams', url: workflow.url });
  const channel = () =>
    createTeamsChannel({ pace: FAST }, { clock: new ManualClock(), logger: silentLogger });

  it('posts each alert as a card the workflow accepts, naming it by host only', async () => {
    const teams = channel();
    const delivered = await teams.send(target(), [noticeAlert()], ctx());
    await teams.send(target(), [deadlineAlert()], ctx());
    await teams.send(target(), [capacityAlert()], ctx());
    expect(delivered.detail).toBe(`ok HTTP 202 teams:${workflow.origin}/…`);
    expect(workflow.refused).toEqual([]);
    expect(workflow.received.map((r) => r.card.body[0]?.text)).toEqual([
      'Transco: Capacity Constraint',
      '\u23f0 Transco: Response due in 5 h',
      '\ud83d\udd3b Transco: Low OAC at STATION 85 — timely cycle, gas day 2026-11-21',
    ]);
    expect(workflow.received[0]?.card.actions?.[0]).toMatchObject({ title: 'Open notice' });
    await teams.close?.();
  });

  it('sends a 200 KB notice within the 28 KB Teams takes', async () => {
    const teams = channel();
    const huge = 'Receipt meter 4012 scheduled at 50%. '.repeat(6000);
    await teams.send(target(), [noticeAlert({ notice: huge, html: '' })], ctx());
    expect(workflow.refused).toEqual([]);
    expect(workflow.received[0]?.bytes).toBeLessThanOrEqual(28 * 1024);
    expect(workflow.received[0]?.bytes).toBeGreaterThan(20 * 1024);
    // The workflow itself refuses what is larger.
    const over = await fetch(workflow.url, { method: 'POST', body: 'x'.repeat(28 * 1024 + 1) });
    expect(over.status).toBe(413);
    await teams.close?.();
  });

  it('retries a 429 after its Retry-After, holding the workflow meanwhile, and a 5xx', async () => {
    const clock = new ManualClock();
    const teams = createTeamsChannel({ pace: FAST }, { clock, logger: silentLogger });
    workflow.fail(429, { retryAfter: '30' });
    const limited = await failure(teams.send(target(), [noticeAlert()], ctx()));
    expect(limited).toMatchObject({
      code: DeliveryErrorCode.RateLimited,
      permanent: false,
      retryAfterMs: 30_000,
    });
    workflow.fail(502);
    const next = failure(teams.send(target(), [noticeAlert()], ctx()));
    for (let i = 0; i < 1000 && clock.pending === 0; i++)
      await new Promise((resolve) => setImmediate(resolve));
    expect(clock.sleeps).toEqual([30_000]);
    expect(workflow.requests).toBe(1);
    clock.advance(30_000);
    const down = await next;
    expect(workflow.requests).toBe(2);
    expect(down).toMatchObject({ code: DeliveryErrorCode.ServerError, permanent: false });
    await teams.close?.();
  });

  it('gives up on a 400 with the reason Teams gave, and on 413 and 401', async () => {
    const teams = channel();
    workflow.fail(400, {
      body: workflowError(
        'InvalidRequestContent',
        "The input body for trigger 'manual' of type 'Request' did not match its schema definition.",
      ),
    });
    const refused = await failure(teams.send(target(), [noticeAlert()], ctx()));
    expect(refused).toMatchObject({ code: DeliveryErrorCode.Rejected, permanent: true });
    expect(refused.reason).toBe(
      `teams: HTTP 400 InvalidRequestContent: The input body for trigger 'manual' of type 'Request' did not match its schema definition. (teams:${workflow.origin}/…)`,
    );
    workflow.fail(413, { body: 'Request Entity too large' });
    const large = await failure(teams.send(target(), [noticeAlert()], ctx()));
    expect(large).toMatchObject({ code: DeliveryErrorCode.TooLarge, permanent: true });
    const unsigned = {
      kind: 'teams' as const,
      url: workflow.url.replace(workflow.sig, 'forged-signature'),
    };
    const auth = await failure(teams.send(unsigned, [noticeAlert()], ctx()));
    expect(auth).toMatchObject({ code: DeliveryErrorCode.Auth, permanent: true });
    expect(auth.reason).toMatch(/^teams: HTTP 401 DirectApiAuthorizationRequired: /);
    for (const e of [refused, large, auth]) {
      expect(e.reason).not.toContain(workflow.sig);
      expect(e.reason).not.toContain('forged-signature');
    }
    await teams.close?.();
  });

  it('says a workflow that does not answer is unreachable, without its URL', async () => {
    const url = workflow.url;
    await workflow.close();
    const teams = channel();
    const error = await failure(teams.send({ kind: 'teams', url }, [noticeAlert()], ctx()));
    expect(error).toMatchObject({ code: DeliveryErrorCode.Network, permanent: false });
    expect(error.reason).toMatch(/^teams: ECONNREFUSED \(teams:http:\/\/127\.0\.0\.1:\d+\/…\)$/);
    await teams.close?.();
    workflow = await startTeamsWorkflow();
  });
});

describe('Teams through the dispatcher', () => {
  const temp = useTempDir('pipewatch-teams-');
  let workflow: TeamsWorkflow;
  beforeEach(async () => {
    workflow = await startTeamsWorkflow();
  });
  afterEach(() => workflow.close());

  async function deliver(store: Store, clock: InstantClock, boundMs: number): Promise<void> {
    const teams = createTeamsChannel({}, { clock, logger: silentLogger });
    const channels: ChannelSet = { for: () => teams as never };
    const dispatcher = new Dispatcher(
      { store: asyncStoreOf(store), channels, clock, logger: silentLogger },
      { digestWindowMs: 0, maxAgeMs: 6 * 3_600_000, random: () => 0.5 },
    );
    await dispatcher.drain(boundMs);
    await teams.close?.();
  }

  function enqueue(store: Store, clock: InstantClock, id: number): void {
    const target: Target = { kind: 'teams', url: workflow.url };
    const alert = noticeAlert({ id }, `rule|notice:${id}:v1|teams`);
    store.outbox.enqueue(alert.key, 'rule', target, alert.payload, toUtcIso(clock.now()));
  }

  it('waits out a 429 for its Retry-After, then delivers', async () => {
    const clock = new InstantClock('2026-11-20T15:00:00Z');
    const store = Store.open(temp.dir);
    try {
      enqueue(store, clock, 1);
      workflow.fail(429, { retryAfter: '45' });
      await deliver(store, clock, 5 * 60_000);
      expect(workflow.refused.map((r) => r.status)).toEqual([429]);
      expect(workflow.received).toHaveLength(1);
      expect(clock.sleeps).toContain(45_000);
      expect(clock.now().getTime() - Date.parse('2026-11-20T15:00:00Z')).toBeGreaterThanOrEqual(
        45_000,
      );
      const row = store.db.prepare('SELECT status, attempts FROM outbox').get();
      expect(row).toEqual({ status: 'sent', attempts: 2 });
    } finally {
      store.close();
    }
  });

  it('makes a delivery Teams refused dead, with the reason it gave', async () => {
    const clock = new InstantClock('2026-11-20T15:00:00Z');
    const store = Store.open(temp.dir);
    try {
      enqueue(store, clock, 2);
      workflow.fail(400, { body: workflowError('InvalidCard', 'The card is not valid.') });
      await deliver(store, clock, 5 * 60_000);
      const row = store.db
        .prepare('SELECT status, last_error, last_error_code FROM outbox')
        .get() as Record<string, string>;
      expect(row).toEqual({
        status: 'dead',
        last_error: `teams: HTTP 400 InvalidCard: The card is not valid. (teams:${workflow.origin}/…)`,
        last_error_code: 'REJECTED',
      });
      expect(workflow.requests).toBe(1);
    } finally {
      store.close();
    }
  });
});
