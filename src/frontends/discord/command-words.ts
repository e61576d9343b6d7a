/**
 * Discord's `/pipewatch` slash command back into the words a person types after
 * `/pipewatch` (`subscribe pipelines:transco type:constraint`), so that Discord and Slack
 * go through the one grammar (`chat/grammar.ts`) and get the same answers, its "did you
 * mean" for an unknown subcommand or option included. Discord registers each verb as a
 * subcommand and each `key:` as an option of the same name; `help`'s option (`topic`)
 * is the word after `help`. Each value is written so that the grammar reads back exactly
 * what was typed in Discord's box: in quotes when it holds a space or a quote mark, with
 * whichever kind of quote its text does not close. A list option (pipelines, types,
 * cycles…) is split at its commas, and for those whose items never hold a space (slugs,
 * durations, cycle names) at spaces too, each item quoted on its own.
 */

import { clip, oneLine } from '../../channels/text.js';
import { privateReply } from '../../chat/service.js';
import type { ChatReply } from '../../chat/types.js';

/** The slash command pipewatch registers. */
export const COMMAND_NAME = 'pipewatch';

/** Discord's option types that hold further options: a subcommand and a group of them. */
const SUB_COMMAND = 1;
const SUB_COMMAND_GROUP = 2;

/** Options whose items are words without spaces: split at spaces and at commas. */
const WORD_LISTS = new Set(['pipelines', 'pipeline', 'on', 'before', 'cycles', 'cycle']);
/** Options whose items may hold spaces (`Planned Outage`): split at commas only. */
const PHRASE_LISTS = new Set(['type', 'types', 'category', 'categories', 'status', 'statuses']);
/** Options written as a word of their own, without their name: `help`'s topic. */
const POSITIONAL: Readonly<Record<string, readonly string[]>> = { help: ['topic', 'command'] };

/** Quote marks as the grammar reads them (`chat/words.ts`): each family closes its own. */
const DOUBLE = '"“”„‟';
const SINGLE = "'‘’‚‛";

/** One option of an interaction's `data.options`, as Discord sends it. */
export interface CommandOption {
  name: string;
  type: number;
  value?: unknown;
  options?: CommandOption[];
  focused?: boolean;
}

/** The words typed, or why they cannot be written as words (a reply only the caller sees). */
export type CommandWords = { text: string } | { reply: ChatReply };

/** `true` when the value reads back as itself without quotes. */
function plainWord(value: string): boolean {
  return value !== '' && !/\s/u.test(value) && ![...value].some((c) => isQuote(c));
}

function isQuote(ch: string): boolean {
  return DOUBLE.includes(ch) || SINGLE.includes(ch);
}

/**
 * The value as one word the grammar reads back as exactly `value`; `undefined` when no
 * quoting can say it (both kinds of quote mark appear, each before a space or a comma,
 * where the grammar would end the quoted stretch).
 */
export function quoteValue(value: string): string | undefined {
  if (plainWord(value)) return value;
  const chars = Array.from(value);
  for (const [mark, family] of [
    ['"', DOUBLE],
    ["'", SINGLE],
  ] as const) {
    const closesEarly = chars.some(
      (c, j) => family.includes(c) && j + 1 < chars.length && /[\s,]/u.test(chars[j + 1]),
    );
    if (!closesEarly) return `${mark}${value}${mark}`;
  }
  return undefined;
}

/** An option's value as text: strings as they are, numbers and booleans as written. */
function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

/** The items of a list option, each quoted on its own, joined by commas. */
function listWord(name: string, value: string, words: boolean): string | undefined {
  const items = value
    .split(words ? /[\s,]+/u : ',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  const quoted = items.map(quoteValue);
  if (quoted.some((q) => q === undefined)) return undefined;
  return `${name}:${quoted.join(',')}`;
}

/** One option as its word: `name:value`, or the value alone for a positional one. */
function optionWord(verb: string, option: CommandOption): string | undefined {
  const name = option.name.toLowerCase();
  const value = valueText(option.value);
  if (POSITIONAL[verb]?.includes(name)) return quoteValue(value);
  if (WORD_LISTS.has(name)) return listWord(name, value, true);
  if (PHRASE_LISTS.has(name)) return listWord(name, value, false);
  const quoted = quoteValue(value);
  return quoted === undefined ? undefined : `${name}:${quoted}`;
}

function unquotable(name: string): ChatReply {
  return privateReply(
    `Not done: ${clip(oneLine(name), 40)}: holds both " and ' before a space or a comma, which a command cannot quote; write one of them another way.`,
  );
}

/**
 * The words after `/pipewatch` that the interaction's `data` stands for: its subcommand
 * (and group) as the verb, then its options. An option whose name the grammar does not
 * know is still written as `name:value`, for the grammar to answer.
 */
export function commandWords(data: {
  name?: unknown;
  options?: readonly CommandOption[] | undefined;
}): CommandWords {
  if (data.name !== COMMAND_NAME) {
    const name = clip(oneLine(String(data.name ?? '')), 40);
    return { reply: privateReply(`pipewatch answers /${COMMAND_NAME} only, not /${name}.`) };
  }
  const { names, options } = subcommand(data.options);
  const words = [...names];
  const verb = names.at(-1)?.toLowerCase() ?? '';
  for (const option of options) {
    if (option.type === SUB_COMMAND || option.type === SUB_COMMAND_GROUP) continue;
    const word = optionWord(verb, option);
    if (word === undefined) return { reply: unquotable(option.name) };
    words.push(word);
  }
  return { text: words.join(' ') };
}

/** Subcommand (and group) names an interaction's options hold, and the options of the last. */
function subcommand(options: readonly CommandOption[] | undefined): {
  names: string[];
  options: readonly CommandOption[];
} {
  const names: string[] = [];
  let current = options ?? [];
  for (let depth = 0; depth < 2; depth++) {
    const sub = current.find((o) => o.type === SUB_COMMAND || o.type === SUB_COMMAND_GROUP);
    if (!sub) break;
    names.push(sub.name);
    current = sub.options ?? [];
  }
  return { names, options: current };
}

/** The options of the subcommand an interaction names (its group's, if any); else its own. */
export function subcommandOptions(
  options: readonly CommandOption[] | undefined,
): readonly CommandOption[] {
  return subcommand(options).options;
}
