/**
 * The `/pipewatch` slash command against the grammar it stands for and Discord's rules:
 * one subcommand per verb; each key the grammar reads an option, and each option, written
 * back as `key:value`, read by the grammar and changing what it reads; required exactly
 * where the grammar refuses a command without it; fixed choices only from a closed set
 * the grammar takes whole; and every name, description and count within Discord's limits,
 * as discord.js's own checks see them too.
 */
import { SlashCommandAssertions } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { type ChatVocabulary, parseChatCommand, VERBS } from '../../../src/chat/grammar.js';
import { KEYS } from '../../../src/chat/grammar-verbs.js';
import { usage } from '../../../src/chat/usage.js';
import {
  AUTOCOMPLETED,
  COMMAND_LIMITS,
  type CommandOption,
  fitDescription,
  pipewatchCommand,
} from '../../../src/frontends/discord/commands.js';

/** A store that knows nothing yet: any name goes. */
const ANY: ChatVocabulary = { pipelines: [], types: [], categories: [], statuses: [] };

/** A value each option may take, as a person would type it. */
const SAMPLE: Record<string, string> = {
  pipelines: 'transco',
  pipeline: 'transco',
  location: 'Station 85',
  below: '10%',
  clear: '15%',
  cycles: 'timely',
  type: 'constraint',
  category: 'critical',
  status: 'posted',
  text: 'force majeure',
  on: 'updated',
  field: 'end_at',
  before: '4h',
  id: '12',
  for: '4h',
  from: '2030-01-01T09:00-06:00',
  until: '2030-01-01T13:00-06:00',
  command: 'oac',
  escalate: '30m',
  to: 'pagerduty:R0ESCALATE0000000000000000009a1b',
};

/**
 * Options a command needs one of, which Discord cannot require (mute: for or until):
 * given with the required ones; an option named here as a key is given instead of them.
 */
const BASE: Record<string, string[]> = { mute: ['for'] };
const INSTEAD: Record<string, string> = { until: 'for' };
/** Options that mean something only together (subscribe: escalate: and to:): given as a pair. */
const PAIRED: Record<string, string> = { escalate: 'to', to: 'escalate' };

const command = pipewatchCommand();
const subcommands = command.options;
const optionsOf = (verb: string): CommandOption[] =>
  subcommands.find((s) => s.name === verb)?.options ?? [];

/** `key:value`, in quotes when the value has a space. */
const written = (key: string, value: string) => `${key}:${/\s/.test(value) ? `"${value}"` : value}`;

function parse(verb: string, options: readonly CommandOption[]) {
  const words = options.map((o) => written(o.name, SAMPLE[o.name] ?? 'x'));
  return parseChatCommand([verb, ...words].join(' '), ANY);
}

