import { describe, expect, it } from 'vitest';
import { HELP, MIX, mixRandom, REMINDERS, typed } from '../../bench/chat-ack-side.js';
import { TYPES } from '../../bench/rules.js';
import { subscribeChoice, subscribeOptions, subscribeWords } from '../../bench/subscriptions.js';
import { type ChatVocabulary, parseChatCommand } from '../../src/chat/grammar.js';
import { commandWords } from '../../src/frontends/discord/command-words.js';
import { PIPELINES } from '../../src/simulator/pipelines.js';
import { commandData } from '../fakes/discord-interaction-payloads.js';

/** What the benchmark's store knows when the commands come. */
const VOCABULARY: ChatVocabulary = {
  pipelines: PIPELINES.map((p) => p.slug),
  types: TYPES,
  categories: ['Critical', 'Non-Critical'],
  statuses: ['Initiate', 'SUPERSEDE', 'Terminate'],
};

/** The command the words stand for, as the chat core reads it. */
function read(text: string) {
  const parsed = parseChatCommand(text, VOCABULARY);
  if (!parsed.ok) throw new Error(`'${text}': ${parsed.problems.map((p) => p.message).join('; ')}`);
  return parsed.command;
}

/** The command a Discord `/pipewatch <verb>` with these options stands for. */
function readDiscord(verb: string, options: Record<string, string>) {
  const words = commandWords(commandData(verb, options));
  if (!('text' in words)) throw new Error(`${verb}: ${words.reply.text}`);
  return read(words.text);
}

describe("chat_ack: Discord's side sends the commands Slack's side types", () => {
  it('every subscription of the mix, as options, is the subscription typed as words', () => {
    const random = mixRandom();
    const subscribes = (2_100 * MIX.filter((k) => k === 'subscribe').length) / MIX.length;
    for (let i = 0; i < subscribes; i++) {
      const choice = subscribeChoice(random);
      expect(readDiscord('subscribe', subscribeOptions(choice))).toEqual(
        read(subscribeWords(choice)),
      );
    }
  });

  it.each([
    ...REMINDERS.map((o) => ['remind', o] as const),
    ...HELP.map((o) => ['help', o] as const),
  ])('%s %o, as options, is the command typed as words', (verb, options) => {
    expect(readDiscord(verb, options)).toEqual(read(typed(verb, options)));
  });
});
