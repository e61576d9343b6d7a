/**
 * Application commands on the fake Discord (`extend`): `GET /applications/@me`, and
 * `GET`/`PUT /applications/{id}/commands` and `/applications/{id}/guilds/{guild}/commands`.
 * It checks `Authorization: Bot <token>` itself (extensions come before the fake's own
 * check) and keeps commands as Discord does: a bulk `PUT` replaces the list, a command
 * keeps its id across `PUT`s by name and type and gets a new `version` when it changes,
 * defaults are filled in (`type: 1`, `default_member_permissions: null`, `nsfw: false`,
 * and for global ones `dm_permission: true`, `contexts: null`, `integration_types: [0]`),
 * `required: false` is left out of what it lists, and names, descriptions and counts are
 * validated with Discord's 400 50035 and its errors by path. A wrong application id is 404
 * 10002, a server the application is not in 403 50001. The fake cannot see a query string,
 * so it lists localizations always, as Discord does with `with_localizations=true`.
 */
import { type DiscordFake, err, formErrors, type Json, type Path, type Reply } from './discord.js';

export const FAKE_APPLICATION = { id: '1300000000000000001', name: 'pipewatch-test' };
/** The server the fake application is in. */
export const FAKE_GUILD = '1400000000000000001';

export interface CommandsFakeOptions {
  /** Servers the application is in; default `[FAKE_GUILD]`. */
  guilds?: string[];
}

