/**
 * What registering `/pipewatch` would change in an application's commands, as Discord
 * lists them. Discord answers with more than it was given (ids, `version`, defaults it
 * fills in such as `nsfw: false` or `default_member_permissions: null`, and it leaves out
 * `required: false`), so both sides are first brought to one form holding only what a
 * command's author writes, every default spelled out; then they are equal or not, and the
 * differences are named in a few words.
 */
import { COMMAND_NAME, type SlashCommand } from '../frontends/discord/commands.js';

/** A command as Discord lists it. */
export type RegisteredCommand = Record<string, unknown> & { name: string };

type Json = Record<string, unknown>;

const CHAT_INPUT = 1;
/** Option types that hold options of their own: a subcommand and a group of them. */
const NESTING = new Set([1, 2]);

const list = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
const orNull = (v: unknown) => v ?? null;
/** A set written as a list (`contexts`): the same whatever the order; empty is none. */
const set = (v: unknown) => (Array.isArray(v) && v.length > 0 ? [...v].sort() : null);
/** Names by locale: the same whatever the order; empty is none. */
const localized = (v: unknown) =>
  v && typeof v === 'object' && Object.keys(v).length > 0
    ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
    : null;

function option(o: Json): Json {
  return {
    type: o.type,
    name: o.name,
    description: o.description ?? '',
    name_localizations: localized(o.name_localizations),
    description_localizations: localized(o.description_localizations),
    required: o.required ?? false,
    autocomplete: o.autocomplete ?? false,
    choices: list(o.choices).map((c) => ({
      name: c.name,
      value: c.value,
      name_localizations: localized(c.name_localizations),
    })),
    channel_types: set(o.channel_types),
    min_value: orNull(o.min_value),
    max_value: orNull(o.max_value),
    min_length: orNull(o.min_length),
    max_length: orNull(o.max_length),
    options: list(o.options).map(option),
  };
}

/**
 * A command as its author writes it, every default spelled out and every field Discord
 * adds left out. `contexts`, `integration_types` and `dm_permission` count only for a
 * global command: Discord ignores them on a server's.
 */
export function comparable(command: Json, global: boolean): Json {
  return {
    type: command.type ?? CHAT_INPUT,
    name: command.name,
    description: command.description ?? '',
    name_localizations: localized(command.name_localizations),
    description_localizations: localized(command.description_localizations),
    default_member_permissions: orNull(command.default_member_permissions),
    nsfw: command.nsfw ?? false,
    ...(global
      ? {
          dm_permission: command.dm_permission ?? true,
          contexts: set(command.contexts),
          integration_types: set(command.integration_types),
        }
      : {}),
    options: list(command.options).map(option),
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The fields of `a` and `b` other than `options` that differ. */
function fields(a: Json, b: Json): string[] {
  return Object.keys(b).filter((k) => k !== 'options' && k !== 'name' && !same(a[k], b[k]));
}

/** `cycles added`, `below changed (required)`, `order changed`: the options of one level. */
function optionChanges(before: Json[], after: Json[]): string[] {
  const names = (l: Json[]) => l.map((o) => String(o.name));
  const old = new Map(before.map((o) => [String(o.name), o]));
  const out: string[] = [];
  for (const o of after) {
    const was = old.get(String(o.name));
    if (!was) out.push(`${o.name} added`);
    else if (!same(was, o))
      out.push(`${o.name} changed (${fields(was, o).join(', ') || 'options'})`);
  }
  const now = new Set(names(after));
  for (const name of names(before)) if (!now.has(name)) out.push(`${name} removed`);
  const kept = names(before).filter((n) => now.has(n));
  if (out.length === 0 && !same(kept, names(after))) out.push('order changed');
  return out;
}

/**
 * What would change from `before` to `after` (both as `comparable` makes them), in a
 * few words each: `description changed`, `subcommand help added`, `options of oac
 * changed: cycles added`. Empty when they are the same.
 */
export function commandChanges(before: Json, after: Json): string[] {
  const out = fields(before, after).map((f) => `${f} changed`);
  const was = new Map(list(before.options).map((o) => [String(o.name), o]));
  const now = list(after.options);
  for (const sub of now) {
    const old = was.get(String(sub.name));
    const kind = NESTING.has(Number(sub.type)) ? 'subcommand' : 'option';
    if (!old) {
      out.push(`${kind} ${sub.name} added`);
      continue;
    }
    if (same(old, sub)) continue;
    const own = fields(old, sub);
    if (own.length > 0) out.push(`${own.join(', ')} of ${sub.name} changed`);
    const inner = optionChanges(list(old.options), list(sub.options));
    if (inner.length > 0) out.push(`options of ${sub.name} changed: ${inner.join(', ')}`);
  }
  const names = new Set(now.map((o) => String(o.name)));
  for (const [name, old] of was) {
    if (!names.has(name)) {
      out.push(`${NESTING.has(Number(old.type)) ? 'subcommand' : 'option'} ${name} removed`);
    }
  }
  if (out.length === 0 && !same(before, after)) out.push('order of subcommands changed');
  return out;
}

/** Whether a registered command is pipewatch's own `/pipewatch` (a chat-input command). */
export function isPipewatch(command: RegisteredCommand): boolean {
  return command.name === COMMAND_NAME && (command.type ?? CHAT_INPUT) === CHAT_INPUT;
}

/** Fields Discord fills in and a bulk `PUT` does not take back. */
const READ_ONLY = [
  'application_id',
  'version',
  'guild_id',
  'name_localized',
  'description_localized',
];

/** Another command of the application, as the `PUT` sends it back unchanged. */
export function keptAsIs(command: RegisteredCommand): Json {
  return Object.fromEntries(Object.entries(command).filter(([k]) => !READ_ONLY.includes(k)));
}

/** How a command is named in the output: `/pipewatch`, or `"Report" (message command)`. */
export function commandLabel(command: RegisteredCommand): string {
  const type = command.type ?? CHAT_INPUT;
  if (type === CHAT_INPUT) return `/${command.name}`;
  const kind = type === 2 ? 'user command' : type === 3 ? 'message command' : `type ${type}`;
  return `"${command.name}" (${kind})`;
}

/** What a bulk `PUT` would do to `/pipewatch`, and the list it would send. */
export interface RegistrationPlan {
  /** `created`, `unchanged`, or `updated (…)`. */
  pipewatch: string;
  changed: boolean;
  /** The application's other commands, kept in the list as they are. */
  others: RegisteredCommand[];
  body: Json[];
}

/**
 * The plan for putting `wanted` among `registered`. The bulk `PUT` replaces the whole
 * list, so the application's other commands (made by hand, or by another tool sharing
 * the bot) go back into it as Discord listed them: registering pipewatch never removes
 * anything of theirs.
 */
export function registrationPlan(
  registered: readonly RegisteredCommand[],
  wanted: SlashCommand,
  global: boolean,
): RegistrationPlan {
  const current = registered.find(isPipewatch);
  const others = registered.filter((c) => c !== current);
  const changes = current
    ? commandChanges(comparable(current, global), comparable({ ...wanted }, global))
    : [];
  const pipewatch = !current
    ? 'created'
    : changes.length === 0
      ? 'unchanged'
      : `updated (${changes.join('; ')})`;
  const body = registered.map((c) => (c === current ? { ...wanted } : keptAsIs(c)));
  if (!current) body.push({ ...wanted });
  return { pipewatch, changed: pipewatch !== 'unchanged', others, body };
}
