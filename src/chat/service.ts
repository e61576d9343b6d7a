/**
 * The chat core: what each `/pipewatch` command and each button does, for every
 * platform. It parses with the grammar, checks who may do it, changes the store in one
 * transaction (nothing is stored when anything is wrong), puts changed subscriptions in
 * force at once, and answers with a platform-neutral reply; the slower parts (counting
 * what a new subscription would have matched) come as a follow-up.
 */
import { storedLocationsAsync } from '../alerts/known-locations.js';
import { toUtcIso, type UtcIso } from '../lib/time.js';
import type { KnownLocation } from '../rules/location-check.js';
import type { ChatCoreDeps } from './deps.js';
import { type ChatCommand, type ChatVocabulary, parseChatCommand } from './grammar.js';
import { hint } from './hints.js';
import { ChatLists } from './lists.js';
import { refusal } from './permissions.js';
import { problemReply } from './problems.js';
import { ChatRules } from './rules.js';
import { type ChatSuggestion, type SuggestionField, suggestions } from './suggest.js';
import type {
  ChatAction,
  ChatActionResult,
  ChatAnswer,
  ChatCaller,
  ChatPlatform,
  ChatReply,
  ChatService,
} from './types.js';
import { helpReply } from './usage.js';

/** The vocabulary is read again after this long, so a command never waits on a full scan. */
const VOCABULARY_TTL_MS = 5 * 60_000;

/** A reply only the caller sees. */
export function privateReply(text: string, more: ChatReply['sections'] = []): ChatReply {
  return { private: true, text, sections: [{ kind: 'text', text }, ...more] };
}

/** The chat core, as every platform's front end uses it. */
export class ChatCore implements ChatService {
  private vocabularyCache: { at: number; value: ChatVocabulary } | undefined;
  private readonly rules: ChatRules;
  private readonly lists: ChatLists;

  constructor(private readonly deps: ChatCoreDeps) {
    this.rules = new ChatRules(deps, () => this.now());
    this.lists = new ChatLists(deps.store, () => this.now());
  }

  private now(): UtcIso {
    return toUtcIso(this.deps.clock.now());
  }

  /**
   * Tracked pipelines and the notices' words. Read once when first needed; after five
   * minutes the words a command is checked against are still the ones read before, and
   * they are read again once its answer is out, so no command waits on the read.
   */
  private async vocabulary(): Promise<ChatVocabulary> {
    const now = this.deps.clock.now().getTime();
    const cached = this.vocabularyCache;
    if (!cached) return this.readVocabulary(now);
    if (now - cached.at >= VOCABULARY_TTL_MS && !this.refreshing) {
      this.refreshing = true;
      setImmediate(() => {
        this.refreshing = false;
        this.readVocabulary(this.deps.clock.now().getTime()).catch((error: unknown) =>
          this.deps.logger.warn({ err: error }, 'reading the chat vocabulary failed'),
        );
      });
    }
    return cached.value;
  }

  private refreshing = false;

  private async readVocabulary(at: number): Promise<ChatVocabulary> {
    const value = {
      pipelines: (await this.deps.store.pipelines.all()).map((p) => p.slug),
      ...(await this.deps.store.notices.vocabulary()),
    };
    this.vocabularyCache = { at, value };
    return value;
  }

  /** Locations the API gave for pipelines with no capacity stored, by slug, and when. */
  private readonly fetched = new Map<string, { at: number; locations: readonly KnownLocation[] }>();

  /**
   * The locations `slug` is known to have: those of its capacity stored in the last 7
   * days, and those the API gave in the last five minutes; undefined when neither.
   */
  private async locationsOf(slug: string): Promise<readonly KnownLocation[] | undefined> {
    const now = this.deps.clock.now();
    const stored = await storedLocationsAsync(this.deps.store, slug, now);
    const got = this.fetched.get(slug);
    const fresh = got && now.getTime() - got.at < VOCABULARY_TTL_MS ? got.locations : undefined;
    if (!stored && !fresh) return undefined;
    return [...(stored ?? []), ...(fresh ?? [])];
  }

  /**
   * The command `text` stands for. The grammar asks for the locations of the pipelines a
   * command names as it reads it, and cannot wait: it reads the command again once those
   * it asked for are read.
   */
  private async parse(text: string) {
    const vocabulary = await this.vocabulary();
    const known = new Map<string, readonly KnownLocation[] | undefined>();
    for (;;) {
      const missing = new Set<string>();
      const parsed = parseChatCommand(text, {
        ...vocabulary,
        locations: (slug) => {
          if (!known.has(slug)) missing.add(slug);
          return known.get(slug);
        },
      });
      if (missing.size === 0) return parsed;
      for (const slug of missing) known.set(slug, await this.locationsOf(slug));
    }
  }

  async command(caller: ChatCaller, text: string): Promise<ChatAnswer> {
    const parsed = await this.parse(text);
    if (!parsed.ok) return { reply: problemReply(text, parsed.problems, parsed.verb) };
    try {
      return await this.run(caller, parsed.command, text);
    } catch (error) {
      this.deps.logger.error({ err: error, command: parsed.command.verb }, 'chat command failed');
      return { reply: privateReply('Something went wrong on our side; nothing was changed.') };
    }
  }