describe('/pipewatch and the chat grammar', () => {
  it('has one subcommand per verb, in the order usage lists them', () => {
    expect(subcommands.map((s) => s.name)).toEqual([...VERBS]);
  });

  it.each(VERBS)('%s: every key the grammar reads is an option, and nothing else', (verb) => {
    expect(
      optionsOf(verb)
        .map((o) => o.name)
        .sort(),
    ).toEqual([...KEYS[verb].keys].sort());
  });

  it.each(VERBS)("%s: every key: and every PLACE of the usage's forms is an option", (verb) => {
    const forms = usage(verb).split('\n\n')[0]!;
    const keys = [...forms.matchAll(/\[?([a-z]+):/g)].map((m) => m[1]!);
    const places = [...forms.matchAll(/\b(PIPELINES?|LOCATION|ID|DURATION)\b/g)].map((m) =>
      m[1] === 'DURATION' ? 'for' : m[1]!.toLowerCase(),
    );
    const names = optionsOf(verb).map((o) => o.name);
    for (const key of [...keys, ...places]) expect(names).toContain(key);
  });

  it.each(VERBS)('%s: with only its required options, the grammar takes it', (verb) => {
    const required = optionsOf(verb).filter((o) => o.required || BASE[verb]?.includes(o.name));
    const parsed = parse(verb, required);
    expect(parsed.ok, JSON.stringify(parsed)).toBe(true);
  });

  it.each(
    VERBS.flatMap((v) =>
      optionsOf(v)
        .filter((o) => o.required)
        .map((o) => [v, o.name] as const),
    ),
  )('%s without %s: refused by the grammar', (verb, name) => {
    const others = optionsOf(verb).filter((o) => o.required && o.name !== name);
    expect(parse(verb, others).ok).toBe(false);
  });

  it.each(
    VERBS.flatMap((v) =>
      optionsOf(v)
        .filter((o) => !o.required)
        .map((o) => [v, o.name] as const),
    ),
  )(
    '%s %s:…, written back as text, is read by the grammar and changes the command',
    (verb, name) => {
      const required = optionsOf(verb).filter(
        (o) =>
          o.name !== name &&
          (o.required || (BASE[verb]?.includes(o.name) && INSTEAD[name] !== o.name)),
      );
      const without = parse(verb, required);
      const given = optionsOf(verb).filter((o) => o.name === name || o.name === PAIRED[name]);
      const withIt = parse(verb, [...required, ...given]);
      expect(withIt.ok, JSON.stringify(withIt)).toBe(true);
      // Without it, the command may be refused (mute with neither for nor until): it differs.
      if (without.ok) expect(withIt.ok && withIt.command).not.toEqual(without.command);
    },
  );

  it('offers choices only for a closed set, each of which the grammar takes', () => {
    const withChoices = subcommands.flatMap((s) =>
      (s.options ?? []).filter((o) => o.choices).map((o) => [s.name, o] as const),
    );
    expect(withChoices.map(([v, o]) => `${v}.${o.name}`)).toEqual([
      'subscribe.on',
      'remind.field',
      'help.command',
    ]);
    for (const [verb, option] of withChoices) {
      const required = optionsOf(verb).filter((o) => o.required);
      const base = required.map((o) => written(o.name, SAMPLE[o.name]!)).join(' ');
      for (const choice of option.choices!) {
        const parsed = parseChatCommand(`${verb} ${base} ${option.name}:${choice.value}`, ANY);
        expect(parsed.ok, `${verb} ${option.name}:${choice.value}`).toBe(true);
      }
      const outside = parseChatCommand(`${verb} ${base} ${option.name}:posted`, ANY);
      expect(outside.ok).toBe(false);
    }
  });

  it('completes pipelines and locations as they are typed', () => {
    const completed = subcommands.flatMap((s) =>
      (s.options ?? []).filter((o) => o.autocomplete).map((o) => `${s.name}.${o.name}`),
    );
    expect(completed).toEqual([
      'subscribe.pipelines',
      'remind.pipelines',
      'oac.pipeline',
      'oac.location',
      'mute.pipeline',
    ]);
    expect([...AUTOCOMPLETED].sort()).toEqual(['location', 'pipeline', 'pipelines']);
  });

  it('takes every value as text, for the grammar to check', () => {
    const types = subcommands.flatMap((s) => (s.options ?? []).map((o) => o.type));
    expect(new Set(types)).toEqual(new Set([3]));
  });
});

describe("/pipewatch within Discord's rules", () => {
  const options = subcommands.flatMap((s) => s.options ?? []);
  const named = [command, ...subcommands, ...options];

  it('has names Discord takes: lowercase, 1 to 32 letters, digits, - or _', () => {
    for (const { name } of named) {
      expect(name).toMatch(COMMAND_LIMITS.name);
      expect(name).toBe(name.toLowerCase());
      expect(() => SlashCommandAssertions.validateName(name)).not.toThrow();
    }
  });

  it('has descriptions of 1 to 100 characters, none just its name', () => {
    for (const { name, description } of named) {
      expect(description.length, name).toBeGreaterThanOrEqual(1);
      expect(description.length, name).toBeLessThanOrEqual(COMMAND_LIMITS.description);
      expect(description).not.toBe(name);
      expect(() => SlashCommandAssertions.validateDescription(description)).not.toThrow();
    }
  });

  it('has at most 25 subcommands, options and choices, and required options first', () => {
    expect(() => SlashCommandAssertions.validateMaxOptionsLength(subcommands)).not.toThrow();
    for (const s of subcommands) {
      const list = s.options ?? [];
      expect(list.length).toBeLessThanOrEqual(COMMAND_LIMITS.options);
      const firstOptional = list.findIndex((o) => !o.required);
      if (firstOptional >= 0) expect(list.slice(firstOptional).some((o) => o.required)).toBe(false);
      for (const o of list) {
        expect(o.choices && o.autocomplete).toBeFalsy();
        expect(() => SlashCommandAssertions.validateChoicesLength(0, o.choices)).not.toThrow();
        for (const c of o.choices ?? []) {
          expect(c.name.length).toBeLessThanOrEqual(COMMAND_LIMITS.choiceName);
          expect(c.value.length).toBeLessThanOrEqual(COMMAND_LIMITS.choiceValue);
        }
      }
    }
  });

  it('works in servers and in DMs with the bot, and leaves permissions to pipewatch', () => {
    expect(command).not.toHaveProperty('default_member_permissions');
    expect(command.contexts).toEqual([0, 1]);
    expect(command.dm_permission).toBe(true);
    const server = pipewatchCommand({ guild: true });
    expect(server).not.toHaveProperty('contexts');
    expect(server).not.toHaveProperty('dm_permission');
    expect(server.options).toEqual(command.options);
  });

  it('fits a long description at a clause, not mid-word', () => {
    const long = `${'a'.repeat(40)} first clause, ${'b'.repeat(30)} second; and a third clause here`;
    expect(fitDescription(long)).toBe(`${'a'.repeat(40)} first clause, ${'b'.repeat(30)} second.`);
    expect(fitDescription('short')).toBe('short');
    expect(fitDescription('x'.repeat(120))).toHaveLength(100);
  });
});
