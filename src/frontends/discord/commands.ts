/**
 * The `/pipewatch` slash command as Discord's API takes it: one subcommand per word of
 * the chat grammar, each `key:` of that word an option of the same name. The names come
 * from the grammar itself (`VERBS`, and the keys each verb reads) and the descriptions
 * from its usage text, so the command Discord shows cannot drift from the words the chat
 * core reads. Every option is a string: its value goes back into the grammar as the text
 * of `key:value`, which checks it as it checks a typed command.
 */
import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ApplicationIntegrationType,
  InteractionContextType,
} from 'discord-api-types/v10';
import { MUTE_MAX_MS, MUTE_MIN_MS, VERBS, type Verb } from '../../chat/commands.js';
import { KEYS } from '../../chat/grammar-verbs.js';
import { usage } from '../../chat/usage.js';
import { formatDuration } from '../../lib/duration.js';
import { DEADLINE_FIELDS } from '../../rules/schema.js';

/** The command's name: what people type after the slash. */
export const COMMAND_NAME = 'pipewatch';

/** Discord's limits on an application command, as its API enforces them. */
export const COMMAND_LIMITS = {
  /** Lowercase where a letter has a lowercase form; Discord also takes Devanagari and Thai. */
  name: /^[-_\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u,
  description: 100,
  options: 25,
  choices: 25,
  choiceName: 100,
  choiceValue: 100,
} as const;

/** A fixed value of an option, offered as a menu. */
export interface CommandChoice {
  name: string;
  value: string;
}

/** One `key:` of a subcommand. */
export interface CommandOption {
  type: ApplicationCommandOptionType.String;
  name: string;
  description: string;
  required?: true;
  /** Discord asks pipewatch what may complete the value being typed. */
  autocomplete?: true;
  choices?: CommandChoice[];
}

/** One word of the grammar. */
export interface Subcommand {
  type: ApplicationCommandOptionType.Subcommand;
  name: Verb;
  description: string;
  options?: CommandOption[];
}

/** The whole command, as a bulk `PUT` of the application's commands takes it. */
export interface SlashCommand {
  type: ApplicationCommandType.ChatInput;
  name: string;
  description: string;
  options: Subcommand[];
  nsfw: false;
  /** Global only: in servers and in DMs with the bot. */
  contexts?: InteractionContextType[];
  integration_types?: ApplicationIntegrationType[];
  /** Global only: what `contexts` says, for clients that read only the older field. */
  dm_permission?: boolean;
}

/** The options the grammar cannot do without: a command missing one is refused. */
const REQUIRED: Partial<Record<Verb, readonly string[]>> = {
  subscribe: ['pipelines'],
  remind: ['pipelines'],
  oac: ['pipeline', 'location', 'below'],
  unsubscribe: ['id'],
};

/** Options whose values are the tracked pipelines and their locations (`chat/suggest.ts`). */
export const AUTOCOMPLETED: readonly string[] = ['pipelines', 'pipeline', 'location'];

/** Options whose set of values is closed: a menu instead of a free text. */
const CHOICES: Readonly<Record<string, readonly CommandChoice[]>> = {
  on: [
    { name: 'new', value: 'new' },
    { name: 'updated', value: 'updated' },
    { name: 'new and updated', value: 'new,updated' },
  ],
  field: DEADLINE_FIELDS.map((f) => ({ name: f, value: f })),
  command: VERBS.filter((v) => v !== 'help').map((v) => ({ name: v, value: v })),
};

/**
 * Descriptions the usage text has no line for, or words that read differently in a
 * Discord option (no quotes around a value there). By `verb.key`, or `verb` alone for the
 * subcommand.
 */
const WRITTEN: Readonly<Record<string, string>> = {
  'oac.pipeline': "the pipeline's slug (one pipeline: a location belongs to one)",
  'oac.location': "the location's name or id",
  'mute.pipeline': "one pipeline's slug; without it, every alert of this channel",
  'mute.for': `how long: ${formatDuration(MUTE_MIN_MS)} to ${formatDuration(MUTE_MAX_MS)}, such as 30m, 4h or 2d; or give until`,
  'mute.category': 'notice categories, as whole words; an alert without one is not held',
  'mute.status': 'notice statuses, as whole words; an alert without one is not held',
  'mute.type': 'notice types, as whole words (maintenance holds Planned Maintenance)',
  'mute.from': 'a later start, with its zone: 2026-12-01T09:00-06:00; without it, now',
  'mute.until': 'the end instead of for, with its zone: 2026-12-01T13:00-06:00',
  'subscribe.escalate':
    'how long an alert may go unacknowledged before it goes to to:, once, such as 30m',
  'subscribe.to':
    'where an escalation goes, comma-separated: pagerduty:KEY, email:ADDRESS, slack:#CHANNEL',
  'unsubscribe.id': 'the id list shows (12 or #12), or all',
  'unmute.id': "the silence's id as list shows it; without it, every silence of this channel",
  help: 'How to write each /pipewatch command, with an example each.',
  'help.command': 'one command to explain; without it, every command',
};

/** The command's own description. */
const DESCRIPTION =
  'Alerts on pipeline notices and capacity: subscribe this channel, set reminders, mute alerts';

/**
 * `text` within Discord's 100 characters: whole, or cut at the last `, ` or `; ` that
 * leaves a sentence short enough, ended with a full stop.
 */
export function fitDescription(text: string): string {
  const max = COMMAND_LIMITS.description;
  if (text.length <= max) return text;
  const cut = Math.max(text.lastIndexOf(', ', max - 1), text.lastIndexOf('; ', max - 1));
  return cut > 0 ? `${text.slice(0, cut)}.` : `${text.slice(0, max - 1)}…`;
}

/**
 * What the usage text of `verb` says: the sentence under its forms, and each key's note
 * (`  type:      notice types; …` and the lines that go on under it), by key.
 */
function usageNotes(verb: Verb): { does: string; keys: Map<string, string> } {
  const lines = usage(verb).split('\n');
  const start = lines.indexOf('') + 1;
  const does: string[] = [];
  const keys = new Map<string, string>();
  let key: string | undefined;
  for (const line of lines.slice(start)) {
    if (line === '') break;
    const note = /^ {2}([A-Za-z]+):? {2,}(\S.*)$/.exec(line);
    if (note) {
      key = note[1].toLowerCase();
      keys.set(key, note[2]);
    } else if (key && /^ {4,}\S/.test(line)) {
      keys.set(key, `${keys.get(key)} ${line.trim()}`);
    } else if (!key) {
      does.push(line.trim());
    }
  }
  return { does: does.join(' '), keys };
}

function option(verb: Verb, key: string, notes: Map<string, string>): CommandOption {
  const description = WRITTEN[`${verb}.${key}`] ?? notes.get(key) ?? key;
  const choices = CHOICES[key];
  return {
    type: ApplicationCommandOptionType.String,
    name: key,
    description: fitDescription(description),
    ...(REQUIRED[verb]?.includes(key) ? { required: true as const } : {}),
    ...(AUTOCOMPLETED.includes(key) ? { autocomplete: true as const } : {}),
    ...(choices ? { choices: choices.map((c) => ({ ...c })) } : {}),
  };
}

function subcommand(verb: Verb): Subcommand {
  const notes = usageNotes(verb);
  // Discord lists required options first, and refuses a command that does not.
  const options = KEYS[verb].keys
    .map((key) => option(verb, key, notes.keys))
    .sort((a, b) => Number(b.required ?? false) - Number(a.required ?? false));
  return {
    type: ApplicationCommandOptionType.Subcommand,
    name: verb,
    description: fitDescription(WRITTEN[verb] ?? notes.does),
    ...(options.length > 0 ? { options } : {}),
  };
}

/**
 * The `/pipewatch` command. Global (`guild: false`), it works in servers and in DMs with
 * the bot (remind, list and help are useful there); a server's own command (`guild:
 * true`) says nothing of DMs, which Discord ignores for it. No
 * `default_member_permissions`: everyone sees the command, and pipewatch checks per
 * subcommand who may change a channel (Manage Channels, see `chat/permissions.ts`), so
 * `remind` and `list` stay open to all.
 */
export function pipewatchCommand(scope: { guild: boolean } = { guild: false }): SlashCommand {
  return {
    type: ApplicationCommandType.ChatInput,
    name: COMMAND_NAME,
    description: DESCRIPTION,
    options: VERBS.map(subcommand),
    nsfw: false,
    ...(scope.guild
      ? {}
      : {
          contexts: [InteractionContextType.Guild, InteractionContextType.BotDM],
          integration_types: [ApplicationIntegrationType.GuildInstall],
          dm_permission: true,
        }),
  };
}
