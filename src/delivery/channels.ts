/**
 * The channels of a running pipewatch, built from the configuration: one per target
 * kind. A kind whose credentials are not set gets a channel that fails every send
 * temporarily, naming the variable to set, so its alerts wait (up to the delivery's
 * maximum age) instead of being lost; the demo prints them instead. A platform's library
 * (discord.js's REST client, Slack's Web API client, nodemailer, the HTML libraries) is
 * loaded only when its credentials are set, or for the demo's previews: an idle daemon
 * holds only what it can use. Sending to Slack needs only its Web API client, Bolt loads
 * with the Slack app; Discord needs only `@discordjs/rest`, never all of discord.js.
 */
import { createConsoleChannel } from '../channels/console/send.js';
import { createPagerDutyChannel } from '../channels/pagerduty/send.js';
import { createTeamsChannel } from '../channels/teams/send.js';
import type { AnyChannel, Channel, ChannelDeps, ChannelSet } from '../channels/types.js';
import { DeliveryError, DeliveryErrorCode } from '../channels/types.js';
import { createWebhookChannel } from '../channels/webhook/send.js';
import type { ChatPlatform } from '../chat/types.js';
import type { Config } from '../config/index.js';
import type { TargetKind } from '../domain/targets.js';

/** The configuration channels need. */
export type ChannelConfig = Pick<
  Config,
  'slack' | 'discord' | 'pagerduty' | 'email' | 'webhookSecret' | 'delivery' | 'publicUrl'
>;

/** What to set to make a channel work. */
export const CHANNEL_SETTINGS: Record<TargetKind, string> = {
  slack: 'SLACK_BOT_TOKEN',
  slack_dm: 'SLACK_BOT_TOKEN',
  discord: 'DISCORD_BOT_TOKEN',
  discord_dm: 'DISCORD_BOT_TOKEN',
  email: 'SMTP_URL and EMAIL_FROM',
  webhook: '',
  teams: '',
  pagerduty: '',
  console: '',
};

function unconfigured<K extends TargetKind>(kind: K): Channel<K> {
  return {
    kind,
    maxDigest: 1,
    async send() {
      throw new DeliveryError(`${kind}: not configured (set ${CHANNEL_SETTINGS[kind]})`, {
        code: DeliveryErrorCode.NotConfigured,
        permanent: false,
      });
    },
  };
}

export interface ChannelOptions {
  /** Where console alerts go. */
  print: (text: string) => void;
  /**
   * Print alerts for channels that are not configured, as they would look there, instead
   * of holding them (the demo).
   */
  standIn?: boolean;
  /** Whether Slack alerts carry buttons: the Slack app answers them somewhere. */
  slackInteractive?: boolean;
  /** Whether Discord alerts carry components: the Discord app answers them somewhere. */
  discordInteractive?: boolean;
  /** Told when a platform says a channel is gone or the bot is no longer in it. */
  onChannelGone?: (platform: ChatPlatform, channel: string, reason: string) => void;
  /**
   * The key of email unsubscribe links, once known (the database keeps it, and opens
   * after the channels are built); with `publicUrl` set, emails carry the links.
   */
  unsubscribeKey?: () => string | undefined;
}

export class Channels implements ChannelSet {
  private constructor(
    private readonly channels: Map<TargetKind, AnyChannel>,
    private readonly configuredKinds: ReadonlySet<TargetKind>,
    private readonly buttonKinds: ReadonlySet<TargetKind>,
  ) {}

