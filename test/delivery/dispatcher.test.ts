import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleChannel } from '../../src/channels/console/send.js';
import { createSlackChannels } from '../../src/channels/slack/index.js';
import { type AnyChannel, type ChannelSet, DeliveryError } from '../../src/channels/types.js';
import { createWebhookChannel } from '../../src/channels/webhook/send.js';
import { Dispatcher, digests } from '../../src/delivery/dispatcher.js';
import { type Target, targetLabel } from '../../src/domain/targets.js';
import { systemClock } from '../../src/lib/clock.js';
import { createLogger, type Logger, silentLogger } from '../../src/lib/logger.js';
import { toUtcIso } from '../../src/lib/time.js';
import { asyncStoreOf } from '../../src/store/async-sqlite.js';
import { capacityAlert, deadlineAlert, noticeAlert } from '../fakes/alerts.js';
import { startSlackFake } from '../fakes/slack.js';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook.js';
import { InstantClock, ManualClock } from '../support/clock.js';
import { useTempStore } from '../support/temp-store.js';

const HOUR = 3_600_000;

describe('the dispatcher', () => {
  const temp = useTempStore('pipewatch-dispatch-');
  let receiver: WebhookReceiver;
  let printed: string[];
  let clock: InstantClock;

  beforeEach(async () => {
    receiver = await startWebhookReceiver();
    printed = [];
    clock = new InstantClock('2026-11-20T15:00:00Z');
  });
  afterEach(async () => {
    await receiver.close();
  });

  function channels(): ChannelSet & { close(): Promise<void> } {
    const webhook = createWebhookChannel(
      { pace: { perUrl: 1000, perHost: 1000 } },
      { clock, logger: silentLogger },
    );
    const console = createConsoleChannel((t) => printed.push(t));
    const byKind: Partial<Record<Target['kind'], AnyChannel>> = { webhook, console };
    return {
      for: (kind) => byKind[kind] as never,
      close: async () => webhook.close?.(),
    };
  }

  function dispatcher(
    set: ChannelSet,
    over: { maxAgeMs?: number; c?: typeof clock; logger?: Logger } = {},
  ) {
    return new Dispatcher(
      {
        store: asyncStoreOf(temp.store),
        channels: set,
        clock: over.c ?? clock,
        logger: over.logger ?? silentLogger,
      },
      { digestWindowMs: 5_000, maxAgeMs: over.maxAgeMs ?? 6 * HOUR, random: () => 0.5 },
    );
  }

  function enqueue(id: number, target: Target, at = clock.now()): string {
    const alert = noticeAlert(
      { id, subject: `Notice ${id}` },
      `rule|notice:${id}:v1|${target.kind}`,
    );
    temp.store.outbox.enqueue(alert.key, 'rule', target, alert.payload, toUtcIso(at));
    return alert.key;
  }

  const hook = (path = '/hook'): Target => ({ kind: 'webhook', url: `${receiver.url}${path}` });

  it('sends each due alert once, marks it sent with what the platform answered', async () => {
    const set = channels();
    enqueue(1, hook());
    enqueue(2, hook());
    enqueue(3, { kind: 'console' });
    const result = await dispatcher(set).dispatchDue();
    expect(result).toMatchObject({ sent: 3, dead: 0, retrying: 0 });
    expect(receiver.received.map((r) => JSON.parse(r.body).notice.id)).toEqual([1, 2]);
    expect(printed[0]).toMatch(/^ALERT transco-constraints → console: transco new notice #3/);
    const rows = temp.store.db.prepare('SELECT status, detail FROM outbox ORDER BY id').all();
    expect(rows).toEqual([
      { status: 'sent', detail: expect.stringMatching(/^ok HTTP 204 http:\/\/127\.0\.0\.1:\d+$/) },
      { status: 'sent', detail: expect.stringMatching(/^ok HTTP 204/) },
      { status: 'sent', detail: 'ok printed 1' },
    ]);
    expect(await dispatcher(set).dispatchDue()).toMatchObject({ sent: 0 });
    expect(receiver.requests).toBe(2);
    await set.close();
  });

  it('honours Retry-After on a 429 and loses nothing', async () => {
    const set = channels();
    for (let i = 1; i <= 3; i++) enqueue(i, hook());
    receiver.fail(429, 1, 7);
    const start = clock.now().getTime();
    const result = await dispatcher(set).drain(60_000);
    expect(result).toMatchObject({ sent: 3, dead: 0, retrying: 0 });
    // The other two waited with the first: the 429 is the only refused request.
    expect(receiver.requests).toBe(4);
    expect(clock.now().getTime() - start).toBe(7_000);
    expect(receiver.received.map((r) => JSON.parse(r.body).notice.id)).toEqual([1, 2, 3]);
    const attempts = temp.store.db.prepare('SELECT attempts FROM outbox ORDER BY id').pluck().all();
    expect(attempts).toEqual([2, 1, 1]);
    await set.close();
  });

  it('gives up at once when asked to wait past the maximum age, and never waits less than asked', async () => {
    const set = channels();
    enqueue(1, hook());
    enqueue(2, hook('/later'));
    receiver.fail(429, 1, 999_999_999);
    const d = dispatcher(set, { maxAgeMs: HOUR });
    const result = await d.drain(60_000);
    expect(result).toMatchObject({ sent: 1, dead: 1, retrying: 0 });
    expect(receiver.requests).toBe(2);
    expect(temp.store.outbox.summary().dead_reasons[0]?.reason).toMatch(
      /^gave up: asked to wait 11574d1h46m39s, past the maximum age of 1h: webhook: HTTP 429/,
    );

    // Asked for 30 minutes, within the maximum age: the retry is due no sooner.
    enqueue(3, hook());
    receiver.fail(429, 1, 1_800);
    const start = clock.now().getTime();
    expect(await d.dispatchDue()).toMatchObject({ retrying: 1 });
    const row = temp.store.outbox.due('2030-01-01T00:00:00Z')[0]!;
    expect(Date.parse(row.next_attempt_at) - start).toBe(1_800_000);
    await set.close();
  });

  it('leaves a retry due after the bound for the next run', async () => {
    const set = channels();
    enqueue(1, hook());
    receiver.fail(503, 1, 120);
    const result = await dispatcher(set).drain(60_000);
    expect(result).toMatchObject({ sent: 0, retrying: 1 });
    const row = temp.store.outbox.due('2030-01-01T00:00:00Z')[0]!;
    expect(row).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_error: expect.stringMatching(/HTTP 503/),
    });
    expect(row.next_attempt_at).toBe('2026-11-20T15:02:00Z');
    await set.close();
  });

  it('sends a permanent failure to the dead letters with its reason, and other targets go on', async () => {
    const set = channels();
    enqueue(1, hook('/gone'));
    enqueue(2, { kind: 'console' });
    receiver.fail(410);
    const result = await dispatcher(set).drain(60_000);
    expect(result).toMatchObject({ sent: 1, dead: 1 });
    const summary = temp.store.outbox.summary();
    expect(summary).toMatchObject({ sent: 1, dead: 1, pending: 0 });
    expect(summary.dead_reasons[0]?.reason).toMatch(
      /^webhook: HTTP 410 \(http:\/\/127\.0\.0\.1:\d+\)$/,
    );
    expect(printed).toHaveLength(1);
    await set.close();
  });

  it('gives up on temporary failures after the maximum age', async () => {
    const set = channels();
    const manual = new ManualClock('2026-11-20T15:00:00Z');
    enqueue(1, hook(), manual.now());
    receiver.fail(500, 100);
    const d = dispatcher(set, { maxAgeMs: HOUR, c: manual as unknown as InstantClock });
    await d.dispatchDue();
    expect(temp.store.outbox.counts()).toMatchObject({ pending: 1, dead: 0 });
    manual.advance(HOUR);
    await d.dispatchDue();
    expect(temp.store.outbox.summary().dead_reasons[0]?.reason).toMatch(
      /^gave up after 1h: webhook: HTTP 500/,
    );
    await set.close();
  });

  it('after a crash between send and confirmation, sends again only what was in flight', async () => {
    const set = channels();
    enqueue(1, hook());
    await dispatcher(set).dispatchDue();
    enqueue(2, hook());
    enqueue(3, hook());
    // A crash after claiming 2 and 3 (sent or not: unknown) and before confirming them.
    const due = temp.store.outbox.due(toUtcIso(clock.now()));
    temp.store.outbox.claim(
      due.map((r) => r.id),
      toUtcIso(clock.now()),
    );
    temp.reopen();
    const d = dispatcher(set);
    expect(await d.dispatchDue()).toMatchObject({ sent: 0 });
    expect(await d.recover()).toBe(2);
    expect(await d.dispatchDue()).toMatchObject({ sent: 2 });
    expect(receiver.received.map((r) => JSON.parse(r.body).notice.id)).toEqual([1, 2, 3]);
    await set.close();
  });

  it('holds a target that is not configured, naming what to set', async () => {
    const notConfigured: ChannelSet = {
      for: () =>
        ({
          kind: 'slack',
          maxDigest: 1,
          send: async () => {
            throw new DeliveryError('slack: not configured (set SLACK_BOT_TOKEN)', {
              code: 'NOT_CONFIGURED',
              permanent: false,
            });
          },
        }) as never,
    };
    enqueue(1, { kind: 'slack', channel: '#gas' });
    const result = await dispatcher(notConfigured).dispatchDue();
    expect(result).toMatchObject({ retrying: 1, dead: 0 });
    expect(temp.store.outbox.due('2030-01-01T00:00:00Z')[0]?.last_error).toBe(
      'slack: not configured (set SLACK_BOT_TOKEN)',
    );
  });
});

