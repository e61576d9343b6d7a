/**
 * Discord's side of the `chat_ack` benchmark, in a process of its own as Discord is: the
 * Discord fake with the interaction webhooks the app's follow-ups go to, and the sender
 * of `/pipewatch` interactions signed with the application's Ed25519 key, which times
 * each one (`chat-ack-side.ts`). This side makes the key pair, as Discord does for an
 * application; its `{ ready }` gives the public key (what `DISCORD_PUBLIC_KEY` holds) and
 * the fake's URL, before the app starts. The commands are Slack's mix as Discord sends
 * it: each verb a subcommand and each `key:` an option, `subscribe` from a member who may
 * manage the channel (Discord's own check of who may change a channel), the rest from
 * ordinary members; a typo is in a value, since Discord sends only the subcommands and
 * options that are registered. Each answer must be a message (type 4) saying what that
 * kind of command answers; each follow-up must have been taken by the webhook. Its one
 * argument: how many channels the commands are typed in (`discordBenchChannel(0…)`).
 */
import { systemClock } from '../src/lib/clock.js';
import { startDiscordFake } from '../test/fakes/discord.js';
import { type DiscordUser, PERMISSIONS } from '../test/fakes/discord-interaction-payloads.js';
import { discordInteractions, type InteractionAnswer } from '../test/fakes/discord-interactions.js';
import { HELP, type Kind, mixRandom, REMINDERS, serveSide, USERS } from './chat-ack-side.js';
import { benchCaller, subscribeChoice, subscribeOptions } from './subscriptions.js';

/** What Discord's side hands the benchmark before the app starts. */
export interface DiscordSideReady {
  /** `DISCORD_API_URL`: the fake, where the follow-ups go. */
  url: string;
  /** `DISCORD_PUBLIC_KEY`: 64 hex characters. */
  publicKey: string;
}

const CHANNELS = Number(process.argv[2]);

type Options = Readonly<Record<string, string>>;

/** Slack's typos as Discord lets them be made: in a value, a subcommand and its options. */
const TYPOS: ReadonlyArray<[string, Options]> = [
  ['subscribe', { pipelines: 'trnsco', type: 'constraint' }],
  ['subscribe', { pipelines: 'texas-estern' }],
  ['subscribe', { pipelines: 'transco', type: 'constrant' }],
  ['remind', { pipelines: 'tennesee', before: '24h' }],
  ['subscribe', { pipelines: 'columbia', category: 'critcal' }],
];

/** What the answer of each kind must say, so that only real answers are timed. */
const EXPECT: Record<Kind, RegExp> = {
  list: /Subscriptions of this channel/,
  subscribe: /subscribed this channel/,
  remind: /You will get reminders by direct message/,
  typo: /did you mean|unknown/i,
  help: /subscribe PIPELINES/,
};

const random = mixRandom();

/** The subcommand and options of the `j`th command, of kind `kind`. */
function subcommand(kind: Kind, j: number): [string, Options] {
  switch (kind) {
    case 'list':
      return ['list', {}];
    case 'subscribe':
      return ['subscribe', subscribeOptions(subscribeChoice(random))];
    case 'remind':
      return ['remind', REMINDERS[j % REMINDERS.length]!];
    case 'typo':
      return TYPOS[j % TYPOS.length]!;
    case 'help':
      return ['help', HELP[j % HELP.length]!];
  }
}

const fake = await startDiscordFake();
// The app's URL is known only once the daemon's server listens: each request is sent there.
const discord = discordInteractions({ url: 'http://127.0.0.1:0/', fake, clock: systemClock });

serveSide<DiscordSideReady, InteractionAnswer>({
  ready: { url: fake.url, publicKey: discord.publicKey },
  prepare(kind, j, url) {
    const [verb, options] = subcommand(kind, j);
    const caller = benchCaller('discord', j % CHANNELS, j % USERS);
    const user: DiscordUser = { id: caller.user, username: caller.userName!, global_name: null };
    const channel = { id: caller.channel, name: caller.channelName! };
    const manager = verb === 'subscribe';
    const permissions = manager ? PERMISSIONS.manager : PERMISSIONS.member;
    const payload = discord.command(verb, options, { user, channel, permissions });
    discord.issue(payload);
    const request = { ...discord.build(payload), url };
    return {
      text: `/pipewatch ${verb} ${JSON.stringify(options)}`,
      send: () => discord.send(request),
      wrong(answer) {
        const json = answer.json as { type?: unknown; data?: { content?: unknown } } | undefined;
        const content = String(json?.data?.content ?? '');
        if (answer.status === 200 && json?.type === 4 && EXPECT[kind].test(content)) return;
        return `got HTTP ${answer.status}: ${answer.body.slice(0, 300)}`;
      },
    };
  },
  problem() {
    // A call still under way has no status yet.
    const refused = fake.calls.find((c) => c.status >= 300);
    if (!refused) return undefined;
    return `a follow-up got HTTP ${refused.status}: ${JSON.stringify(refused.body).slice(0, 300)}`;
  },
  close: () => fake.close(),
});