  static async create(
    config: ChannelConfig,
    deps: ChannelDeps,
    options: ChannelOptions,
  ): Promise<Channels> {
    const channels = new Map<TargetKind, AnyChannel>();
    const configured = new Set<TargetKind>(['console', 'webhook', 'teams', 'pagerduty']);
    const put = (c: AnyChannel) => {
      channels.set(c.kind, c);
      configured.add(c.kind);
    };
    put(createConsoleChannel(options.print));
    // Each platform client's own limits follow the total time of one attempt.
    const timeout = { timeoutMs: config.delivery.timeoutMs };
    put(createWebhookChannel({ secret: config.webhookSecret, ...timeout }, deps));
    put(createTeamsChannel(timeout, deps));
    // PagerDuty's integration key is in each target: nothing to configure.
    put(createPagerDutyChannel({ apiUrl: config.pagerduty?.apiUrl, ...timeout }, deps));
    if (config.slack.botToken) {
      const { createSlackChannels } = await import('../channels/slack/send.js');
      const slack = createSlackChannels(
        {
          token: config.slack.botToken,
          ...(config.slack.apiUrl ? { apiUrl: config.slack.apiUrl } : {}),
          ...timeout,
          interactive: options.slackInteractive === true,
          onChannelGone: (channel, reason) => options.onChannelGone?.('slack', channel, reason),
        },
        deps,
      );
      put(slack.slack);
      put(slack.slack_dm);
    }
    if (config.discord.botToken) {
      const { createDiscordChannels } = await import('../channels/discord/send.js');
      const discord = createDiscordChannels(
        {
          token: config.discord.botToken,
          ...(config.discord.apiUrl ? { apiUrl: config.discord.apiUrl } : {}),
          ...timeout,
          interactive: options.discordInteractive === true,
          onChannelGone: (channel, reason) => options.onChannelGone?.('discord', channel, reason),
        },
        deps,
      );
      put(discord.discord);
      put(discord.discord_dm);
    }
    if (config.email.smtpUrl && config.email.from) {
      const { createEmailChannel } = await import('../channels/email/send.js');
      put(
        createEmailChannel(
          {
            smtpUrl: config.email.smtpUrl,
            from: config.email.from,
            ratePerSecond: config.email.ratePerSecond,
            allowPlaintext: config.email.allowPlaintext,
            ...timeout,
            ...(config.publicUrl && options.unsubscribeKey
              ? { unsubscribe: { publicUrl: config.publicUrl, key: options.unsubscribeKey } }
              : {}),
          },
          deps,
        ),
      );
    }
    const { createPreviewChannel } = options.standIn
      ? await import('../channels/preview.js')
      : { createPreviewChannel: undefined };
    for (const kind of Object.keys(CHANNEL_SETTINGS) as TargetKind[]) {
      if (channels.has(kind)) continue;
      channels.set(
        kind,
        (createPreviewChannel
          ? createPreviewChannel(kind, options.print, ` (${kind} not configured: printed here)`)
          : unconfigured(kind)) as AnyChannel,
      );
    }
    // The kinds whose channel messages carry an Acknowledge button someone can click.
    const buttons = new Set<TargetKind>();
    if (configured.has('slack') && options.slackInteractive) buttons.add('slack');
    if (configured.has('discord') && options.discordInteractive) buttons.add('discord');
    return new Channels(channels, configured, buttons);
  }

  for<K extends TargetKind>(kind: K): Channel<K> {
    return this.channels.get(kind) as unknown as Channel<K>;
  }

  /** Whether a kind has its credentials. */
  configured(kind: TargetKind): boolean {
    return this.configuredKinds.has(kind);
  }

  /** Whether a kind's messages to channels carry an Acknowledge button that is answered. */
  acknowledgeable(kind: TargetKind): boolean {
    return this.buttonKinds.has(kind);
  }

  /**
   * Checks each configured platform's credentials, once per platform (a DM channel
   * shares its platform's client): one result per platform.
   */
  async verify(): Promise<Array<{ kind: TargetKind; ok: boolean; detail: string }>> {
    const checks: Array<Promise<{ kind: TargetKind; ok: boolean; detail: string }>> = [];
    for (const [kind, channel] of this.channels) {
      if (!channel.verify || !this.configuredKinds.has(kind) || kind.endsWith('_dm')) continue;
      checks.push(
        channel.verify().then(
          (detail) => ({ kind, ok: true, detail }),
          (error: unknown) => ({
            kind,
            ok: false,
            detail: error instanceof DeliveryError ? error.reason : String(error),
          }),
        ),
      );
    }
    return Promise.all(checks);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...new Set(this.channels.values())].map((c) => c.close?.()));
  }
}
