/**
 * Files upload v2, as Slack answers it: `files.getUploadURLExternal` (a `filename` and a
 * `length`) returns a `file_id` and an `upload_url` on the fake's own loopback server; a
 * POST of the raw bytes to that URL answers HTTP 200; `files.completeUploadExternal`
 * (`files` as a JSON array of `{ id, title }`, `channel_id`, `thread_ts`,
 * `initial_comment`) shares the uploaded files in the conversation, as one message, and
 * returns `files`. Both methods need the `files:write` scope (`missing_scope` with
 * `needed` and `provided` otherwise), have a limit per method for the workspace (HTTP
 * 429 with `Retry-After` past it), and the share is refused as a post is: an unknown
 * conversation, an archived one, one the bot is not in (`not_in_channel`).
 */
import type { Answer, Args, SlackWorld } from './slack.js';

/** A file as the fake holds it, from its upload URL to its share. */
export interface FakeFile {
  id: string;
  name: string;
  /** The `length` declared to `files.getUploadURLExternal`. */
  length: number;
  alt?: string;
  /** The bytes POSTed to its upload URL; undefined until then. */
  bytes?: Buffer;
  /** The upload's `content-type` header. */
  contentType?: string;
  /** Whether the upload carried the bot token. */
  authorized?: boolean;
  /** Set by `files.completeUploadExternal`. */
  shared?: { channel: string; ts: string; thread_ts?: string; comment: string; title: string };
}

const fail = (error: string, extra: Args = {}): Answer => ({
  body: { ok: false, error, ...extra },
});

/** The files methods of one fake: `scopes` are the token's, `perMinute` each method's limit. */
export function createFiles(
  world: SlackWorld,
  options: { scopes: readonly string[]; perMinute: number; burst: number; origin: () => string },
) {
  const files = new Map<string, FakeFile>();
  const uploads: FakeFile[] = [];
  const buckets = new Map<string, { tokens: number; last: number }>();
  let seq = 0;

  /** Takes a call from the method's bucket, or says how many seconds until one. */
  function take(method: string): number | undefined {
    const at = world.now();
    const perMs = options.perMinute / 60_000;
    const b = buckets.get(method) ?? { tokens: options.burst, last: at };
    b.tokens = Math.min(options.burst, b.tokens + (at - b.last) * perMs);
    b.last = at;
    buckets.set(method, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000));
  }

  /** `missing_scope` or a 429, before anything else: as Slack checks them. */
  function gate(method: string): Answer | undefined {
    if (!options.scopes.includes('files:write'))
      return fail('missing_scope', { needed: 'files:write', provided: options.scopes.join(',') });
    const wait = take(method);
    if (wait === undefined) return undefined;
    return {
      status: 429,
      body: { ok: false, error: 'ratelimited' },
      headers: { 'retry-after': String(wait) },
    };
  }

  function getUploadURL(args: Args): Answer {
    const refused = gate('files.getUploadURLExternal');
    if (refused) return refused;
    const name = typeof args.filename === 'string' ? args.filename : '';
    const length = Number(args.length);
    if (name === '' || !Number.isInteger(length) || length <= 0) return fail('invalid_arguments');
    seq += 1;
    const id = `F0CHART${String(seq).padStart(4, '0')}`;
    const file: FakeFile = {
      id,
      name,
      length,
      ...(typeof args.alt_txt === 'string' ? { alt: args.alt_txt } : {}),
    };
    files.set(id, file);
    return {
      body: { ok: true, upload_url: `http://${options.origin()}/upload/v1/${id}`, file_id: id },
    };
  }

  /** A POST to an upload URL: the bytes, raw. */
  function receive(id: string, bytes: Buffer, contentType: string, auth: boolean): Answer {
    const file = files.get(id);
    if (!file || file.bytes) return { status: 404, body: { ok: false, error: 'not_found' } };
    file.bytes = bytes;
    file.contentType = contentType;
    file.authorized = auth;
    return { body: { ok: true, size: bytes.length } };
  }

  function complete(args: Args): Answer {
    const refused = gate('files.completeUploadExternal');
    if (refused) return refused;
    let listed: unknown = args.files;
    if (typeof listed === 'string') {
      try {
        listed = JSON.parse(listed);
      } catch {
        return fail('invalid_arguments');
      }
    }
    if (!Array.isArray(listed) || listed.length === 0) return fail('invalid_arguments');
    const chosen: Array<{ file: FakeFile; title: string }> = [];
    for (const entry of listed as Array<{ id?: unknown; title?: unknown }>) {
      const file = typeof entry?.id === 'string' ? files.get(entry.id) : undefined;
      // Not asked for, not uploaded, or shared already.
      if (!file?.bytes || file.shared) return fail('file_not_found');
      chosen.push({ file, title: typeof entry.title === 'string' ? entry.title : file.name });
    }
    const channelId = args.channel_id;
    const c = typeof channelId === 'string' ? world.channels.get(channelId) : undefined;
    if (!c) return fail('channel_not_found');
    if (c.archived) return fail('is_archived');
    if (c.member === false) return fail('not_in_channel');
    const threadTs = typeof args.thread_ts === 'string' ? args.thread_ts : undefined;
    if (threadTs && !world.messages.has(`${c.id}/${threadTs}`)) return fail('thread_not_found');
    const ts = world.nextTs();
    const comment = typeof args.initial_comment === 'string' ? args.initial_comment : '';
    world.messages.set(`${c.id}/${ts}`, {
      channel: c.id,
      ts,
      text: comment,
      blocks: [],
      ...(threadTs ? { thread_ts: threadTs } : {}),
      args,
      at: world.now(),
    });
    for (const { file, title } of chosen) {
      file.shared = {
        channel: c.id,
        ts,
        comment,
        title,
        ...(threadTs ? { thread_ts: threadTs } : {}),
      };
      uploads.push(file);
    }
    return {
      body: {
        ok: true,
        files: chosen.map(({ file, title }) => ({
          id: file.id,
          name: file.name,
          title,
          mimetype: 'image/png',
          filetype: 'png',
          size: file.bytes?.length ?? 0,
        })),
      },
    };
  }

  return { getUploadURL, receive, complete, files, uploads };
}
