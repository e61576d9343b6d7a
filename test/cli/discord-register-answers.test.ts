/**
 * `pipewatch discord register` when Discord answers with something it does not read (an
 * application without its id, a command list that is no list): one line naming the
 * field and what was being done, exit status 1, and nothing registered.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DiscordFake, startDiscordFake } from '../fakes/discord.js';
import { addCommandRoutes, type CommandsFake } from '../fakes/discord-commands.js';
import { cli } from './run-cli.js';

const TOKEN = 'MTMwMDAwMDAw.fake-part.NOT-A-REAL-SECRET';

let fake: DiscordFake;
let commands: CommandsFake;

beforeEach(async () => {
  fake = await startDiscordFake({ token: TOKEN });
  commands = addCommandRoutes(fake);
});
afterEach(async () => {
  await fake.close();
});

const register = () =>
  cli(['discord', 'register'], { DISCORD_BOT_TOKEN: TOKEN, DISCORD_API_URL: fake.url });

describe('an answer from Discord pipewatch does not read', () => {
  it('an application without its id: said, nothing registered', async () => {
    commands.failNext({ status: 200, body: { name: 'pipewatch' } }, 'GET');
    const run = await register();
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      'pipewatch: Discord answered looking up the application with an answer pipewatch cannot read: id: Invalid input: expected string, received undefined',
    );
    expect(commands.puts()).toEqual([]);
  });

  it('a command list that is no list: said, nothing registered', async () => {
    await register();
    const before = commands.puts().length;
    commands.failNext({ status: 200, body: { id: '1' } }, 'GET');
    commands.failNext({ status: 200, body: { commands: [] } }, 'GET');
    const run = await register();
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      'pipewatch: Discord answered reading the registered commands with an answer pipewatch cannot read: (answer): Invalid input: expected array, received object',
    );
    expect(commands.puts()).toHaveLength(before);
  });
});
