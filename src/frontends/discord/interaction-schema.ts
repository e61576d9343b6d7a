/**
 * A Discord interaction as pipewatch reads it, parsed once at the door: once its
 * signature is verified, the body of a request to `POST /discord/interactions` goes
 * through this schema before anything acts on it, and everything after reads typed
 * fields. Each type pipewatch answers has its shape: PING; APPLICATION_COMMAND and
 * APPLICATION_COMMAND_AUTOCOMPLETE with their options, a group, a subcommand and its
 * options deep at most, as Discord nests them; MESSAGE_COMPONENT with its custom id, the
 * values chosen and the message clicked. Each is held to Discord's own limits (a custom
 * id of 100 characters, 25 options a level), so that a body Discord never sends is
 * refused whole instead of half read. Fields pipewatch does not read pass through
 * unchecked (Discord adds fields); a type pipewatch does not know is read with the
 * fields every interaction has, and answered as one it does not take.
 */
import { z } from 'zod';
import { oneLine } from '../../channels/text.js';
import { issuePath } from '../../lib/zod-checks.js';

/** Discord's interaction types. */
export const INTERACTION = { ping: 1, command: 2, component: 3, autocomplete: 4 } as const;

/**
 * Discord's limits on what an interaction carries. Names and values are counted as
 * JavaScript counts them (UTF-16 units), twice Discord's count in characters, so that a
 * name of letters beyond the Basic Multilingual Plane is never refused.
 */
export const INTERACTION_LIMITS = {
  /** A command's or an option's name: 32 characters. */
  name: 64,
  /** A string option's value: 6,000 characters. */
  value: 12_000,
  /** Options of a command, a group or a subcommand. */
  options: 25,
  /** A component's custom id: 100 characters (pipewatch's are ASCII). */
  customId: 100,
  /** Values chosen in a menu, and each one's length. */
  values: 25,
  valueLength: 100,
  /** Names shown of a user or a channel: 32 and 100 characters. */
  label: 200,
  /** An interaction token (Discord's are a few hundred characters). */
  token: 1000,
} as const;

const L = INTERACTION_LIMITS;

/** A Discord id: a snowflake, digits. */
const snowflake = z.string().regex(/^\d{1,20}$/, 'expected a Discord id (digits)');
const label = z.string().max(L.label).nullish();

const user = z.looseObject({
  id: snowflake,
  username: label,
  global_name: label,
});

const member = z.looseObject({
  user: user.optional(),
  nick: label,
  /** The member's permissions in the channel, a decimal bitfield (`canManage` reads it). */
  permissions: z.string().max(L.label).optional(),
});

const channel = z.looseObject({
  id: snowflake.optional(),
  name: label,
});

/** What every interaction has, whatever its type: who, where, and how to follow it up. */
const common = {
  type: z.number(),
  id: snowflake,
  application_id: snowflake,
  token: z.string().min(1).max(L.token),
  member: member.optional(),
  user: user.optional(),
  channel: channel.optional(),
  channel_id: snowflake.optional(),
  guild_id: snowflake.optional(),
  /** 0 in a server, 1 in a DM with the bot, 2 in a private channel. */
  context: z.number().int().nullish(),
};

/** What every option has, at any depth. */
const optionFields = {
  name: z.string().min(1).max(L.name),
  type: z.number().int(),
  value: z.union([z.string().max(L.value), z.number(), z.boolean()]).optional(),
  /** The option being typed, in an autocompletion. */
  focused: z.boolean().optional(),
};

/** The options of a subcommand: values, nothing under them. */
const valueOption = z.looseObject({
  ...optionFields,
  options: z
    .never({ error: 'options nested deeper than a group, a subcommand and its options' })
    .optional(),
});
/** A subcommand (or an option of a command without any). */
const subcommandOption = z.looseObject({
  ...optionFields,
  options: z.array(valueOption).max(L.options).optional(),
});
/** A group of subcommands, a subcommand, or an option: the first level. */
const topOption = z.looseObject({
  ...optionFields,
  options: z.array(subcommandOption).max(L.options).optional(),
});

/** The `data` of a command and of an autocompletion: the command's name and options. */
const commandData = z.looseObject({
  name: z.string().min(1).max(L.name),
  options: z.array(topOption).max(L.options).optional(),
});

