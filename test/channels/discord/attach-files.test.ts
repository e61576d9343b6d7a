/**
 * A Discord channel where pipewatch may post but not attach files: a capacity alert's
 * chart is refused with 403 50013 (Missing Permissions), and the alert goes again
 * without it, with a warning that says what to grant; the channel's subscriptions stay
 * as they are. Only a post refused without files too is a channel closed to pipewatch.
 * Through the real channel sender and the real chat core, against the fake's wire format;
 * the charts are fixed bytes, none is drawn.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ChartSource } from '../../../src/channels/charts.js';
import type { Alert, SendContext } from '../../../src/channels/types.js';
import { DeliveryErrorCode } from '../../../src/channels/types.js';
import { capacityAlert, failure, memoryThreads, noticeAlert } from '../../fakes/alerts.js';
import { FAKE_CHANNEL, startDiscordFake } from '../../fakes/discord.js';
import { capturedLogger } from '../../support/captured-logger.js';
import { goneChannels, NOW, startGoneCore } from './gone-setup.js';

/** A channel where pipewatch may post, embeds included, but not attach files. */
const NO_FILES = '1100000000000000011';
/** A channel where pipewatch may not post at all. */
const READ_ONLY = '1100000000000000012';

const WARNING =
  `discord: the alert was posted without its OAC chart: pipewatch may not attach files in channel ${NO_FILES} (Missing Permissions, 50013); ` +
  "give pipewatch's role the Attach Files permission in that channel";

/** The chart of each capacity alert's first location, as fixed bytes. */
const fixedCharts: ChartSource = async (p) => {
  const first = p.capacity?.locations[0];
  if (!first) return [];
  const key = first.identifier || first.location;
  return [
    {
      name: `oac-${p.pipeline.slug}-${key}.png`,
      png: Uint8Array.from([0x89, 0x50, 0x4e, 0x47, ...new Array(200).fill(7)]),
      alt: `OAC at ${first.location}`,
      pipeline: p.pipeline.slug,
      location: key,
    },
  ];
};

/** A capacity alert of STATION 85 in episode `n`. */
function capacityEpisode(n: number): Alert {
  return { ...capacityAlert(), key: `transco-low-oac|capacity:transco:1001234:e${n}|discord` };
}

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setup() {
  const fake = await startDiscordFake({
    channels: [FAKE_CHANNEL, NO_FILES, READ_ONLY],
    noAttachFiles: [NO_FILES],
    noSendMessages: [READ_ONLY],
    bucket: { limit: 50, resetAfterMs: 5000 },
  });
  const { logger, lines } = capturedLogger();
  const chat = startGoneCore(logger);
  const { discord, told } = goneChannels(fake, chat, logger, {}, { charts: fixedCharts });
  closers.push(
    () => fake.close(),
    () => discord.close?.(),
    () => chat.close(),
  );
  const ctx: SendContext = { now: NOW, threads: memoryThreads() };
  let episode = 0;
  /** Sends `alerts`, by default a capacity alert of an episode of its own (a nonce of its own). */
  const send = (channel: string, alerts: Alert[] = [capacityEpisode(++episode)]) =>
    discord.send({ kind: 'discord', channel }, alerts, ctx);
  /** The log lines at `level` (40 warn, 20 debug) that speak of a chart left out. */
  const chartLines = (level: number) =>
    lines
      .map((l) => JSON.parse(l) as { level: number; msg: string; channel?: string })
      .filter((l) => l.level === level && l.msg.includes('without its OAC chart'));
  /** The statuses of the message posts to `channel`, in order. */
  const posts = (channel: string) =>
    fake.calls
      .filter((c) => c.method === 'POST' && c.path === `/v10/channels/${channel}/messages`)
      .map((c) => c.status);
  return { fake, chat, told, send, chartLines, posts };
}