  /**
   * An `oac` on a pipeline with no capacity stored in the last 7 days: its location is
   * checked against the API's latest capacity before anything is stored. The answer says
   * so at once, only to the caller; the subscription, or why there is none, follows.
   */
  private checkFirst(
    ask: NonNullable<ChatCoreDeps['latestLocations']>,
    caller: ChatCaller,
    text: string,
    slug: string,
    location: string,
  ): ChatAnswer {
    const followUp = ask(slug).then(
      async (locations) => {
        this.fetched.set(slug, { at: this.deps.clock.now().getTime(), locations });
        const again = await this.parse(text);
        if (!again.ok) return problemReply(text, again.problems, again.verb);
        try {
          return (await this.run(caller, again.command, text)).reply;
        } catch (error) {
          this.deps.logger.error({ err: error, command: 'oac' }, 'chat command failed');
          return privateReply('Something went wrong on our side; nothing was changed.');
        }
      },
      (error: unknown) => {
        const why = error instanceof Error ? error.message : String(error);
        this.deps.logger.warn(
          { pipeline: slug, err: error },
          `could not check a location of ${slug}: ${why}`,
        );
        return privateReply(
          `Not subscribed: '${location}' could not be checked: pipewatch has no capacity of ${slug} from the last 7 days, and the API did not give its latest (${why}). Nothing was stored; try again in a few minutes.`,
        );
      },
    );
    return {
      reply: privateReply(`Checking '${location}' against the latest capacity of ${slug}…`),
      followUp,
    };
  }

  private async run(caller: ChatCaller, c: ChatCommand, text: string): Promise<ChatAnswer> {
    const changes = ['subscribe', 'oac', 'unsubscribe', 'mute', 'unmute'].includes(c.verb);
    // In a direct message only one's own reminders change, except for a silence once
    // admins are set: it is checked as in a channel wherever it is typed. (Without them, a
    // direct message has no Discord permission to check, and anyone may mute there.)
    const gatedSilence =
      (c.verb === 'mute' || c.verb === 'unmute') && this.deps.policy.admins.size > 0;
    const refused =
      changes && (!caller.direct || gatedSilence) ? refusal(caller, this.deps.policy) : undefined;
    if (
      refused &&
      !(
        c.verb === 'unsubscribe' &&
        c.id !== 'all' &&
        (await this.rules.isOwnReminder(caller, c.id))
      )
    )
      return { reply: privateReply(`Not done: ${refused}.`) };
    if (caller.direct && (c.verb === 'subscribe' || c.verb === 'oac'))
      return {
        reply: privateReply(
          `Subscriptions belong to channels: type this in the channel that should get the alerts, ${
            caller.platform === 'slack'
              ? `after inviting pipewatch there (${hint('/invite @pipewatch')})`
              : 'in a server pipewatch was added to'
          }. Here, ${hint('remind')} sets reminders for you alone.`,
        ),
      };
    switch (c.verb) {
      case 'oac': {
        const slug = c.capacity.pipelines?.[0];
        const location = c.capacity.locations?.[0];
        const ask = this.deps.latestLocations;
        if (ask && slug && location && !(await this.locationsOf(slug)))
          return this.checkFirst(ask, caller, text, slug, location);
        return this.rules.make(caller, c);
      }
      case 'subscribe':
      case 'remind':
        return this.rules.make(caller, c);
      case 'list':
        return { reply: await this.lists.list(caller) };
      case 'unsubscribe':
        return { reply: await this.rules.unsubscribe(caller, c.id) };
      case 'mute':
        return { reply: await this.rules.mute(caller, c) };
      case 'unmute':
        return { reply: await this.rules.unmute(caller, c.id) };
      case 'help':
        return { reply: helpReply(c.topic) };
    }
  }

  async action(caller: ChatCaller, action: ChatAction): Promise<ChatActionResult> {
    switch (action.kind) {
      case 'ack': {
        const ack = await this.deps.store.acks.acknowledge(
          caller.platform,
          caller.channel,
          action.message,
          caller.user,
          this.now(),
        );
        return { acknowledged: ack };
      }
      case 'mute': {
        const refused = refusal(caller, this.deps.policy);
        if (refused) return { reply: privateReply(`Not muted: ${refused}.`) };
        return {
          reply: await this.rules.mute(caller, {
            pipeline: action.pipeline,
            forMs: action.forMs,
          }),
        };
      }
      case 'remind':
        return { reply: await this.rules.remindMe(caller, action.noticeId) };
      case 'remove':
        return { reply: await this.rules.remove(caller, action.what, action.id) };
    }
  }

  home(platform: ChatPlatform, user: string, channels: readonly string[]): Promise<ChatReply> {
    return this.lists.home(platform, user, channels);
  }

  channelGone(platform: ChatPlatform, channel: string, reason: string): Promise<number> {
    return this.rules.pause(platform, channel, reason);
  }

  suggest(field: SuggestionField, typed: string): Promise<ChatSuggestion[]> {
    return suggestions(this.deps.store, field, typed);
  }
}

export type { ChatCoreDeps } from './deps.js';
