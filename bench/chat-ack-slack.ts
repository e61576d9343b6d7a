/**
 * Slack's side of the `chat_ack` benchmark, in a process of its own as Slack is: the
 * Slack fake (the Web API the app checks its token with, and the `response_url`s its
 * follow-ups go to) with the benchmark's channels and people, and the sender of signed
 * `/pipewatch` commands, which times each one (`chat-ack-side.ts`). Its `{ ready }` gives
 * the fake's URL, the bot token and the signing secret this side made, as Slack shows
 * them to whoever installs the app. Its one argument: how many channels the commands are
 * typed in (`benchChannel(0…)`).
 */
import { randomBytes } from 'node:crypto';
import { FAKE_USERS, startSlackFake } from '../test/fakes/slack.js';
import { slashCommand } from '../test/fakes/slack-payloads.js';
import { type SlackAnswer, slackRequestSender } from '../test/fakes/slack-requests.js';
import { HELP, type Kind, mixRandom, REMINDERS, serveSide, typed, USERS } from './chat-ack-side.js';
import { benchCaller, subscribeText } from './subscriptions.js';

/** What Slack's side hands the benchmark before the app starts. */
export interface SlackSideReady {
  url: string;
  token: string;
  signingSecret: string;
}

const CHANNELS = Number(process.argv[2]);

const TYPOS = [
  'subscribe trnsco type:constraint',
  'lsit',
  'subscribe transco type:constrant',
  'remind tennesee before:24h',
  'subscribe columbia catgory:critical',
];

/** What the acknowledgement of each kind must say, so that only real answers are timed. */
const EXPECT: Record<Kind, RegExp> = {
  list: /subscriptions? here/,
  subscribe: /subscribed this channel/,
  remind: /You will get reminders by direct message/,
  typo: /did you mean|unknown/i,
  help: /\/pipewatch/,
};

const random = mixRandom();

function commandText(kind: Kind, j: number): string {
  switch (kind) {
    case 'list':
      return 'list';
    case 'subscribe':
      return subscribeText(random);
    case 'remind':
      return typed('remind', REMINDERS[j % REMINDERS.length]!);
    case 'typo':
      return TYPOS[j % TYPOS.length]!;
    case 'help':
      return typed('help', HELP[j % HELP.length]!);
  }
}

const fake = await startSlackFake({
  channels: Array.from({ length: CHANNELS }, (_, n) => ({
    id: benchCaller('slack', n, 0).channel,
    name: `gas-desk-${n}`,
    members: Array.from({ length: USERS }, (_, u) => benchCaller('slack', n, u).user),
  })),
  users: [
    ...FAKE_USERS,
    ...Array.from({ length: USERS }, (_, u) => {
      const { user, userName } = benchCaller('slack', 0, u);
      return { id: user, name: userName!, email: `${userName}@example.com` };
    }),
  ],
});
const signingSecret = randomBytes(16).toString('hex');

serveSide<SlackSideReady, SlackAnswer>({
  ready: { url: fake.url, token: fake.token, signingSecret },
  prepare(kind, j, url) {
    const text = commandText(kind, j);
    const { channel, user } = benchCaller('slack', j % CHANNELS, j % USERS);
    const payload = slashCommand(fake, { text, channel, user });
    const send = slackRequestSender({ url, signingSecret });
    const request = send.build.command(payload);
    return {
      text,
      send: () => send.send(request),
      wrong: (answer) =>
        answer.status === 200 && EXPECT[kind].test(answer.body)
          ? undefined
          : `got HTTP ${answer.status}: ${answer.body.slice(0, 300)}`,
    };
  },
  close: () => fake.close(),
});
