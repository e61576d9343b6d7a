/**
 * The payload fixtures: for each channel, the file of each sample under
 * `test/fixtures/payloads/<channel>/<kind>.<ext>` and how its pure renderer's output
 * for the shared samples (`payload-samples.ts`) is written there. Formats: Slack's `chat.postMessage` text and blocks and Discord's message body as
 * indented JSON; an email's headers, then its text and HTML parts; a webhook request's
 * headers (all but the timed `X-Pipewatch-Signature-V1`, added as it leaves), a blank
 * line, then the body exactly as sent, on one line; the message a Teams workflow is
 * posted, as indented JSON; the console's block. Webhooks, Teams and the console send
 * one alert per message, so they have no digests.
 * line, then the body exactly as sent, on one line; the console's block; PagerDuty's
 * events for the alert, one JSON line each. Webhooks, PagerDuty and the console send one
 * alert per message, so they have no digests.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderConsole } from '../../src/channels/console/render.js';
import { renderMessage } from '../../src/channels/discord/render.js';
import { renderEmail } from '../../src/channels/email/render.js';
import { renderPagerDutyEvents } from '../../src/channels/pagerduty/render.js';
import { renderSlack } from '../../src/channels/slack/render.js';
import { renderTeams } from '../../src/channels/teams/render.js';
import type { Alert } from '../../src/channels/types.js';
import { renderWebhookRequest } from '../../src/channels/webhook/render.js';
import { DIGESTS, SAMPLE_KINDS, type SampleKind, SENT_AT } from './payload-samples.js';

/** The fixtures' folder. */
export const FIXTURES = fileURLToPath(new URL('../fixtures/payloads/', import.meta.url));

/** The secret the webhook fixtures are signed with, and the version they name. */
const FIXTURE_SECRET = 'fixture-webhook-secret-not-a-real-one';
const FIXTURE_VERSION = '1.2.3';

/** How one channel's fixtures are made: its sample target, file type and renderer. */
export interface Fixture {
  /** The target key the sample alerts are keyed to. */
  target: string;
  ext: string;
  /** Whether one message carries several alerts. */
  digest: boolean;
  render(alerts: Alert[]): string;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Each channel's fixtures. */
export const CHANNELS: Record<string, Fixture> = {
  slack: {
    target: 'slack:#gas-constraints',
    ext: 'json',
    digest: true,
    render: (alerts) => json(renderSlack(alerts, SENT_AT)),
  },
  /** Slack with the buttons of the Slack app: messages to channels when it runs. */
  'slack/interactive': {
    target: 'slack:#gas-constraints',
    ext: 'json',
    digest: true,
    render: (alerts) => json(renderSlack(alerts, SENT_AT, { interactive: true })),
  },
  discord: {
    target: 'discord:1187654321098765432',
    ext: 'json',
    digest: true,
    render: (alerts) => json(renderMessage(alerts, SENT_AT)),
  },
  email: {
    target: 'email:scheduling@example.com',
    ext: 'txt',
    digest: true,
    render(alerts) {
      const m = renderEmail(alerts, { from: 'pipewatch <alerts@example.com>', now: SENT_AT });
      const headers = {
        Subject: m.subject,
        'Message-ID': m.messageId,
        ...(m.inReplyTo ? { 'In-Reply-To': m.inReplyTo } : {}),
        ...(m.references ? { References: m.references.join(' ') } : {}),
        ...m.headers,
      };
      return [
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
        '',
        '----- text/plain -----',
        m.text,
        '',
        '----- text/html -----',
        m.html,
        '',
      ].join('\n');
    },
  },
  webhook: {
    target: 'webhook:https://hooks.example.com/pipewatch',
    ext: 'http',
    digest: false,
    render(alerts) {
      const options = { sentAt: SENT_AT, version: FIXTURE_VERSION, secret: FIXTURE_SECRET };
      const r = renderWebhookRequest(alerts[0]!, options);
      return [...Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`), '', r.body, ''].join(
        '\n',
      );
    },
  },
  /** The message a Teams workflow is posted: one card per alert. */
  teams: {
    target: 'teams:https://example.powerplatform.com/workflows/pipewatch',
    ext: 'json',
    digest: false,
    render: (alerts) => json(renderTeams(alerts[0]!.payload, SENT_AT)),
  },
  /** PagerDuty's events for one alert, each as posted, one a line: a fixture's key is a made-up one. */
  pagerduty: {
    target: 'pagerduty:R0UT1NGKEYR0UT1NGKEYR0UT1NGK9a1b',
    ext: 'jsonl',
    digest: false,
    render: (alerts) =>
      renderPagerDutyEvents(alerts[0]!, 'R0UT1NGKEYR0UT1NGKEYR0UT1NGK9a1b', SENT_AT)
        .map((e) => `${JSON.stringify(e)}\n`)
        .join(''),
  },
  console: {
    target: 'console',
    ext: 'txt',
    digest: false,
    render: (alerts) => `${renderConsole(alerts[0]!.payload, 'console', SENT_AT)}\n`,
  },
};

/** The kinds a channel has a fixture of. */
export function fixtureKinds(channel: string): SampleKind[] {
  return SAMPLE_KINDS.filter((k) => !DIGESTS.includes(k) || CHANNELS[channel]!.digest);
}

/** The fixture file of a channel's sample. */
export function fixtureFile(channel: string, kind: SampleKind): string {
  return join(FIXTURES, channel, `${kind}.${CHANNELS[channel]!.ext}`);
}

/** A webhook fixture's body, exactly as sent: the line after the headers. */
export function webhookFixtureBody(kind: SampleKind): string {
  const text = readFileSync(fixtureFile('webhook', kind), 'utf8');
  return text.slice(text.indexOf('\n\n') + 2, -1);
}