describe('a channel where pipewatch may not attach files', () => {
  it('gets the capacity alert without its chart, a warning, and keeps its subscriptions', async () => {
    const { fake, chat, told, send, chartLines, posts } = await setup();
    await chat.subscribe(NO_FILES);
    const delivered = await send(NO_FILES);

    expect(delivered.detail).toMatch(new RegExp(`^ok channel=${NO_FILES} message=\\d+$`));
    expect(posts(NO_FILES)).toEqual([403, 200]);
    const [message, ...others] = fake.messages;
    expect(others).toEqual([]);
    expect(message?.attachments).toEqual([]);
    expect(message?.embeds).toHaveLength(1);
    expect(message?.embeds[0]).not.toHaveProperty('image');
    expect(message?.embeds[0]?.title).toContain('STATION 85');
    expect(chartLines(40)).toMatchObject([{ msg: WARNING, channel: NO_FILES }]);
    expect(told).toEqual([]);
    expect(await chat.pauses()).toEqual([[`discord:${NO_FILES}`, null]]);
    expect(await chat.opsAlerts()).toEqual([]);
  });

  it('warns once per channel; the alerts after it say so at debug level only', async () => {
    const { fake, send, chartLines, posts } = await setup();
    await send(NO_FILES);
    await send(NO_FILES);
    await send(NO_FILES);
    expect(fake.messages.map((m) => m.attachments.length)).toEqual([0, 0, 0]);
    expect(posts(NO_FILES)).toEqual([403, 200, 403, 200, 403, 200]);
    expect(chartLines(40)).toHaveLength(1);
    expect(chartLines(20).map((l) => l.msg)).toEqual([WARNING, WARNING]);
  });

  it('warns again when files, once allowed again, are refused again', async () => {
    const { fake, send, chartLines } = await setup();
    await send(NO_FILES);
    fake.noAttachFiles.delete(NO_FILES);
    await send(NO_FILES);
    expect(fake.messages.at(-1)?.attachments.map((a) => a.filename)).toEqual([
      'oac-transco-1001234.png',
    ]);
    fake.noAttachFiles.add(NO_FILES);
    await send(NO_FILES);
    expect(chartLines(40)).toHaveLength(2);
  });

  it('costs nothing elsewhere: other channels keep their charts, alerts without one post once', async () => {
    const { fake, send, chartLines, posts } = await setup();
    await send(NO_FILES);
    await send(FAKE_CHANNEL);
    await send(NO_FILES, [noticeAlert()]);
    expect(posts(FAKE_CHANNEL)).toEqual([200]);
    expect(posts(NO_FILES)).toEqual([403, 200, 200]);
    const there = fake.messages.find((m) => m.channel_id === FAKE_CHANNEL);
    expect(there?.attachments.map((a) => a.filename)).toEqual(['oac-transco-1001234.png']);
    expect(there?.embeds[0]?.image).toEqual({ url: 'attachment://oac-transco-1001234.png' });
    expect(chartLines(40).map((l) => l.channel)).toEqual([NO_FILES]);
  });
});

describe('a channel where pipewatch may not post at all', () => {
  it('refuses the alert without its chart too: the send fails and the channel pauses', async () => {
    const { fake, chat, told, send, chartLines, posts } = await setup();
    await chat.subscribe(READ_ONLY);
    const error = await failure(send(READ_ONLY));

    expect({ code: error.code, permanent: error.permanent }).toEqual({
      code: DeliveryErrorCode.Forbidden,
      permanent: true,
    });
    expect(error.reason).toBe(`discord: 403 Missing Permissions [50013] (channel ${READ_ONLY})`);
    expect(posts(READ_ONLY)).toEqual([403, 403]);
    expect(fake.messages).toEqual([]);
    const reason = 'pipewatch may not post in the channel (50013)';
    expect(told).toEqual([[READ_ONLY, reason]]);
    expect(await chat.pauses()).toEqual([[`discord:${READ_ONLY}`, reason]]);
    expect(await chat.opsAlerts()).toEqual([[`discord:${READ_ONLY}`, 1]]);
    expect(chartLines(40)).toEqual([]);
  });

  it('other failures of a message with files are not retried without them', async () => {
    const { fake, chat, told, send, chartLines, posts } = await setup();
    await chat.subscribe(FAKE_CHANNEL);
    fake.inject({ status: 503 });
    fake.inject({ status: 403, body: { message: 'Missing Access', code: 50001 } });
    expect((await failure(send(FAKE_CHANNEL))).permanent).toBe(false);
    expect((await failure(send(FAKE_CHANNEL))).reason).toContain('[50001]');
    expect(posts(FAKE_CHANNEL)).toEqual([503, 403]);
    expect(told).toEqual([[FAKE_CHANNEL, 'pipewatch can no longer see the channel (50001)']]);
    expect(chartLines(40)).toEqual([]);
  });
});
