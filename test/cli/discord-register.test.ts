/**
 * `pipewatch discord register` against the fake Discord: the first run creates
 * `/pipewatch`, a second one finds it unchanged and sends nothing, a definition that
 * differs is updated with what changed named, the application's other commands are kept,
 * `--guild` goes to the server's list, `--dry-run` sends nothing; and each failure (no
 * token, a refused token, a wrong application or server, a rate limit, Discord out of
 * reach, a bad `--guild`) is one line and an exit status.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { comparable } from '../../src/cli/discord-changes.js';
import { failureLine, REGISTER_TIMEOUT_MS } from '../../src/cli/discord-register.js';
import { pipewatchCommand } from '../../src/frontends/discord/commands.js';
import { type DiscordFake, type Json, startDiscordFake } from '../fakes/discord.js';
import {
  addCommandRoutes,
  type CommandsFake,
  FAKE_APPLICATION,
  FAKE_GUILD,
  rateLimited,
} from '../fakes/discord-commands.js';
import { cli } from './run-cli.js';

const TOKEN = 'MTMwMDAwMDAw.fake-part.NOT-A-REAL-SECRET';
const OTHER = {
  type: 1,
  name: 'weather',
  description: 'Today at the compressor station',
  name_localizations: { fr: 'meteo' },
};

let fake: DiscordFake;
let commands: CommandsFake;

beforeEach(async () => {
  fake = await startDiscordFake({ token: TOKEN });
  commands = addCommandRoutes(fake);
});
afterEach(async () => {
  await fake.close();
});

function register(args: string[] = [], env: Record<string, string> = {}) {
  return cli(['discord', 'register', ...args], {
    DISCORD_BOT_TOKEN: TOKEN,
    DISCORD_API_URL: fake.url,
    ...env,
  });
}

/** The registered `/pipewatch`, in the form its definition is compared in. */
const registered = (guild?: string) => {
  const found = commands.commands(guild).find((c) => c.name === 'pipewatch');
  return found && comparable(found, guild === undefined);
};

