/** The Discord channels (`discord`, `discord_dm`) and their rendering. */

export type { DiscordMessage, Embed, EmbedField } from './render.js';
export {
  COLOURS,
  categoryColour,
  embedLength,
  escapeMarkdown,
  fitEmbeds,
  LIMITS,
  MAX_DIGEST,
  neutraliseMentions,
  nonceFor,
  renderEmbed,
  renderMessage,
  safeUrl,
  supersededEmbed,
} from './render.js';
export type { DiscordChannels, DiscordOptions } from './send.js';
export { createDiscordChannels } from './send.js';