describe('the delivery log', () => {
  const temp = useTempStore('pipewatch-dispatch-log-');
  let receiver: WebhookReceiver;
  const clock = new InstantClock('2026-11-20T15:00:00Z');

  beforeEach(async () => {
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  /** The logger's JSON lines, as a pipe gets them. */
  function jsonLog() {
    const lines: Array<Record<string, unknown>> = [];
    let text = '';
    const destination = new Writable({
      write(chunk, _enc, done) {
        text += String(chunk);
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    return { logger: createLogger({ level: 'info', destination }), lines, text: () => text };
  }

  async function withChannels<T>(run: (set: ChannelSet) => Promise<T>): Promise<T> {
    const fake = await startSlackFake();
    const slack = createSlackChannels(
      { token: fake.token, apiUrl: fake.url, perChannel: { perSecond: 50, burst: 5 } },
      { clock: systemClock, logger: silentLogger },
    );
    const webhook = createWebhookChannel(
      { pace: { perUrl: 1000, perHost: 1000 } },
      { clock, logger: silentLogger },
    );
    const byKind: Partial<Record<Target['kind'], AnyChannel>> = { slack: slack.slack, webhook };
    try {
      return await run({ for: (kind) => byKind[kind] as never });
    } finally {
      await slack.slack.close?.();
      await webhook.close?.();
      await fake.close();
    }
  }

  function enqueue(rule: string, target: Target, alert: { key: string; payload: never }) {
    const key = `${alert.key}|${JSON.stringify(target)}`;
    temp.store.outbox.enqueue(key, rule, target, alert.payload, toUtcIso(clock.now()));
  }

  function send(set: ChannelSet, logger: Logger) {
    return new Dispatcher(
      {
        store: asyncStoreOf(temp.store),
        channels: set,
        clock,
        logger,
      },
      { digestWindowMs: 5_000, maxAgeMs: 6 * HOUR, random: () => 0.5 },
    ).dispatchDue();
  }

  it('says for each alert sent its rule, target, subject and what the platform answered', async () => {
    const { logger, lines, text } = jsonLog();
    const gas: Target = { kind: 'slack', channel: '#gas' };
    const hook: Target = {
      kind: 'webhook',
      url: `${receiver.url}/hook/T0KEN-path?key=s3cret-query`,
    };
    const subjects = ['Capacity Constraint - Station 165', 'Force Majeure - Compressor', 'OFO'];
    for (const [i, subject] of subjects.entries())
      enqueue('transco-constraints', gas, noticeAlert({ id: 216601 + i, subject }) as never);
    enqueue('transco-low-oac', hook, capacityAlert() as never);
    enqueue(
      'response-reminders',
      hook,
      deadlineAlert({ id: 777, subject: 'OFO - Imbalance' }) as never,
    );

    const result = await withChannels((set) => send(set, logger));
    expect(result).toMatchObject({ sent: 5, messages: 3 });
    const sent = lines.filter((l) => l.level === 30);
    expect(sent).toHaveLength(5);

    // A digest of three: three lines, each naming the one answer Slack gave.
    const slack = sent.filter((l) => l.target === 'slack:#gas');
    expect(slack.map((l) => l.msg)).toEqual(
      subjects.map((subject, i) =>
        expect.stringMatching(
          new RegExp(
            `^sent transco-constraints → slack:#gas: notice #${216601 + i} "${subject}" ` +
              String.raw`\(ok channel=C0GAS ts=\d+\.\d+\)$`,
          ),
        ),
      ),
    );
    expect(new Set(slack.map((l) => l.detail)).size).toBe(1);
    expect(slack[0]).toMatchObject({
      rule: 'transco-constraints',
      target: 'slack:#gas',
      kind: 'notice',
      notice_id: 216601,
      subject: 'Capacity Constraint - Station 165',
      detail: expect.stringMatching(/^ok channel=C0GAS ts=/),
      digest_size: 3,
    });

    // A webhook is named by its scheme and host only: its path and query hold its token.
    const hooked = sent.filter((l) => String(l.target).startsWith('webhook:'));
    expect(hooked.map((l) => l.msg)).toEqual([
      expect.stringMatching(
        /^sent transco-low-oac → webhook:http:\/\/127\.0\.0\.1:\d+\/…: low capacity at STATION 85 \(transco timely cycle, gas day 2026-11-21\) \(ok HTTP 204 http:\/\/127\.0\.0\.1:\d+\)$/,
      ),
      expect.stringMatching(
        /^sent response-reminders → webhook:http:\/\/127\.0\.0\.1:\d+\/…: reminder for notice #777 "OFO - Imbalance" \(ok HTTP 204 /,
      ),
    ]);
    expect(hooked[0]).toMatchObject({ rule: 'transco-low-oac', locations: ['STATION 85'] });
    expect(hooked[1]).toMatchObject({ notice_id: 777, subject: 'OFO - Imbalance' });
    expect(text()).not.toMatch(/T0KEN|s3cret|xoxb-/);
  });

  it('says for each alert given up on its rule, target, subject and the reason', async () => {
    const { logger, lines, text } = jsonLog();
    const outside: Target = { kind: 'slack', channel: '#outside' };
    const hook: Target = { kind: 'webhook', url: `${receiver.url}/gone/T0KEN-path` };
    const long = `Planned Maintenance - ${'Station 165 '.repeat(10)}`;
    enqueue('transco-constraints', outside, noticeAlert({ id: 1, subject: long }) as never);
    enqueue('transco-constraints', outside, noticeAlert({ id: 2, subject: 'Second' }) as never);
    enqueue('transco-low-oac', hook, capacityAlert() as never);
    receiver.fail(410);

    const result = await withChannels((set) => send(set, logger));
    expect(result).toMatchObject({ sent: 0, dead: 3 });
    const dead = lines.filter((l) => l.level === 50);
    expect(dead.map((l) => l.msg)).toEqual(
      expect.arrayContaining([
        'could not send transco-constraints → slack:#outside: notice #1 "Planned Maintenance - Station 165 Station 165 Station 165 S…" (slack: not_in_channel (#outside))',
        'could not send transco-constraints → slack:#outside: notice #2 "Second" (slack: not_in_channel (#outside))',
        expect.stringMatching(
          /^could not send transco-low-oac → webhook:http:\/\/127\.0\.0\.1:\d+\/…: low capacity at STATION 85 .*\(webhook: HTTP 410 \(http:\/\/127\.0\.0\.1:\d+\)\)$/,
        ),
      ]),
    );
    expect(dead).toHaveLength(3);
    expect(dead.find((l) => l.notice_id === 2)).toMatchObject({
      rule: 'transco-constraints',
      target: 'slack:#outside',
      subject: 'Second',
      reason: 'slack: not_in_channel (#outside)',
      permanent: true,
    });
    expect(text()).not.toContain('T0KEN');
  });

  it('shows a webhook target without its path, query or credentials', () => {
    const url = 'https://user:pa55@hooks.example.com:8443/services/T0/B0/XyZ?token=abc#frag';
    expect(targetLabel({ kind: 'webhook', url })).toBe('webhook:https://hooks.example.com:8443/…');
    expect(targetLabel({ kind: 'webhook', url: 'not a url' })).toBe('webhook:…');
    expect(targetLabel({ kind: 'email', to: ['a@b.c', 'd@e.f'] })).toBe('email:a@b.c,d@e.f');
    expect(targetLabel({ kind: 'slack', channel: '#gas-constraints' })).toBe(
      'slack:#gas-constraints',
    );
  });
});

describe('digests', () => {
  const row = (id: number, at: string) =>
    ({ id, next_attempt_at: at }) as Parameters<typeof digests>[0][number];

  it('groups alerts due within the window, up to the channel maximum', () => {
    const rows = [
      row(1, '2026-11-20T15:00:00Z'),
      row(2, '2026-11-20T15:00:01Z'),
      row(3, '2026-11-20T15:00:04Z'),
      row(4, '2026-11-20T15:00:06Z'),
      row(5, '2026-11-20T15:00:06Z'),
      row(6, '2026-11-20T15:00:07Z'),
    ];
    expect(digests(rows, 5_000, 10).map((d) => d.map((r) => r.id))).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    expect(digests(rows, 5_000, 2).map((d) => d.map((r) => r.id))).toEqual([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    expect(digests(rows, 0, 10).map((d) => d.length)).toEqual([1, 1, 1, 2, 1]);
  });
});
