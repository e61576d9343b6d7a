/**
 * The Slack delivery channel: Block Kit rendering of alerts and digests, and the `slack`
 * and `slack_dm` channels that send them through the Slack Web API. The Slack app that
 * answers `/pipewatch`, the buttons and the App Home is the front end in `frontends/slack/`.
 */
export { type Block, LIMITS } from './blocks.js';
export { PERMANENT_ERRORS, TEMPORARY_ERRORS, toDeliveryError } from './errors.js';
export { escapeText, mdLine, neutralise, safeUrl, slackDate } from './escape.js';
export { DEFAULT_PACE, type PaceOptions } from './pacing.js';
export {
  MAX_DIGEST,
  markSuperseded,
  noticeIds,
  type RenderOptions,
  renderSlack,
  type SlackMessage,
} from './render.js';
export { createSlackChannels, type SlackChannels, type SlackOptions } from './send.js';