/** A component of the message clicked: enough to find pipewatch's own among them. */
const messageComponent = z.looseObject({
  type: z.number().int(),
  custom_id: z.string().optional(),
});
const messageRow = z.looseObject({
  type: z.number().int(),
  components: z.array(messageComponent).optional(),
});

const componentData = z.looseObject({
  custom_id: z.string().max(L.customId),
  component_type: z.number().int().optional(),
  values: z.array(z.string().max(L.valueLength)).max(L.values).optional(),
});

/** The message a component is on, as a click brings it (an acknowledgement edits it). */
const clickedMessage = z.looseObject({
  id: snowflake,
  embeds: z.array(z.unknown()).optional(),
  components: z.array(messageRow).optional(),
});

const pingSchema = z.looseObject({ type: z.literal(INTERACTION.ping) });
const otherSchema = z.looseObject(common);
const commandSchema = z.looseObject({
  ...common,
  type: z.literal(INTERACTION.command),
  data: commandData,
});
const autocompleteSchema = z.looseObject({
  ...common,
  type: z.literal(INTERACTION.autocomplete),
  data: commandData,
});
const componentSchema = z.looseObject({
  ...common,
  type: z.literal(INTERACTION.component),
  data: componentData,
  message: clickedMessage,
});

/** What every interaction but a PING has: who, where, the token to follow it up with. */
export type InteractionBase = z.infer<typeof otherSchema>;
export type CommandInteraction = z.infer<typeof commandSchema>;
export type AutocompleteInteraction = z.infer<typeof autocompleteSchema>;
export type ComponentInteraction = z.infer<typeof componentSchema>;
/** One option as Discord sends it, at any depth. */
export type InteractionOption = z.infer<typeof topOption>;

/** An interaction to act on (not a PING), by what pipewatch does with it. */
export type Interaction =
  | { kind: 'command'; interaction: CommandInteraction }
  | { kind: 'autocomplete'; interaction: AutocompleteInteraction }
  | { kind: 'component'; interaction: ComponentInteraction }
  | { kind: 'other'; interaction: InteractionBase };

/** What a verified body reads as: a PING, an interaction, or why it is none. */
export type ReadInteraction = { kind: 'ping' } | Interaction | { kind: 'refused'; why: string };

const typed = z.looseObject({ type: z.number() });

/** Why a body failed its schema, in one line: the first field at fault and what is wrong. */
function refusal(error: z.ZodError): string {
  const [issue] = error.issues;
  const where = issue ? issuePath(issue.path) : '';
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more)` : '';
  const what = oneLine(`${where || '(body)'}: ${issue?.message ?? 'invalid'}${more}`);
  return `the body is not an interaction: ${what.slice(0, 300)}`;
}

/** Parses `body` with `schema` into `make`'s interaction, or why it does not fit. */
function read<S extends z.ZodType, R>(
  schema: S,
  body: unknown,
  make: (value: z.output<S>) => R,
): R | { kind: 'refused'; why: string } {
  const result = schema.safeParse(body);
  return result.success ? make(result.data) : { kind: 'refused', why: refusal(result.error) };
}

/**
 * A verified request body as an interaction: a PING, one of the types pipewatch answers,
 * another type (with the fields every interaction has), or why it is not an interaction
 * (not JSON, no type, a field Discord would not send), for a 400.
 */
export function readInteraction(raw: Buffer): ReadInteraction {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return { kind: 'refused', why: 'the body is not valid JSON' };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { kind: 'refused', why: 'the body is not a JSON object' };
  const type = typed.safeParse(body);
  if (!type.success)
    return { kind: 'refused', why: 'the body is not an interaction: it has no type' };
  switch (type.data.type) {
    case INTERACTION.ping:
      return read(pingSchema, body, () => ({ kind: 'ping' as const }));
    case INTERACTION.command:
      return read(commandSchema, body, (interaction) => ({
        kind: 'command' as const,
        interaction,
      }));
    case INTERACTION.autocomplete:
      return read(autocompleteSchema, body, (interaction) => ({
        kind: 'autocomplete' as const,
        interaction,
      }));
    case INTERACTION.component:
      return read(componentSchema, body, (interaction) => ({
        kind: 'component' as const,
        interaction,
      }));
    default:
      return read(otherSchema, body, (interaction) => ({ kind: 'other' as const, interaction }));
  }
}
