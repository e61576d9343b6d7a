/**
 * The OAC chart of a capacity alert on Slack: the message is posted, then the chart is
 * shared as a file in the same conversation through files upload v2, against the fake's
 * real wire format; and an upload that Slack refuses costs the chart, never the alert.
 * One chart is drawn in this file; the other tests share fixed bytes.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChartSource, storedCharts } from '../../../src/channels/charts.js';
import { createLogger } from '../../../src/lib/logger.js';
import { capacityAlert, location } from '../../fakes/alerts.js';
import { transcoCycle } from '../../fakes/capacity-event.js';
import { FAKE_SCOPES, type SlackFake, startSlackFake } from '../../fakes/slack.js';
import { capturedLogger } from '../../support/captured-logger.js';
import { ManualClock } from '../../support/clock.js';
import { useTempStore } from '../../support/temp-store.js';
import { createWaiters, type Waiters } from '../../support/waiters.js';
import { channelsFor, sendContext } from './support.js';

const NOW = '2026-11-21T14:05:00Z';
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** A chart's bytes without drawing one: the signature and some filler. */
const FIXED = Uint8Array.from([...PNG_SIGNATURE, ...new Array(200).fill(7)]);
const fixedCharts: ChartSource = async (p) => [
  {
    name: 'oac-transco-1001234.png',
    png: FIXED,
    alt: 'OAC at STATION 85',
    pipeline: p.pipeline.slug,
    location: '1001234',
  },
];

const temp = useTempStore('slack-charts');
let fake: SlackFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A manual clock that tells `waiters` of each sleep it is asked for. */
class WatchedClock extends ManualClock {
  constructor(
    start: string,
    private readonly waiters: Waiters,
  ) {
    super(start);
  }
  override sleep(ms: number, signal?: AbortSignal): Promise<void> {
    const slept = super.sleep(ms, signal);
    this.waiters.check();
    return slept;
  }
}

/** A logger whose lines a test reads back, telling `waiters` of each. */
function watchedLogger(waiters: Waiters) {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      waiters.check();
      done();
    },
  });
  return { logger: createLogger({ level: 'trace', pretty: false, destination }), lines };
}

/** The warnings a logger wrote, as parsed lines. */
function warnings(lines: string[]): Array<{ msg: string; needed?: string; reason?: string }> {
  return lines.map((l) => JSON.parse(l)).filter((l) => l.level === 40);
}

