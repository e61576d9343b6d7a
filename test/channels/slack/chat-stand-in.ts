/**
 * A stand-in for the chat core, keeping to the `ChatService` contract in the simplest
 * way, and recording every call: the Slack app's tests drive the app through it. It is
 * the one file to swap for the real core. What it answers:
 * - `command`: a private reply echoing the words, with a list whose items have Remove
 *   buttons, and, for `slow …`, a follow-up the test resolves (`releaseFollowUp`);
 * - `action`: `ack` acknowledges a message once (later clicks see who did, and when),
 *   the others answer privately with what they did;
 * - `home`: a reply naming the channels it was given;
 * - `channelGone`: how many subscriptions `subscriptions` holds for the channel.
 */
import type {
  ChatAction,
  ChatActionResult,
  ChatAnswer,
  ChatCaller,
  ChatPlatform,
  ChatReply,
  ChatService,
} from '../../../src/chat/types.js';
import type { Clock } from '../../../src/lib/clock.js';

export type StandInCall =
  | { method: 'command'; caller: ChatCaller; text: string }
  | { method: 'action'; caller: ChatCaller; action: ChatAction }
  | { method: 'home'; platform: ChatPlatform; user: string; channels: readonly string[] }
  | { method: 'channelGone'; platform: ChatPlatform; channel: string; reason: string };

export class ChatStandIn implements ChatService {
  /** Every call, in order. */
  readonly calls: StandInCall[] = [];
  /** Subscriptions per channel, for `channelGone`'s count. */
  readonly subscriptions = new Map<string, number>([['C0GAS', 2]]);
  private readonly acknowledged = new Map<string, { by: string; at: string }>();
  private release: ((reply: ChatReply | undefined) => void) | undefined;
  private fail: ((error: Error) => void) | undefined;

  constructor(private readonly clock: Clock) {}

  command(caller: ChatCaller, text: string): ChatAnswer {
    this.calls.push({ method: 'command', caller, text });
    const reply: ChatReply = {
      private: true,
      text: `You said: ${text}`,
      sections: [
        { kind: 'text', text: `You said: ${text}` },
        {
          kind: 'list',
          title: 'Subscriptions of this channel',
          items: [
            {
              id: 12,
              text: 'transco type:constraint',
              remove: { kind: 'remove', what: 'subscription', id: 12 },
            },
          ],
        },
      ],
    };
    if (!text.startsWith('slow')) return { reply };
    const followUp = new Promise<ChatReply | undefined>((resolve, reject) => {
      this.release = resolve;
      this.fail = reject;
    });
    return { reply: { private: true, text: 'Working on it…', sections: [] }, followUp };
  }

  /** Resolves the follow-up of the last `slow` command. */
  releaseFollowUp(reply: ChatReply | undefined): void {
    this.release?.(reply);
  }

  /** Fails the follow-up of the last `slow` command. */
  failFollowUp(error: Error): void {
    this.fail?.(error);
  }

  action(caller: ChatCaller, action: ChatAction): ChatActionResult {
    this.calls.push({ method: 'action', caller, action });
    if (action.kind === 'ack') {
      const first = this.acknowledged.get(action.message);
      if (first) return { acknowledged: { ...first, already: true } };
      const ack = { by: caller.user, at: this.clock.now().toISOString() };
      this.acknowledged.set(action.message, ack);
      return { acknowledged: { ...ack, already: false } };
    }
    const what =
      action.kind === 'mute'
        ? `Muted ${action.pipeline} for ${action.forMs / 3_600_000} h`
        : action.kind === 'remind'
          ? `You will be reminded of notice ${action.noticeId}`
          : `Removed ${action.what} #${action.id}`;
    return { reply: { private: true, text: what, sections: [{ kind: 'text', text: what }] } };
  }

  home(platform: ChatPlatform, user: string, channels: readonly string[]): ChatReply {
    this.calls.push({ method: 'home', platform, user, channels });
    return {
      private: true,
      text: `Home of ${user}`,
      sections: [
        {
          kind: 'list',
          title: 'Your channels',
          items: channels.map((c, i) => ({
            id: i + 1,
            text: c,
            remove: { kind: 'remove', what: 'subscription', id: i + 1 },
          })),
          empty: 'No channels.',
        },
      ],
    };
  }

  channelGone(platform: ChatPlatform, channel: string, reason: string): number {
    this.calls.push({ method: 'channelGone', platform, channel, reason });
    return this.subscriptions.get(channel) ?? 0;
  }
}
