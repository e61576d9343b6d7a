/**
 * Slack's side of the `chat_ack` benchmark, in a process of its own as Slack is: the
 * Slack fake (the Web API the app checks its token with, and the `response_url`s its
 * follow-ups go to) with the benchmark's channels and people, and the sender of signed
 * `/pipewatch` commands, which times each one. Driven over IPC by `chat-ack.ts`: it says
 * `{ ready }` with the fake's URL, then answers each `{ run }` with the milliseconds of
 * each command, and ends on `{ close }`. Its one argument: how many channels the
 * commands are typed in (`benchChannel(0…)`).
 */
import { FAKE_USERS, startSlackFake } from '../test/fakes/slack.js';
import { slashCommand } from '../test/fakes/slack-payloads.js';
import { slackRequestSender } from '../test/fakes/slack-requests.js';
import { benchChannel, seededRandom, subscribeText } from './subscriptions.js';

/** Messages from the benchmark. */
export type SlackSideRequest =
  | { run: { url: string; secret: string; from: number; count: number } }
  | { close: true };

/** Messages to the benchmark. */
export type SlackSideReply =
  | { ready: { url: string; token: string } }
  | { result: { ms: number[]; kinds: Record<string, number> } }
  | { error: string };

const CHANNELS = Number(process.argv[2]);
const USERS = 7;

type Kind = 'list' | 'subscribe' | 'remind' | 'typo' | 'help';

/** Twenty commands: 6 list, 6 subscribe, 3 remind, 3 with a typo, 2 help, interleaved. */
const MIX: Kind[] = [
  ...['list', 'subscribe', 'typo', 'list', 'remind', 'subscribe', 'help', 'list', 'subscribe'],
  ...['typo', 'remind', 'list', 'subscribe', 'list', 'help', 'subscribe', 'typo', 'remind'],
  ...['list', 'subscribe'],
] as Kind[];

const TYPOS = [
  'subscribe trnsco type:constraint',
  'lsit',
  'subscribe transco type:constrant',
  'remind tennesee before:24h',
  'subscribe columbia catgory:critical',
];
const REMINDERS = ['transco', 'tennessee before:24h,2h', 'anr,ngpl', 'columbia field:end_at'];
const HELP = ['help', 'help subscribe'];

/** What the acknowledgement of each kind must say, so that only real answers are timed. */
const EXPECT: Record<Kind, RegExp> = {
  list: /subscriptions? here/,
  subscribe: /subscribed this channel/,
  remind: /You will get reminders by direct message/,
  typo: /did you mean|unknown/i,
  help: /\/pipewatch/,
};

const random = seededRandom(7);

function commandText(kind: Kind, j: number): string {
  switch (kind) {
    case 'list':
      return 'list';
    case 'subscribe':
      return subscribeText(random);
    case 'remind':
      return `remind ${REMINDERS[j % REMINDERS.length]}`;
    case 'typo':
      return TYPOS[j % TYPOS.length]!;
    case 'help':
      return HELP[j % HELP.length]!;
  }
}

const fake = await startSlackFake({
  channels: Array.from({ length: CHANNELS }, (_, n) => ({
    id: benchChannel(n),
    name: `gas-desk-${n}`,
    members: Array.from({ length: USERS }, (_, u) => `U0BENCH${u}`),
  })),
  users: [
    ...FAKE_USERS,
    ...Array.from({ length: USERS }, (_, u) => ({
      id: `U0BENCH${u}`,
      name: `trader${u}`,
      email: `trader${u}@example.com`,
    })),
  ],
});

/** Commands `from` to `from + count` of the mix, one after another; each one's milliseconds. */
async function run(url: string, secret: string, from: number, count: number) {
  const send = slackRequestSender({ url, signingSecret: secret });
  const ms: number[] = [];
  const kinds: Record<string, number> = {};
  for (let j = from; j < from + count; j++) {
    const kind = MIX[j % MIX.length]!;
    const text = commandText(kind, j);
    const payload = slashCommand(fake, {
      text,
      channel: benchChannel(j % CHANNELS),
      user: `U0BENCH${j % USERS}`,
    });
    // Signed before the clock starts: Slack's work, not pipewatch's.
    const request = send.build.command(payload);
    const started = performance.now();
    const answer = await send.send(request);
    ms.push(performance.now() - started);
    if (answer.status !== 200 || !EXPECT[kind].test(answer.body))
      throw new Error(`'${text}' got HTTP ${answer.status}: ${answer.body.slice(0, 300)}`);
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  return { ms, kinds };
}

const reply = (message: SlackSideReply) => process.send!(message);
process.on('message', (message: SlackSideRequest) => {
  if ('close' in message) {
    fake.close().then(() => process.exit(0));
    return;
  }
  const { url, secret, from, count } = message.run;
  run(url, secret, from, count).then(
    (result) => reply({ result }),
    (error: unknown) => reply({ error: String((error as Error).stack ?? error) }),
  );
});
reply({ ready: { url: fake.url, token: fake.token } });