describe('pipewatch discord register', () => {
  it('creates the command globally, then finds it unchanged and sends nothing', async () => {
    const first = await register();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(
      [
        `Discord application ${FAKE_APPLICATION.name} (${FAKE_APPLICATION.id}), global commands:`,
        '/pipewatch: created',
        'registered: Discord clients show a global command within about an hour',
        '',
      ].join('\n'),
    );
    expect(registered()).toEqual(comparable({ ...pipewatchCommand() }, true));
    expect(commands.puts()).toHaveLength(1);
    const [stored] = commands.commands();

    const second = await register();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('/pipewatch: unchanged\n');
    expect(second.stdout).toContain('nothing to register');
    expect(commands.puts()).toHaveLength(1);
    expect(commands.commands()[0]).toEqual(stored);
  });

  it('updates a command registered without an option, naming it, and keeps its id', async () => {
    const old = pipewatchCommand() as unknown as Json;
    const subs = (old.options as Json[]).map((s) =>
      s.name === 'oac'
        ? { ...s, options: (s.options as Json[]).filter((o) => o.name !== 'cycles') }
        : s,
    );
    const [before] = commands.seed([{ ...old, options: subs }]);
    const run = await register();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('/pipewatch: updated (options of oac changed: cycles added)\n');
    expect(registered()).toEqual(comparable({ ...pipewatchCommand() }, true));
    const [after] = commands.commands();
    expect(after!.id).toBe(before!.id);
    expect(after!.version).not.toBe(before!.version);
  });

  it('names a changed description and a required option that was not', async () => {
    const old = pipewatchCommand() as unknown as Json;
    const subs = (old.options as Json[]).map((s) =>
      s.name === 'mute'
        ? { ...s, description: 'Mutes', options: [...(s.options as Json[])].reverse() }
        : s,
    );
    commands.seed([{ ...old, options: subs, description: 'Old words' }]);
    const run = await register();
    expect(run.stdout).toContain(
      '/pipewatch: updated (description changed; description of mute changed; options of mute changed: order changed)\n',
    );
  });

  it("keeps the application's other commands, localizations and all, in the PUT", async () => {
    const [weather] = commands.seed([OTHER]);
    const run = await register();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("/weather: kept as it is (not pipewatch's)\n");
    expect(commands.commands().map((c) => c.name)).toEqual(['weather', 'pipewatch']);
    expect(commands.commands()[0]).toEqual(weather);
    const body = commands.puts()[0]!.body as Json[];
    expect(body[0]).not.toHaveProperty('version');
    expect(body[0]).not.toHaveProperty('application_id');
  });

  it('--guild registers in that server, where it shows at once', async () => {
    const run = await register(['--guild', FAKE_GUILD]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`, server ${FAKE_GUILD}:\n/pipewatch: created\n`);
    expect(run.stdout).toContain('registered: it shows in that server at once\n');
    expect(commands.puts()[0]!.path).toBe(
      `/v10/applications/${FAKE_APPLICATION.id}/guilds/${FAKE_GUILD}/commands`,
    );
    expect(commands.commands()).toEqual([]);
    expect(registered(FAKE_GUILD)).toEqual(
      comparable({ ...pipewatchCommand({ guild: true }) }, false),
    );
    const again = await register(['--guild', FAKE_GUILD]);
    expect(again.stdout).toContain('/pipewatch: unchanged\n');
    expect(commands.puts()).toHaveLength(1);
  });

  it('--dry-run says what would change and sends nothing', async () => {
    commands.seed([OTHER]);
    const run = await register(['--dry-run']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('/pipewatch: created\n');
    expect(run.stdout).toContain('/weather: kept as it is');
    expect(run.stdout).toContain('dry run: nothing registered\n');
    expect(commands.puts()).toEqual([]);
    expect(commands.commands().map((c) => c.name)).toEqual(['weather']);
  });

  it('takes the application id from DISCORD_APPLICATION_ID without asking Discord', async () => {
    const run = await register([], { DISCORD_APPLICATION_ID: FAKE_APPLICATION.id });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Discord application ${FAKE_APPLICATION.id}, global`));
    expect(fake.calls.some((c) => c.path === '/v10/applications/@me')).toBe(false);
  });
});

describe('pipewatch discord register, failing', () => {
  const failed = (run: { code: number; stdout: string; stderr: string }) => {
    expect(run.stderr.trim().split('\n'), run.stderr).toHaveLength(1);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    return run.stderr.trim();
  };

  it('without DISCORD_BOT_TOKEN: a usage error naming it, and no request', async () => {
    const run = await cli(['discord', 'register'], { DISCORD_API_URL: fake.url });
    expect(run.code).toBe(2);
    expect(failed(run)).toBe(
      'pipewatch: discord register needs DISCORD_BOT_TOKEN, the bot token of the Discord application',
    );
    expect(fake.calls).toEqual([]);
  });

  it('a token Discord refuses: check DISCORD_BOT_TOKEN', async () => {
    const run = await register([], { DISCORD_BOT_TOKEN: 'MTIz.wrong.TOKEN' });
    expect(run.code).toBe(1);
    expect(failed(run)).toBe(
      'pipewatch: Discord refused the bot token (401 401: Unauthorized): check DISCORD_BOT_TOKEN',
    );
    expect(run.stderr).not.toContain('wrong');
  });

  it('an application id Discord does not know: check DISCORD_APPLICATION_ID', async () => {
    const run = await register([], { DISCORD_APPLICATION_ID: '1300000000000000999' });
    expect(run.code).toBe(1);
    expect(failed(run)).toBe(
      'pipewatch: Discord knows no application 1300000000000000999 (404 Unknown Application): check DISCORD_APPLICATION_ID, or unset it to ask Discord',
    );
    expect(commands.puts()).toEqual([]);
  });

  it('a server the bot is not in: invite it with applications.commands', async () => {
    const run = await register(['--guild', '1400000000000000999']);
    expect(run.code).toBe(1);
    expect(failed(run)).toBe(
      'pipewatch: Discord refused access to server 1400000000000000999 (403 Missing Access): is the bot in that server, invited with the applications.commands scope?',
    );
    expect(commands.puts()).toEqual([]);
  });

  it('a rate limit: try again after Retry-After, nothing waited for', async () => {
    commands.failNext(rateLimited(41.5), 'PUT');
    const run = await register();
    expect(run.code).toBe(1);
    expect(failed(run)).toBe(
      'pipewatch: Discord is rate limiting registering the commands: try again in 42 s',
    );
  });

  it('Discord refusing the command: its errors, on one line', async () => {
    const errors = {
      0: { options: { 2: { name: { _errors: [{ code: 'X', message: 'bad name' }] } } } },
    };
    commands.failNext(
      { status: 400, body: { code: 50035, message: 'Invalid Form Body', errors } },
      'PUT',
    );
    const run = await register();
    expect(run.code).toBe(1);
    expect(failed(run)).toBe(
      'pipewatch: Discord refused the command (400 Invalid Form Body; 0.options[2].name[X]: bad name)',
    );
  });

  it('Discord failing: try again later', async () => {
    commands.failNext({ status: 502, body: { code: 0, message: 'Bad Gateway' } }, 'GET');
    const run = await register();
    expect(run.code).toBe(1);
    expect(failed(run)).toBe(
      'pipewatch: Discord failed looking up the application (HTTP 502): try again later',
    );
  });

  it('Discord out of reach: where it was tried', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const run = await register([], { DISCORD_API_URL: `http://127.0.0.1:${port}/api` });
    expect(run.code).toBe(1);
    expect(failed(run)).toBe(
      `pipewatch: could not reach Discord at http://127.0.0.1:${port}/api, looking up the application: ECONNREFUSED`,
    );
  });

  it('a request that never answers: said as a timeout, with what was being done', () => {
    const at = { step: 'reading the registered commands', api: fake.url };
    const line = failureLine(new DOMException('This operation was aborted', 'AbortError'), at);
    expect(line).toBe(
      `Discord did not answer within ${REGISTER_TIMEOUT_MS / 1000} s, reading the registered commands`,
    );
  });

  it('a --guild that is no snowflake: a usage error, no request', async () => {
    const run = await register(['--guild', 'my-server']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "option '--guild <id>' argument 'my-server' is invalid. must be a Discord server id",
    );
    expect(fake.calls).toEqual([]);
  });

  it('--help says what it needs and how soon the command shows', async () => {
    const run = await cli(['discord', 'register', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('--guild <id>');
    expect(run.stdout).toContain('--dry-run');
    expect(run.stdout).toContain('DISCORD_BOT_TOKEN');
    expect(run.stdout).toContain('up to an hour');
  });
});
