/**
 * The real chat core on a database in a temp dir, as the daemon runs it for Discord
 * channels that go away: subscriptions made from a Discord channel, paused when a send
 * says the channel is gone, and the operations alert that says so queued to the console.
 */
import { createDiscordChannels } from '../../../src/channels/discord/index.js';
import type { DiscordOptions } from '../../../src/channels/discord/send.js';
import type { ChannelDeps } from '../../../src/channels/types.js';
import type { ChatService } from '../../../src/chat/types.js';
import { systemClock } from '../../../src/lib/clock.js';
import type { Logger } from '../../../src/lib/logger.js';
import type { DiscordFake } from '../../fakes/discord.js';
import { CORE_NOW, passThrough, startChatCore } from '../../support/chat-core.js';

/** When the core's clock stands. */
export const NOW = CORE_NOW;

/** A Discord user who may manage the channels they subscribe. */
const MANAGER = '1200000000000000002';

/** The chat core reporting channels gone to the console, and what a test reads its effects in. */
export function startGoneCore(logger: Logger) {
  const chat = startChatCore({
    logger,
    pipelines: ['transco', 'tgp'],
    opsTarget: { kind: 'console' },
  });
  const { store } = chat;
  // The pauses the channels told of, which a send does not wait for: read once they are done.
  const pausing: Promise<unknown>[] = [];
  const core: ChatService = {
    ...passThrough(chat.core),
    channelGone(platform, channel, reason) {
      const paused = chat.core.channelGone(platform, channel, reason);
      pausing.push(paused);
      return paused;
    },
  };
  const settled = () => Promise.allSettled(pausing);
  return {
    core,
    store,
    /** Subscribes a Discord channel to `pipeline`, as its manager typed it there. */
    async subscribe(channel: string, pipeline = 'transco') {
      const caller = { platform: 'discord' as const, channel, user: MANAGER };
      const answer = await core.command(
        { ...caller, canManageChannel: true },
        `subscribe ${pipeline}`,
      );
      if (answer.reply.private) throw new Error(`not subscribed: ${answer.reply.text}`);
    },
    /** Each subscription's channel and why it is paused (null while it is not). */
    pauses: async () => {
      await settled();
      return store.subscriptions.all().map((r) => [r.channel, r.paused_reason]);
    },
    /** The operations alerts queued: which channel went away, and how many paused. */
    opsAlerts: async () => {
      await settled();
      return store.outbox.due('2030-01-01T00:00:00Z').map((r) => {
        const o = r.payload.operations;
        return o?.event === 'channel-gone' ? [o.channel, o.paused] : [r.payload.kind];
      });
    },
    close: () => chat.close(),
  };
}

/**
 * The Discord channels against `fake`, on the real clock, telling the gone core of each
 * channel gone; `told` holds what they told, channel and reason.
 */
export function goneChannels(
  fake: DiscordFake,
  chat: ReturnType<typeof startGoneCore>,
  logger: Logger,
  options: Partial<DiscordOptions> = {},
  deps: Partial<ChannelDeps> = {},
) {
  const told: Array<[string, string]> = [];
  const channels = createDiscordChannels(
    {
      token: fake.token,
      apiUrl: fake.url,
      timeoutMs: 2000,
      ...options,
      onChannelGone(channel, reason) {
        told.push([channel, reason]);
        return chat.core.channelGone('discord', channel, reason);
      },
    },
    { clock: systemClock, logger, ...deps },
  );
  return { ...channels, told };
}