const NAME = /^[-_\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;
const CHAT_INPUT = 1;

let sequence = 0;
function snowflake(): string {
  return (1_500_000_000_000_000_000n + BigInt(++sequence)).toString();
}

/** Discord's 429 for a route: `retry_after` (seconds) in the body and `Retry-After`. */
export function rateLimited(seconds: number): Reply {
  return {
    status: 429,
    body: { message: 'You are being rate limited.', retry_after: seconds, global: false },
    headers: { 'retry-after': String(Math.ceil(seconds)), 'x-ratelimit-scope': 'user' },
  };
}

/** Discord's 400 for a bulk `PUT` body with problems, by path; undefined when none. */
function validate(commands: Json[]) {
  const errors = formErrors();
  const add = errors.add;
  const name = (path: Path, value: unknown, chatInput: boolean) => {
    const text = typeof value === 'string' ? value : '';
    const lower = !chatInput || text === text.toLowerCase();
    if (!NAME.test(text) || !lower)
      add([...path, 'name'], 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
  };
  const description = (path: Path, value: unknown) => {
    const n = typeof value === 'string' ? [...value].length : 0;
    if (n < 1 || n > 100)
      add([...path, 'description'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
  };
  const options = (path: Path, list: unknown) => {
    if (list === undefined) return;
    const items = Array.isArray(list) ? (list as Json[]) : [];
    if (items.length > 25)
      add([...path, 'options'], 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.');
    const seen = new Set<string>();
    let optional = false;
    items.forEach((o, i) => {
      const at = [...path, 'options', i];
      name(at, o.name, true);
      description(at, o.description);
      if (seen.has(String(o.name)))
        add(at, 'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS', 'Option names must be unique');
      seen.add(String(o.name));
      if (o.required === true && optional)
        add(
          at,
          'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID',
          'Required options must be placed before non-required options',
        );
      if (o.required !== true) optional = true;
      const choices = Array.isArray(o.choices) ? (o.choices as Json[]) : [];
      if (choices.length > 25)
        add([...at, 'choices'], 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.');
      if (choices.length > 0 && o.autocomplete === true)
        add(at, 'AUTOCOMPLETE_CHOICES_INVALID', 'Autocomplete cannot be set with choices');
      choices.forEach((c, j) => {
        for (const key of ['name', 'value'] as const) {
          const n = [...String(c[key] ?? '')].length;
          if (n < 1 || n > 100)
            add(
              [...at, 'choices', j, key],
              'BASE_TYPE_BAD_LENGTH',
              'Must be between 1 and 100 in length.',
            );
        }
      });
      options(at, o.options);
    });
  };
  if (commands.length > 100) add([], 'BASE_TYPE_MAX_LENGTH', 'Must be 100 or fewer in length.');
  const names = new Set<string>();
  commands.forEach((c, i) => {
    const type = Number(c.type ?? CHAT_INPUT);
    name([i], c.name, type === CHAT_INPUT);
    if (type === CHAT_INPUT) description([i], c.description);
    const key = `${type}:${String(c.name)}`;
    if (names.has(key))
      add(
        [i, 'name'],
        'APPLICATION_COMMANDS_DUPLICATE_NAME',
        'Application command names must be unique',
      );
    names.add(key);
    options([i], c.options);
  });
  return errors.reply();
}

/** JSON with every object's keys in order: the same command whatever order it was written in. */
function sorted(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

/** An option as Discord lists it: `required` and `autocomplete` only when true. */
function listedOption(o: Json): Json {
  const { required, autocomplete, options, ...rest } = o;
  return {
    ...rest,
    ...(required === true ? { required: true } : {}),
    ...(autocomplete === true ? { autocomplete: true } : {}),
    ...(Array.isArray(options) ? { options: (options as Json[]).map(listedOption) } : {}),
  };
}

/** Adds the application-command routes to `fake`; returns what they hold and how to steer them. */
export function addCommandRoutes(fake: DiscordFake, options: CommandsFakeOptions = {}) {
  const guilds = new Set(options.guilds ?? [FAKE_GUILD]);
  /** By scope: `global` or a server id. */
  const lists = new Map<string, Json[]>();
  const faults: Array<{ reply: Reply; method: string | undefined }> = [];
  const scopeOf = (guild: string | undefined) => guild ?? 'global';

  /** A command of a `PUT` as Discord stores it, keeping the id and version of the same one. */
  function stored(c: Json, guild: string | undefined, previous: Json[]): Json {
    const type = Number(c.type ?? CHAT_INPUT);
    const { id: _id, version: _v, application_id: _a, guild_id: _g, ...given } = c;
    const entry: Json = {
      ...given,
      type,
      application_id: FAKE_APPLICATION.id,
      default_member_permissions: c.default_member_permissions ?? null,
      nsfw: c.nsfw ?? false,
      ...(guild
        ? { guild_id: guild }
        : {
            dm_permission: c.dm_permission ?? true,
            contexts: c.contexts ?? null,
            integration_types: c.integration_types ?? [0],
          }),
      ...(Array.isArray(c.options) ? { options: (c.options as Json[]).map(listedOption) } : {}),
    };
    const same = previous.find((p) => p.name === c.name && p.type === type);
    const { id: _pid, version: oldVersion, ...before } = same ?? {};
    const unchanged = same && sorted(before) === sorted(entry);
    return {
      id: same?.id ?? snowflake(),
      ...entry,
      version: unchanged ? oldVersion : snowflake(),
    };
  }

  fake.extend((req) => {
    const me = req.path === '/applications/@me';
    const m = /^\/applications\/([^/]+)(?:\/guilds\/([^/]+))?\/commands$/.exec(req.path);
    if (!me && !m) return undefined;
    if (req.authorization !== `Bot ${fake.token}`) return err(401, 0, '401: Unauthorized');
    const fault = faults.findIndex((f) => f.method === undefined || f.method === req.method);
    if (fault >= 0) return faults.splice(fault, 1)[0]!.reply;
    if (me) {
      if (req.method !== 'GET') return err(405, 0, '405: Method Not Allowed');
      return { status: 200, body: { ...FAKE_APPLICATION, bot_public: false, flags: 0 } };
    }
    const [, application, guild] = m!;
    if (application !== FAKE_APPLICATION.id) return err(404, 10002, 'Unknown Application');
    if (guild !== undefined && !guilds.has(guild)) return err(403, 50001, 'Missing Access');
    const scope = scopeOf(guild);
    if (req.method === 'GET') return { status: 200, body: lists.get(scope) ?? [] };
    if (req.method !== 'PUT') return err(405, 0, '405: Method Not Allowed');
    if (!Array.isArray(req.body)) return err(400, 50035, 'Invalid Form Body');
    const body = req.body as unknown as Json[];
    const invalid = validate(body);
    if (invalid) return invalid;
    const previous = lists.get(scope) ?? [];
    const next = body.map((c) => stored(c, guild, previous));
    lists.set(scope, next);
    return { status: 200, body: next };
  });

  return {
    application: FAKE_APPLICATION,
    /** The commands registered globally, or in `guild`. */
    commands(guild?: string): Json[] {
      return lists.get(scopeOf(guild)) ?? [];
    },
    /** Registers `commands` as a bulk `PUT` would, without a request. */
    seed(commands: Json[], guild?: string): Json[] {
      const previous = lists.get(scopeOf(guild)) ?? [];
      const next = commands.map((c) => stored(c, guild, previous));
      lists.set(scopeOf(guild), next);
      return next;
    },
    /** The next request to these routes (of `method`, if given) gets `reply`, after the token check. */
    failNext(reply: Reply, method?: 'GET' | 'PUT'): void {
      faults.push({ reply, method });
    },
    /** The bulk `PUT`s made, each with its path and body. */
    puts() {
      return fake.calls.filter((c) => c.method === 'PUT' && c.path.includes('/commands'));
    },
  };
}

export type CommandsFake = ReturnType<typeof addCommandRoutes>;
