/**
 * What a message looks like on its platform, as plain text for a terminal: the demo
 * prints alerts this way for Slack, Discord and email when those are not configured, so
 * a reader sees the message they would get. One function per platform, each built on
 * the platform's own renderer so the preview cannot drift from what is sent, and one
 * registry, `previewMessage`, that picks by target.
 *
 * A preview carries no colour (the caller decides) and is safe to print whatever the
 * pipelines wrote: escape sequences, C1 controls, bidirectional overrides and bare
 * carriage returns are removed, and every line of a message is indented under its
 * `ALERT …` line, so upstream text can neither move the cursor nor fake an alert line.
 */

import type { Target, TargetKind } from '../domain/targets.js';
import { targetLabel } from '../domain/targets.js';
import { terminalSafe } from '../lib/terminal.js';
import { renderConsole } from './console/render.js';
import { previewDiscord } from './discord/preview.js';
import { MAX_DIGEST as discordDigest } from './discord/render.js';
import { previewEmail } from './email/preview.js';
import { EMAIL_MAX_DIGEST } from './email/render.js';
import { previewPagerDuty } from './pagerduty/render.js';
import { previewSlack } from './slack/preview.js';
import { MAX_DIGEST as slackDigest } from './slack/render.js';
import { previewTeams } from './teams/preview.js';
import { oneLine } from './text.js';
import type { Alert, Channel } from './types.js';
import { previewWebhook } from './webhook/preview.js';

export { previewDiscord } from './discord/preview.js';
export { previewEmail } from './email/preview.js';
export { previewSlack } from './slack/preview.js';
export { previewTeams } from './teams/preview.js';
export { previewWebhook } from './webhook/preview.js';

/** Options of `previewMessage`. */
export interface PreviewOptions {
  /** Said after the target on the `ALERT` line: ` (slack not configured: printed here)`. */
  note?: string;
}

/** What each message line is indented by. */
const INDENT = '    ';

/** The message alone, as plain text, for a target of `kind`; not yet made terminal-safe. */
export function previewBody(kind: TargetKind, alerts: readonly Alert[], now: string): string {
  switch (kind) {
    case 'slack':
    case 'slack_dm':
      return previewSlack(alerts, now);
    case 'discord':
    case 'discord_dm':
      return previewDiscord(alerts, now);
    case 'email':
      return previewEmail(alerts, now);
    case 'webhook':
      return previewWebhook(alerts, now);
    case 'teams':
      return previewTeams(alerts, now);
    case 'pagerduty':
      return previewPagerDuty(alerts, now);
    case 'console':
      return alerts.map((a) => renderConsole(a.payload, 'console', now)).join('\n');
  }
}

/**
 * `alerts` (one message's worth, as the dispatcher groups them) as they would arrive at
 * `target` at `now`: an `ALERT <rules> → <target>` line, then the message indented. For
 * the console, its own blocks, which already have that form.
 */
export function previewMessage(
  target: Target,
  alerts: readonly Alert[],
  now: string,
  options: PreviewOptions = {},
): string {
  // A target whose key holds a secret (a workflow's URL, an integration key) is shown by
  // its label; the others as they are.
  const shown = targetLabel(target);
  const where = `${shown}${options.note ?? ''}`;
  if (target.kind === 'console') {
    return terminalSafe(alerts.map((a) => renderConsole(a.payload, where, now)).join('\n'));
  }
  const rules = [...new Set(alerts.map((a) => a.payload.rule))].join(', ');
  const head = oneLine(terminalSafe(`ALERT ${rules} → ${where}`));
  const body = terminalSafe(previewBody(target.kind, alerts, now))
    .split('\n')
    .map((line) => (line.trim() === '' ? '' : `${INDENT}${line.trimEnd()}`));
  return [head, ...body].join('\n');
}

/** How many alerts one message carries on each platform, so a preview groups as a send would. */
const DIGEST_SIZE: Record<TargetKind, number> = {
  slack: slackDigest,
  slack_dm: slackDigest,
  discord: discordDigest,
  discord_dm: discordDigest,
  email: EMAIL_MAX_DIGEST,
  webhook: 1,
  teams: 1,
  pagerduty: 1,
  console: 1,
};

/**
 * A stand-in for a platform whose credentials are not set (the demo): each message is
 * printed as `previewMessage` shows it, between blank lines to set it apart from log
 * lines, grouped as the platform's channel would group it, and counts as delivered.
 * `note` follows the target on the `ALERT` line.
 */
export function createPreviewChannel<K extends TargetKind>(
  kind: K,
  print: (text: string) => void,
  note = '',
): Channel<K> {
  return {
    kind,
    maxDigest: DIGEST_SIZE[kind],
    async send(target, alerts, ctx) {
      print(`\n${previewMessage(target, alerts, ctx.now, { note })}\n`);
      return { detail: `ok printed ${alerts.length}` };
    },
  };
}
