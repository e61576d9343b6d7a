/**
 * The fake's application commands keep to what Discord does: the token checked, defaults
 * filled in, ids kept by name across bulk `PUT`s and `version` changed only with the
 * command, invalid names, descriptions and option orders refused with 400 50035 by path,
 * a wrong application 404 10002 and a server the application is not in 403 50001.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DiscordFake, startDiscordFake } from '../../fakes/discord.js';
import { addCommandRoutes, FAKE_APPLICATION, FAKE_GUILD } from '../../fakes/discord-commands.js';

let fake: DiscordFake;
beforeEach(async () => {
  fake = await startDiscordFake();
  addCommandRoutes(fake);
});
afterEach(async () => fake.close());

const GLOBAL = `/applications/${FAKE_APPLICATION.id}/commands`;

async function call(method: string, path: string, body?: unknown, token = fake.token) {
  const res = await fetch(`${fake.url}/v10${path}`, {
    method,
    headers: { authorization: `Bot ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as never };
}

const ping = {
  name: 'ping',
  description: 'Ping',
  options: [{ type: 3, name: 'to', description: 'who', required: false }],
};

describe("the fake Discord's application commands", () => {
  it('answers the application of the token, and 401 to another token', async () => {
    expect(await call('GET', '/applications/@me')).toMatchObject({
      status: 200,
      body: FAKE_APPLICATION,
    });
    expect((await call('GET', GLOBAL, undefined, 'wrong.to.ken')).status).toBe(401);
  });

  it('stores a PUT as Discord does: defaults filled, required:false left out', async () => {
    const put = await call('PUT', GLOBAL, [ping]);
    expect(put.status).toBe(200);
    const [stored] = (await call('GET', GLOBAL)).body as Array<Record<string, unknown>>;
    expect(stored).toMatchObject({
      type: 1,
      application_id: FAKE_APPLICATION.id,
      default_member_permissions: null,
      nsfw: false,
      dm_permission: true,
      contexts: null,
      integration_types: [0],
      options: [{ type: 3, name: 'to', description: 'who' }],
    });
    expect((stored!.options as object[])[0]).not.toHaveProperty('required');
    expect(stored!.id).toMatch(/^\d{17,20}$/);
  });

  it('keeps an id by name, and changes version only with the command', async () => {
    const [first] = (await call('PUT', GLOBAL, [ping])).body as Array<Record<string, string>>;
    const [same] = (await call('PUT', GLOBAL, [ping])).body as Array<Record<string, string>>;
    expect(same).toEqual(first);
    const [changed] = (await call('PUT', GLOBAL, [{ ...ping, description: 'Pong' }])).body as Array<
      Record<string, string>
    >;
    expect(changed!.id).toBe(first!.id);
    expect(changed!.version).not.toBe(first!.version);
  });

  it('refuses what Discord refuses, with errors by path', async () => {
    const bad = [
      { name: 'Ping', description: 'x'.repeat(101) },
      {
        name: 'ok',
        description: 'ok',
        options: [
          { type: 3, name: 'a', description: 'a' },
          { type: 3, name: 'b', description: 'b', required: true },
        ],
      },
    ];
    const res = await call('PUT', GLOBAL, bad);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 50035,
      errors: {
        0: {
          name: { _errors: [{ code: 'APPLICATION_COMMAND_INVALID_NAME' }] },
          description: { _errors: [{ code: 'BASE_TYPE_BAD_LENGTH' }] },
        },
        1: {
          options: { 1: { _errors: [{ code: 'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID' }] } },
        },
      },
    });
    expect((await call('GET', GLOBAL)).body).toEqual([]);
  });

  it('answers 404 10002 for another application, 403 50001 for a server it is not in', async () => {
    expect(await call('GET', '/applications/1300000000000000999/commands')).toMatchObject({
      status: 404,
      body: { code: 10002 },
    });
    const elsewhere = `/applications/${FAKE_APPLICATION.id}/guilds/1400000000000000999/commands`;
    expect(await call('PUT', elsewhere, [ping])).toMatchObject({
      status: 403,
      body: { code: 50001 },
    });
    const own = `/applications/${FAKE_APPLICATION.id}/guilds/${FAKE_GUILD}/commands`;
    const [stored] = (await call('PUT', own, [ping])).body as Array<Record<string, unknown>>;
    expect(stored).toMatchObject({ guild_id: FAKE_GUILD });
    expect(stored).not.toHaveProperty('contexts');
  });
});
