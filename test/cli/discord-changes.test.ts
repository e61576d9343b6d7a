/**
 * What `discord register` counts as a change: not what Discord adds to a command it lists
 * (ids, version, defaults, `required: false`, sets in another order, fields it may add
 * later), but any difference in what the command's author writes, named in a few words.
 */
import { describe, expect, it } from 'vitest';
import { commandChanges, comparable, registrationPlan } from '../../src/cli/discord-changes.js';
import { pipewatchCommand } from '../../src/frontends/discord/commands.js';

type Json = Record<string, unknown>;
const wanted = pipewatchCommand() as unknown as Json;
const subs = wanted.options as Json[];

/** `/pipewatch` as Discord might list it, with everything it adds. */
function listed(): Json & { name: string } {
  return {
    ...wanted,
    name: 'pipewatch',
    id: '1500000000000000001',
    application_id: '1300000000000000001',
    version: '1500000000000000002',
    default_member_permissions: null,
    name_localized: 'pipewatch',
    name_localizations: {},
    description_localizations: null,
    contexts: [1, 0],
    some_field_discord_adds_later: true,
    options: subs.map((s) => ({
      ...s,
      options: ((s.options as Json[] | undefined) ?? []).map((o) => ({
        required: false,
        autocomplete: false,
        choices: [],
        channel_types: [],
        name_localizations: null,
        ...o,
      })),
    })),
  };
}

const edit = (name: string, change: (s: Json) => Json) =>
  comparable({ ...wanted, options: subs.map((s) => (s.name === name ? change(s) : s)) }, true);

describe('what registering /pipewatch changes', () => {
  it('counts names by locale whatever their order', () => {
    const a = comparable({ ...wanted, name_localizations: { fr: 'a', de: 'b' } }, true);
    const b = comparable({ ...wanted, name_localizations: { de: 'b', fr: 'a' } }, true);
    expect(a).toEqual(b);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it('is nothing for a command as Discord lists it, whatever it adds', () => {
    expect(comparable(listed(), true)).toEqual(comparable(wanted, true));
    const plan = registrationPlan([listed()], pipewatchCommand(), true);
    expect(plan).toMatchObject({ pipewatch: 'unchanged', changed: false });
  });

  it('counts permissions set on the command, which pipewatch leaves to itself', () => {
    const plan = registrationPlan(
      [{ ...listed(), default_member_permissions: '16' }],
      pipewatchCommand(),
      true,
    );
    expect(plan.pipewatch).toBe('updated (default_member_permissions changed)');
  });

  it('names subcommands and options added, removed or changed', () => {
    const before = edit('oac', (s) => ({
      ...s,
      options: (s.options as Json[])
        .filter((o) => o.name !== 'cycles')
        .map((o) => (o.name === 'below' ? { ...o, required: false } : o)),
    }));
    const withOld = {
      ...before,
      options: [...(before.options as Json[]), { type: 1, name: 'old', description: 'gone' }],
    };
    const lessHelp = {
      ...withOld,
      options: (withOld.options as Json[]).filter((s) => s.name !== 'help'),
    };
    expect(commandChanges(lessHelp, comparable(wanted, true))).toEqual([
      'options of oac changed: below changed (required), cycles added',
      'subcommand help added',
      'subcommand old removed',
    ]);
  });

  it('counts DMs only for a global command', () => {
    const noDm = { ...wanted, contexts: [0], dm_permission: false };
    expect(commandChanges(comparable(noDm, true), comparable(wanted, true))).toEqual([
      'dm_permission changed',
      'contexts changed',
    ]);
    expect(commandChanges(comparable(noDm, false), comparable(wanted, false))).toEqual([]);
  });
});
