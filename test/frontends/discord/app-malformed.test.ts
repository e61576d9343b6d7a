/**
 * Signed interactions that Discord would never send, each of a shape pipewatch reads:
 * options that are a string instead of a tree, a command without its name, a custom id
 * of 10,000 characters, options nested deeper than a group, a subcommand and its
 * options. Each is refused whole with 400, naming the field at fault in the answer and
 * in the log, and nothing of it reaches the chat core: no command, no click, no
 * suggestion, nothing stored, nothing posted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { encodeCustomId } from '../../../src/channels/discord/actions.js';
import type { ChatService } from '../../../src/chat/types.js';
import { toUtcIso } from '../../../src/lib/time.js';
import { PERMISSIONS, USERS } from '../../fakes/discord-interaction-payloads.js';
import { passThrough } from '../../support/chat-core.js';
import { type AppUnderTest, startAppUnderTest } from './app-setup.js';

let t: AppUnderTest;
/** What reached the chat core: each call by name. */
let reached: string[];

afterEach(async () => {
  await t?.close();
});

/** The core, every call to it noted in `reached` before it is made. */
function noting(core: ChatService): ChatService {
  const through = passThrough(core);
  return {
    ...through,
    command: (caller, text) => {
      reached.push(`command ${text}`);
      return through.command(caller, text);
    },
    action: (caller, action) => {
      reached.push(`action ${action.kind}`);
      return through.action(caller, action);
    },
    suggest: (field, typed) => {
      reached.push(`suggest ${field.kind}`);
      return through.suggest(field, typed);
    },
  };
}

const manager = { user: USERS.alice, permissions: PERMISSIONS.manager };

async function start() {
  reached = [];
  t = await startAppUnderTest({ chat: noting });
}

/** `pipelines:transco` nested `depth` levels below `data.options`: a subcommand, then groups. */
function nested(depth: number): unknown[] {
  let options: unknown[] = [{ name: 'pipelines', type: 3, value: 'transco' }];
  for (let i = 0; i < depth; i++)
    options = [
      i === 0 ? { name: 'subscribe', type: 1, options } : { name: 'alerts', type: 2, options },
    ];
  return options;
}

/** Sends `payload`; expects the 400 that names `field`, in the answer and in the log. */
async function refused(
  payload: Parameters<AppUnderTest['discord']['interact']>[0],
  field: string,
  rawBody?: string,
) {
  const before = t.lines.length;
  const res = await t.discord.interact(payload, rawBody === undefined ? {} : { rawBody });
  expect(res.status, field).toBe(400);
  expect(res.body).toMatch(new RegExp(`^the body is not an interaction: ${escapeRegex(field)}: `));
  const logged = t.lines.slice(before).filter((l) => l.includes('refused a request'));
  expect(logged, field).toHaveLength(1);
  expect(logged[0]).toContain(`: ${field}: `);
  // The log says a line a minute at most for a status: the next refusal gets its own.
  t.clock.advance(60_000);
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Nothing came of the requests: the core never asked, nothing stored, nothing posted. */
function nothingReached() {
  expect(reached).toEqual([]);
  expect(t.store.subscriptions.all()).toEqual([]);
  expect(t.store.silences.active(toUtcIso(t.clock.now()))).toEqual([]);
  expect(t.discord.followUps).toEqual([]);
}

describe('a command Discord would not send', () => {
  it('options that are a string, not a tree: refused, at either level', async () => {
    await start();
    const command = t.discord.command('subscribe', { pipelines: 'transco' }, manager);
    await refused(
      { ...command, data: { ...command.data, options: 'subscribe pipelines:transco' } },
      'data.options',
    );
    const sub = command.data.options[0];
    const flat = { ...sub, options: 'pipelines:transco' };
    await refused(
      { ...t.discord.command('list'), data: { ...command.data, options: [flat] } },
      'data.options[0].options',
    );
    const objectValue = { ...sub, options: [{ name: 'pipelines', type: 3, value: { a: 1 } }] };
    await refused(
      { ...t.discord.command('list'), data: { ...command.data, options: [objectValue] } },
      'data.options[0].options[0].value',
    );
    nothingReached();
  });

  it('a command without its name: refused', async () => {
    await start();
    const command = t.discord.command('subscribe', { pipelines: 'transco' }, manager);
    const { name: _name, ...data } = command.data;
    await refused({ ...command, data }, 'data.name');
    nothingReached();
  });

  it('options nested deeper than a group, a subcommand and its options: refused, however deep', async () => {
    await start();
    const command = t.discord.command('subscribe', {}, manager);
    await refused(
      { ...command, data: { ...command.data, options: nested(3) } },
      'data.options[0].options[0].options[0].options',
    );
    // Ten thousand levels deep, written out (too deep for the test's own JSON.stringify).
    const deep = t.discord.command('list', {}, manager);
    const open = '{"name":"alerts","type":2,"options":['.repeat(10_000);
    const body = JSON.stringify({ ...deep, data: { ...deep.data, options: '@' } }).replace(
      '"@"',
      `[${open}{"name":"pipelines","type":3,"value":"transco"}${']}'.repeat(10_000)}]`,
    );
    await refused(deep, 'data.options[0].options[0].options[0].options', body);
    // An autocompletion nested so is refused too, before any suggestion is looked up.
    const typing = t.discord.autocomplete('subscribe', { pipelines: { focused: 'tr' } }, manager);
    await refused(
      { ...typing, data: { ...typing.data, options: nested(4) } },
      'data.options[0].options[0].options[0].options',
    );
    nothingReached();
  });

  it('a group, its subcommand and its options: still taken (the deepest Discord sends)', async () => {
    await start();
    const command = t.discord.command('subscribe', {}, manager);
    const res = await t.discord.interact({
      ...command,
      data: { ...command.data, options: nested(2) },
    });
    expect(res.status).toBe(200);
    expect(reached).toEqual(['command alerts subscribe pipelines:transco']);
  });
});

describe('a click Discord would not send', () => {
  it('a custom id of 10,000 characters: refused, never decoded', async () => {
    await start();
    const customId = encodeCustomId({ kind: 'ack', message: '' }) + 'x'.repeat(10_000 - 16);
    expect(customId).toHaveLength(10_000);
    const message = { id: '1500000000000000001' };
    await refused(t.discord.click({ customId, message }, manager), 'data.custom_id');
    nothingReached();
  });

  it('a click without the message it was on: refused', async () => {
    await start();
    const click = t.discord.click(
      { customId: encodeCustomId({ kind: 'ack', message: '' }), message: { id: '1' } },
      manager,
    );
    const { message: _message, ...bare } = click;
    await refused(bare, 'message');
    nothingReached();
  });
});

describe('what Discord adds', () => {
  it('fields pipewatch does not read pass through, and an unknown type is answered as before', async () => {
    await start();
    const command = t.discord.command('list', {}, manager);
    const added = {
      ...command,
      a_field_from_next_year: { nested: [1, 2, 3] },
      data: { ...command.data, another: 'x' },
    };
    expect((await t.discord.interact(added)).status).toBe(200);
    expect(reached).toEqual(['command list']);
    const modal = await t.discord.interact({ ...t.discord.command('list'), type: 5 });
    expect(modal.status).toBe(200);
    expect(modal.json).toMatchObject({
      type: 4,
      data: { content: 'pipewatch does not take interactions of type 5.' },
    });
    expect(reached).toEqual(['command list']);
  });
});