describe('OAC charts on Slack', () => {
  it('posts the alert, then shares the stored history as a PNG file in the same channel', async () => {
    for (const [n, cycle] of ['timely', 'evening', 'id1'].entries()) {
      const event = transcoCycle({
        cycle,
        gasDay: '2026-11-21',
        seenAt: NOW,
        locations: [location({ oac: 80_000 - n * 10_000 })],
      });
      temp.store.capacity.upsertCycle(event.cycle, event.locations, NOW);
    }
    const history = temp.store.capacity.oacHistory.bind(temp.store.capacity);
    fake = await startSlackFake();
    const { logger, lines } = capturedLogger();
    const { slack } = channelsFor(fake, {}, { logger, charts: storedCharts(() => history) });
    const delivered = await slack.send(
      { kind: 'slack', channel: '#gas' },
      [capacityAlert([location({ oac: 45_000 })])],
      { ...sendContext(), now: NOW },
    );
    await slack.close?.();

    expect(delivered.detail).toMatch(/^ok channel=C0GAS ts=/);
    expect(fake.posts).toHaveLength(1);
    const [file] = fake.uploads;
    expect(fake.uploads).toHaveLength(1);
    expect(file?.name).toBe('oac-transco-1001234.png');
    expect([...(file?.bytes ?? Buffer.alloc(0)).subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    expect(file?.bytes?.length).toBe(file?.length);
    expect(file?.contentType).toBe('application/octet-stream');
    expect(file?.alt).toMatch(/^OAC at STATION 85 \(1001234\) over the last 7 gas days: 3 cycles/);
    expect(file?.shared).toMatchObject({
      channel: 'C0GAS',
      comment: 'OAC chart for capacity alert transco-low-oac (firing)',
    });
    // After the message, never before it: the order of the calls on the wire.
    const order = fake.calls.map((c) => c.method);
    expect(order).toEqual([
      'chat.postMessage',
      'files.getUploadURLExternal',
      'upload',
      'files.completeUploadExternal',
    ]);
    expect(warnings(lines)).toEqual([]);
  });

  it('delivers the alert when Slack refuses the upload, and warns naming the missing scope', async () => {
    fake = await startSlackFake({ scopes: FAKE_SCOPES.filter((s) => s !== 'files:write') });
    const { logger, lines } = capturedLogger();
    const { slack } = channelsFor(fake, {}, { logger, charts: fixedCharts });
    const delivered = await slack.send(
      { kind: 'slack', channel: '#gas' },
      [capacityAlert([location({ oac: 45_000 })], 'resolved')],
      sendContext(),
    );
    await slack.close?.();

    expect(delivered.detail).toMatch(/^ok channel=C0GAS/);
    expect(fake.posts).toHaveLength(1);
    expect(fake.uploads).toEqual([]);
    const [warning, ...others] = warnings(lines);
    expect(others).toEqual([]);
    expect(warning?.needed).toBe('files:write');
    expect(warning?.msg).toBe(
      'slack: the alert was posted, its OAC chart was not: slack: missing_scope (slack:#gas) (the Slack app needs the files:write scope)',
    );
  });

  it('shares the chart in a DM, and in a private channel the bot is in', async () => {
    fake = await startSlackFake();
    fake.channels.set('G0PRIV', { id: 'G0PRIV', name: 'traders', private: true });
    const { slack, slack_dm } = channelsFor(fake, {}, { charts: fixedCharts });
    await slack_dm.send(
      { kind: 'slack_dm', user: 'alice@example.com' },
      [capacityAlert()],
      sendContext(),
    );
    await slack.send({ kind: 'slack', channel: 'G0PRIV' }, [capacityAlert()], sendContext());
    await slack.close?.();
    expect(fake.uploads.map((f) => f.shared?.channel)).toEqual(['DU0ALICE', 'G0PRIV']);
    expect(fake.uploads.every((f) => f.bytes?.equals(Buffer.from(FIXED)))).toBe(true);
  });

  it('a chart refused for a channel the bot left warns with the error; a 429 holds the next upload for Retry-After', async () => {
    const waiters = createWaiters('log');
    const clock = new WatchedClock(NOW, waiters);
    fake = await startSlackFake({ clock });
    const { logger, lines } = watchedLogger(waiters);
    const { slack } = channelsFor(fake, {}, { logger, clock, charts: fixedCharts });
    // The bot is removed between the post and the share.
    fake.inject({ method: 'files.completeUploadExternal', error: 'not_in_channel' });
    await slack.send({ kind: 'slack', channel: '#gas' }, [capacityAlert()], sendContext());
    await waiters.until('the refused share', () => warnings(lines).length === 1, 5_000);
    expect(warnings(lines)[0]?.msg).toContain('slack: not_in_channel (slack:#gas)');

    fake.inject({ method: 'files.getUploadURLExternal', status: 429, retryAfter: 30 });
    await slack.send({ kind: 'slack', channel: '#gas' }, [capacityAlert()], sendContext());
    await waiters.until('the 429', () => warnings(lines).length === 2, 5_000);
    expect(warnings(lines)[1]?.msg).toContain('slack: ratelimited (slack:#gas)');

    await slack.send({ kind: 'slack', channel: '#gas' }, [capacityAlert()], sendContext());
    expect(fake.posts).toHaveLength(3);
    const asked = () => fake!.calls.filter((c) => c.method === 'files.getUploadURLExternal');
    await waiters.until('the upload held', () => clock.sleeps.includes(30_000), 5_000);
    expect(asked()).toHaveLength(2);
    clock.advance(30_000);
    await fake.until('the held upload', () => fake!.uploads.length === 1, 5_000);
    await slack.close?.();
    expect(asked()).toHaveLength(3);
  });
});
