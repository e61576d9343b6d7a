/**
 * The `/pipewatch` command grammar, the same on every platform: the words after
 * `/pipewatch` in, a typed command or the problems of the words that are wrong out, each
 * at the column of its word. `subscribe`, `remind` and `oac` say what a rule file would
 * say under `notices:`, `deadlines:` or `capacity:`, and the rule schema, the one that
 * checks rule files, decides whether that is valid: its messages come back at the word
 * that wrote the value. Pure and fast: it runs inside a 3-second acknowledgement.
 */
import { quantity } from '../lib/quantity.js';
import type {
  CapacityInput,
  ChatRuleCommand,
  ChatVocabulary,
  DeadlinesInput,
  EscalateInput,
  NoticesInput,
  ParsedChatCommand,
} from './commands.js';
import { COMMAND_MAX_LENGTH } from './commands.js';
import { readCommand, verbOf } from './grammar-verbs.js';
import { schemaProblems } from './problems.js';
import { endColumn, splitWords } from './words.js';

export type {
  CapacityInput,
  ChatCommand,
  ChatRuleCommand,
  ChatVocabulary,
  DeadlinesInput,
  NoticesInput,
  ParsedChatCommand,
  Verb,
} from './commands.js';
export {
  COMMAND_MAX_LENGTH,
  DEFAULT_BEFORE,
  MUTE_MAX_MS,
  MUTE_MIN_MS,
  VERBS,
} from './commands.js';
export type { ChatProblem } from './words.js';

/** A rule-file item, as a `rules:` list holds it. */
export interface ChatRuleItem {
  name: string;
  notices?: NoticesInput;
  deadlines?: DeadlinesInput;
  capacity?: CapacityInput;
  notify: unknown[];
  escalate?: EscalateInput;
}

/** The rule-file item a rule command stands for: what `subs export` prints and the engine loads. */
export function chatRuleItem(
  command: ChatRuleCommand,
  name: string,
  notify: unknown[],
): ChatRuleItem {
  switch (command.verb) {
    case 'subscribe':
      return {
        name,
        notices: command.notices,
        notify,
        ...(command.escalate ? { escalate: command.escalate } : {}),
      };
    case 'remind':
      return { name, deadlines: command.deadlines, notify };
    case 'oac':
      return { name, capacity: command.capacity, notify };
  }
}

/**
 * The rule a rule command stands for, named and with its targets, as the schema checks it
 * here: sent to a channel, where its alerts can be acknowledged. Storing it checks it
 * again with the target it really has.
 */
const CHECKED_AS = { name: 'chat', notify: [{ slack: 'C0CHECKED' }] };

/**
 * Reads the words after `/pipewatch`. Nothing is stored from here: the caller acts on
 * `command`, or answers `problems` (see `problemReply`). No words at all ask for help.
 * A rule command is one `ruleSchema` accepts (under any valid name and targets); what it
 * refuses is reported at the word that wrote the value.
 */
export function parseChatCommand(text: string, vocabulary: ChatVocabulary): ParsedChatCommand {
  if (text.length > COMMAND_MAX_LENGTH) {
    const message = `the command is ${quantity(text.length)} characters long; at most ${quantity(COMMAND_MAX_LENGTH)}`;
    return { ok: false, problems: [{ message, word: '', column: 1 }] };
  }
  const { words, problems } = splitWords(text);
  const first = words[0];
  if (!first)
    return problems.length ? { ok: false, problems } : { ok: true, command: { verb: 'help' } };
  const verb = verbOf(first, problems);
  if (!verb) return { ok: false, problems };
  if (problems.length) return { ok: false, problems, verb };
  const read = readCommand(verb, words.slice(1), vocabulary, endColumn(words.at(-1) ?? first) + 1);
  const { command } = read;
  if (command?.verb === 'subscribe' || command?.verb === 'remind' || command?.verb === 'oac') {
    const item = chatRuleItem(command, CHECKED_AS.name, CHECKED_AS.notify);
    read.problems.push(...schemaProblems(item, read.spans, read.problems, first));
  }
  if (read.problems.length > 0 || !command) {
    return { ok: false, problems: read.problems.sort((a, b) => a.column - b.column), verb };
  }
  return { ok: true, command };
}
