/**
 * Response URLs as Slack hands them out in command and action payloads: each takes JSON
 * POSTs (`text`, `blocks`, `response_type`, `replace_original`, `delete_original`), at
 * most five, within 30 minutes of being issued on the fake's clock, and answers
 * `{ "ok": true }`. Past its time it answers 404 `{ ok: false, error: "Expired url" }`,
 * the words Slack uses; past five uses 404 `used_url`, and for an address it never issued
 * 404 `no_service` (Slack does not document those two; they are the fake's). A bad body is
 * 400 `invalid_payload`, a bad message 400 with `slack-blocks.ts`'s code. Given the
 * message a button was on, `replace_original` edits it and `delete_original` deletes it
 * in the fake, as Slack does; other answers, `in_channel` ones too, are kept in
 * `responses` only.
 */
import { randomBytes } from 'node:crypto';
import type { Answer, SlackWorld } from './slack.js';
import { checkMessage, parseBlocks } from './slack-blocks.js';

/** Where a response URL answers into. */
export interface ResponseUrlContext {
  channel?: string;
  user?: string;
  /** The message a button was clicked on, which `replace_original` and `delete_original` act on. */
  message?: { channel: string; ts: string };
}

/** A POST to a response URL. */
export interface FakeResponse {
  url: string;
  status: number;
  /** Slack's error code when refused. */
  error?: string;
  /** The JSON body, parsed (undefined when it did not parse). */
  body: Record<string, unknown> | undefined;
  context: ResponseUrlContext;
  /** Which use of its URL this was (1 for the first accepted; 0 when refused). */
  use: number;
  at: number;
}

/** How often and how long a response URL may be used: Slack's 5 times in 30 minutes. */
export const RESPONSE_URL_LIMITS = { uses: 5, ttlMs: 30 * 60_000 };

interface Issued {
  context: ResponseUrlContext;
  issuedAt: number;
  uses: number;
}

/** The response URLs of one fake: issue them, answer their POSTs, keep every POST. */
export function createResponseUrls(world: SlackWorld, origin: () => string) {
  const issued = new Map<string, Issued>();
  const responses: FakeResponse[] = [];

  function issue(context: ResponseUrlContext = {}): string {
    const id = `${world.team.id}-${randomBytes(9).toString('hex')}`;
    issued.set(id, { context: { ...context }, issuedAt: world.wallNow(), uses: 0 });
    return `http://${origin()}/respond/${id}`;
  }

  function handle(id: string, method: string, raw: string): Answer {
    const url = `http://${origin()}/respond/${id}`;
    const entry = issued.get(id);
    let body: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
        body = parsed as Record<string, unknown>;
      }
    } catch {
      body = undefined;
    }
    const refuse = (status: number, error: string): Answer => {
      responses.push({
        url,
        status,
        error,
        body,
        context: entry?.context ?? {},
        use: 0,
        at: world.now(),
      });
      return { status, body: { ok: false, error } };
    };
    if (method !== 'POST') return refuse(405, 'invalid_method');
    if (!entry) return refuse(404, 'no_service');
    if (world.wallNow() - entry.issuedAt > RESPONSE_URL_LIMITS.ttlMs) {
      return refuse(404, 'Expired url');
    }
    if (entry.uses >= RESPONSE_URL_LIMITS.uses) return refuse(404, 'used_url');
    if (!body) return refuse(400, 'invalid_payload');
    const deleting = body.delete_original === true || body.delete_original === 'true';
    if (!deleting) {
      const problem = checkMessage(body.text, body.blocks);
      if (problem) return refuse(400, problem);
    }
    const target = entry.context.message;
    if (target) {
      const key = `${target.channel}/${target.ts}`;
      const original = world.messages.get(key);
      if (deleting) world.messages.delete(key);
      else if (original && (body.replace_original === true || body.replace_original === 'true')) {
        world.messages.set(key, {
          ...original,
          text: String(body.text ?? ''),
          blocks: parseBlocks(body.blocks),
          args: body,
          at: world.now(),
        });
      }
    }
    entry.uses += 1;
    responses.push({
      url,
      status: 200,
      body,
      context: entry.context,
      use: entry.uses,
      at: world.now(),
    });
    return { body: { ok: true } };
  }

  return { issue, handle, responses };
}
