/**
 * What the platform sides of `chat_ack` share (`chat-ack-slack.ts`, `chat-ack-discord.ts`,
 * each in a process of its own as the platform is): the command mix, the messages they
 * exchange with the benchmark over IPC, and the loop that sends and times the commands.
 * A side says `{ ready }` with what the daemon's app needs of it (its fake's URL and the
 * credentials the platform would show the app's owner), then answers each `{ run }` with
 * the milliseconds of each command, and ends on `{ close }`. Each command is built and
 * signed before its clock starts (the platform's work, not pipewatch's), and timed from
 * the request leaving to the answer read in full over loopback; each answer is checked
 * to be the real one, so that no refusal or fallback is timed as an acknowledgement.
 */
import { seededRandom } from './subscriptions.js';

/** What a command of the mix does. */
export type Kind = 'list' | 'subscribe' | 'remind' | 'typo' | 'help';

/** Twenty commands: 6 list, 6 subscribe, 3 remind, 3 with a typo, 2 help, interleaved. */
export const MIX: readonly Kind[] = [
  ...['list', 'subscribe', 'typo', 'list', 'remind', 'subscribe', 'help', 'list', 'subscribe'],
  ...['typo', 'remind', 'list', 'subscribe', 'list', 'help', 'subscribe', 'typo', 'remind'],
  ...['list', 'subscribe'],
] as Kind[];

/** People typing in each channel; the `j`th command is typed by person `j % USERS`. */
export const USERS = 7;

/** A command as its verb's options, each written `key:value` except the one named first. */
type Options = Readonly<Record<string, string>>;

/** The reminders asked for, in turn; `pipelines` is the word after `remind`. */
export const REMINDERS: readonly Options[] = [
  { pipelines: 'transco' },
  { pipelines: 'tennessee', before: '24h,2h' },
  { pipelines: 'anr,ngpl' },
  { pipelines: 'columbia', field: 'end_at' },
];

/** The help asked for, in turn; `command` is the word after `help`. */
export const HELP: readonly Options[] = [{}, { command: 'subscribe' }];

/** Options written as a bare word, without their key. */
const BARE = new Set(['pipelines', 'command']);

/** The words after `/pipewatch`, as a person types them: `remind tennessee before:24h,2h`. */
export function typed(verb: string, options: Options): string {
  const words = Object.entries(options).map(([k, v]) => (BARE.has(k) ? v : `${k}:${v}`));
  return [verb, ...words].join(' ');
}

/** The random source of the subscriptions of the mix: the same on every side. */
export const mixRandom = () => seededRandom(7);

/** Messages from the benchmark to a side. */
export type SideRequest = { run: { url: string; from: number; count: number } } | { close: true };

/** What a side reports of one run: each command's milliseconds, and how many of each kind. */
export interface SideResult {
  ms: number[];
  kinds: Record<string, number>;
}

/** Messages from a side to the benchmark. */
export type SideReply<Ready> = { ready: Ready } | { result: SideResult } | { error: string };

/** One command built and signed: sending it and reading its answer is what is timed. */
export interface PreparedCommand<Answer> {
  /** The command as a person would read it, for an error. */
  text: string;
  send(): Promise<Answer>;
  /** Why `answer` is not this command's real answer; undefined when it is. */
  wrong(answer: Answer): string | undefined;
}

/** A platform's side: what it hands the benchmark, and how it builds each command. */
export interface Side<Ready, Answer> {
  ready: Ready;
  /** The `j`th command of the mix, of kind `kind`, to the app at `url`. */
  prepare(kind: Kind, j: number, url: string): PreparedCommand<Answer>;
  /** What went wrong after the answers (a follow-up refused), checked after each run. */
  problem?(): string | undefined;
  close(): Promise<void>;
}

/** Commands `from` to `from + count` of the mix, one after another; each one's milliseconds. */
async function run<Ready, Answer>(
  side: Side<Ready, Answer>,
  url: string,
  from: number,
  count: number,
): Promise<SideResult> {
  const ms: number[] = [];
  const kinds: Record<string, number> = {};
  for (let j = from; j < from + count; j++) {
    const kind = MIX[j % MIX.length]!;
    const command = side.prepare(kind, j, url);
    const started = performance.now();
    const answer = await command.send();
    ms.push(performance.now() - started);
    const wrong = command.wrong(answer);
    if (wrong) throw new Error(`'${command.text}' ${wrong}`);
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  const problem = side.problem?.();
  if (problem) throw new Error(problem);
  return { ms, kinds };
}

/** Serves the benchmark over IPC until it says `{ close }`; says `{ ready }` at once. */
export function serveSide<Ready, Answer>(side: Side<Ready, Answer>): void {
  const reply = (message: SideReply<Ready>) => process.send!(message);
  // The benchmark gone (it failed before saying `{ close }`): nothing is left to answer.
  process.on('disconnect', () => process.exit(1));
  process.on('message', (message: SideRequest) => {
    if ('close' in message) {
      void side.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
      return;
    }
    const { url, from, count } = message.run;
    run(side, url, from, count).then(
      (result) => reply({ result }),
      (error: unknown) => reply({ error: String((error as Error).stack ?? error) }),
    );
  });
  reply({ ready: side.ready });
}
