/**
 * What one message to one target would be, exactly as its channel would send it, without
 * sending: Slack's `chat.postMessage` arguments, Discord's message body, an email's
 * subject and parts, a webhook's requests with their headers, a Teams workflow's cards,
 * the console's block. Built
 * from each channel's own pure renderers, so a dry run shows what the daemon sends.
 */

import { type Target, targetKey, targetLabel } from '../domain/targets.js';
import type { UtcIso } from '../lib/time.js';
import { VERSION } from '../lib/version.js';
import { renderConsole } from './console/render.js';
import { type DiscordMessage, nonceFor, renderMessage } from './discord/render.js';
import { renderEmail } from './email/render.js';
import {
  PAGERDUTY_API_URL,
  type PagerDutyEvent,
  renderPagerDutyEvents,
} from './pagerduty/render.js';
import type { Block } from './slack/blocks.js';
import { renderSlack } from './slack/render.js';
import { renderTeams, type TeamsMessage } from './teams/render.js';
import type { Alert } from './types.js';
import { renderWebhookRequest, signRequest } from './webhook/render.js';

/** The sender shown when `EMAIL_FROM` is not set; its domain names the message ids. */
export const PLACEHOLDER_FROM = 'pipewatch <alerts@localhost>';

/** One webhook request. */
export interface WebhookRequest {
  method: 'POST';
  url: string;
  headers: Record<string, string>;
  /** The body parsed back, for reading; `raw` is what is sent and signed. */
  body: unknown;
  raw: string;
}

/** One message for one target, as its channel would send it. */
export type Rendered =
  | {
      kind: 'slack' | 'slack_dm';
      target: string;
      method: 'chat.postMessage';
      /** For a DM, `channel` is the user: the channel opens the conversation first. */
      arguments: { channel: string; text: string; blocks: Block[] };
    }
  | {
      kind: 'discord' | 'discord_dm';
      target: string;
      /** `POST /channels/{id}/messages`; for a DM, the channel opened with the user. */
      route: string;
      body: DiscordMessage & { nonce: string; enforce_nonce: true };
    }
  | {
      kind: 'email';
      target: string;
      from: string;
      to: string[];
      subject: string;
      text: string;
      html: string;
      message_id: string;
      in_reply_to: string | null;
      references: string[];
      headers: Record<string, string>;
    }
  | { kind: 'webhook'; target: string; requests: WebhookRequest[] }
  | {
      kind: 'teams';
      /** As `targetLabel` shows it: the workflow's URL holds its signature. */
      target: string;
      /** One `POST` to the workflow per alert, each a card. */
      messages: TeamsMessage[];
    }
  | {
      kind: 'pagerduty';
      /** `pagerduty:…a1b2`: the integration key is a secret, shown by its last characters. */
      target: string;
      url: string;
      /** The events, each posted alone; `routing_key` shown as the target is. */
      events: PagerDutyEvent[];
    }
  | { kind: 'console'; target: string; text: string };

/** What rendering needs besides the alerts: the send time and the channels' settings. */
export interface RenderOptions {
  /** `sent_at` of the message. */
  now: UtcIso;
  /** EMAIL_FROM; the placeholder when unset. */
  emailFrom?: string | undefined;
  /** PIPEWATCH_WEBHOOK_SECRET: signs webhook bodies when set. */
  webhookSecret?: string | undefined;
  /** PAGERDUTY_API_URL; PagerDuty's own when unset. */
  pagerdutyApiUrl?: string | undefined;
}

/** The message `alerts` (one alert, or a digest the channel takes, all for `target`) would be. */
export function renderFor(
  target: Target,
  alerts: readonly Alert[],
  options: RenderOptions,
): Rendered {
  const key = targetKey(target);
  switch (target.kind) {
    case 'slack':
    case 'slack_dm': {
      const message = renderSlack(alerts, options.now);
      const channel = target.kind === 'slack' ? target.channel : target.user;
      return {
        kind: target.kind,
        target: key,
        method: 'chat.postMessage',
        arguments: { channel, text: message.text, blocks: message.blocks },
      };
    }
    case 'discord':
    case 'discord_dm': {
      const channel = target.kind === 'discord' ? target.channel : `{DM with ${target.user}}`;
      return {
        kind: target.kind,
        target: key,
        route: `POST /channels/${channel}/messages`,
        body: {
          ...renderMessage(alerts, options.now),
          nonce: nonceFor(alerts),
          enforce_nonce: true,
        },
      };
    }
    case 'email': {
      const from = options.emailFrom || PLACEHOLDER_FROM;
      const m = renderEmail(alerts, { from, now: options.now });
      return {
        kind: 'email',
        target: key,
        from,
        to: target.to,
        subject: m.subject,
        text: m.text,
        html: m.html,
        message_id: m.messageId,
        in_reply_to: m.inReplyTo ?? null,
        references: m.references ?? [],
        headers: m.headers,
      };
    }
    case 'webhook':
      return {
        kind: 'webhook',
        target: key,
        requests: alerts.map((a) => webhookRequest(target.url, a, options)),
      };
    case 'teams':
      return {
        kind: 'teams',
        target: targetLabel(target),
        messages: alerts.map((a) => renderTeams(a.payload, options.now)),
      };
    case 'pagerduty':
      return {
        kind: 'pagerduty',
        target: targetLabel(target),
        url: `${(options.pagerdutyApiUrl ?? PAGERDUTY_API_URL).replace(/\/+$/, '')}/v2/enqueue`,
        events: alerts.flatMap((a) => renderPagerDutyEvents(a, targetLabel(target), options.now)),
      };
    case 'console':
      return {
        kind: 'console',
        target: key,
        text: alerts.map((a) => renderConsole(a.payload, key, options.now)).join('\n'),
      };
  }
}

function webhookRequest(url: string, alert: Alert, options: RenderOptions): WebhookRequest {
  const secret = options.webhookSecret;
  const request = renderWebhookRequest(alert, { sentAt: options.now, version: VERSION, secret });
  const headers = signRequest(request, secret, new Date(options.now));
  return { method: 'POST', url, headers, body: JSON.parse(request.body), raw: request.body };
}
