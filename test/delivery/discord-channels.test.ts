/**
 * The Discord channels as a running pipewatch builds them from its configuration
 * (`Channels.create`), against the fake Discord: a channel gone is told as Discord's,
 * through the daemon's wiring into the real chat core, and components go on alerts only
 * when the Discord app answers them.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatPlatform } from '../../src/chat/types.js';
import { loadConfig } from '../../src/config/index.js';
import { type ChannelOptions, Channels } from '../../src/delivery/channels.js';
import { systemClock } from '../../src/lib/clock.js';
import { checkComponents } from '../channels/discord/component-limits.js';
import { NOW, startGoneCore } from '../channels/discord/gone-setup.js';
import { failure, memoryThreads, noticeAlert } from '../fakes/alerts.js';
import { FAKE_CHANNEL, startDiscordFake } from '../fakes/discord.js';
import { DISCORD_TOKEN } from '../fakes/platforms.js';
import { capturedLogger } from '../support/captured-logger.js';

const MISSING = '1100000000000000008';
const closers: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setup(options: Omit<ChannelOptions, 'print'>) {
  const fake = await startDiscordFake({ token: DISCORD_TOKEN });
  checkComponents(fake);
  const { logger } = capturedLogger();
  const config = loadConfig(
    { DISCORD_BOT_TOKEN: fake.token, DISCORD_API_URL: fake.url },
    mkdtempSync(join(tmpdir(), 'pipewatch-discord-channels-')),
  );
  const channels = await Channels.create(
    config,
    { clock: systemClock, logger },
    { print: () => {}, ...options },
  );
  closers.push(
    () => fake.close(),
    () => channels.close(),
  );
  const send = (channel: string) =>
    channels
      .for('discord')
      .send({ kind: 'discord', channel }, [noticeAlert()], { now: NOW, threads: memoryThreads() });
  return { fake, channels, logger, send };
}

describe('Discord channels of a running pipewatch', () => {
  it('tell a channel gone as Discord’s', async () => {
    const told: Array<[ChatPlatform, string, string]> = [];
    const { send } = await setup({ onChannelGone: (...args) => told.push(args) });
    await failure(send(MISSING));
    expect(told).toEqual([['discord', MISSING, 'the channel was not found (10003)']]);
  });

  it('pause the channel’s subscriptions in the chat core, with one operations alert', async () => {
    let chat: ReturnType<typeof startGoneCore> | undefined;
    const { send, logger } = await setup({
      // As the daemon wires it.
      onChannelGone: (platform, channel, reason) =>
        chat?.core.channelGone(platform, channel, reason),
    });
    chat = startGoneCore(logger);
    closers.push(() => chat?.close());
    await chat.subscribe(MISSING);
    await chat.subscribe(FAKE_CHANNEL);
    const error = await failure(send(MISSING));
    expect(error.permanent).toBe(true);
    await send(FAKE_CHANNEL);
    expect(await chat.pauses()).toEqual([
      [`discord:${MISSING}`, 'the channel was not found (10003)'],
      [`discord:${FAKE_CHANNEL}`, null],
    ]);
    expect(await chat.opsAlerts()).toEqual([[`discord:${MISSING}`, 1]]);
  });

  it('carry components when the Discord app answers them, and not otherwise', async () => {
    const on = await setup({ discordInteractive: true });
    const off = await setup({});
    await on.send(FAKE_CHANNEL);
    await off.send(FAKE_CHANNEL);
    const components = (f: typeof on.fake) =>
      (f.calls[0]?.body as { components?: unknown[] } | undefined)?.components;
    expect(on.fake.calls[0]?.status).toBe(200);
    expect(components(on.fake)).toHaveLength(2);
    expect(components(off.fake)).toBeUndefined();
  });
});
