/**
 * Discord's side of an application's interactions, on loopback: it holds the
 * application's Ed25519 key pair (the app is given `publicKey`, 64 hex characters, as
 * the developer portal shows it), sends interactions to the app's Interactions Endpoint
 * URL as Discord does (`X-Signature-Ed25519`: hex signature of `X-Signature-Timestamp` +
 * the raw body; `Content-Type: application/json`; Discord's `User-Agent`), and adds the
 * interaction webhooks to the Discord fake (`fake.extend`): `POST /webhooks/{application
 * id}/{token}` takes a follow-up while the token is valid (15 minutes on the clock),
 * checks it as Discord checks a message, records it and answers with the message. To test
 * the app's defences a request can be spoiled: signed with another key, stamped at
 * another time, its body changed after signing, padded, sent chunked, headers changed or
 * left out, or sent again byte for byte (a replay).
 */
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import type { DiscordFake, Json, Reply } from './discord.js';
import {
  botMessage,
  commandData,
  componentData,
  interactionBase,
  type MessageComponents,
  type OptionInput,
  snowflake,
  type Where,
} from './discord-interaction-payloads.js';
import {
  onTheWire,
  type SentRequest,
  sendOnTheWire,
  type WireAnswer,
  type WireTamper,
} from './wire-requests.js';

/** The application id the interactions carry. */
export const APPLICATION_ID = '1210000000000000001';

/** How long an interaction token takes follow-ups: 15 minutes. */
export const TOKEN_LIFETIME_MS = 15 * 60_000;

const USER_AGENT = 'Discord-Interactions/1.0 (+https://discord.com)';

/** How a request is to be spoiled; nothing by default. */
export interface Tamper extends WireTamper {
  /** Sign with a key that is not the application's. */
  otherKey?: boolean;
  /** `X-Signature-Timestamp` (seconds, signed with) instead of the clock's now. */
  timestamp?: number | string;
  /** Send this instead of the payload as JSON (signed as it is). */
  rawBody?: string;
  /** Pad the JSON with spaces to this many bytes before signing. */
  padTo?: number;
}

/** The app's answer. */
export interface InteractionAnswer extends WireAnswer {
  /** The body read as JSON, when it is. */
  json: Json | undefined;
}

/** A follow-up the app posted to an interaction's webhook. */
export interface FollowUp {
  interactionId: string;
  status: number;
  body: Json;
}

/** What Discord would find wrong with a message body (an answer's `data` or a follow-up). */
export function messageProblems(body: Json): string[] {
  const problems: string[] = [];
  const len = (v: unknown) => (typeof v === 'string' ? v.length : 0);
  if (len(body.content) > 2000) problems.push('content: more than 2000 characters');
  const embeds = Array.isArray(body.embeds) ? (body.embeds as Json[]) : [];
  if (embeds.length > 10) problems.push('embeds: more than 10');
  let total = 0;
  for (const e of embeds) {
    if (len(e.description) > 4096) problems.push('embeds: a description over 4096 characters');
    total += len(e.title) + len(e.description);
  }
  if (total > 6000) problems.push('embeds: more than 6000 characters together');
  const rows = Array.isArray(body.components) ? (body.components as Json[]) : [];
  if (rows.length > 5) problems.push('components: more than 5 rows');
  const ids = new Set<string>();
  for (const row of rows) {
    const items = Array.isArray(row.components) ? (row.components as Json[]) : [];
    if (row.type !== 1 || items.length === 0 || items.length > 5)
      problems.push('components: a row of 1 to 5 components');
    for (const c of items) {
      const id = String(c.custom_id ?? '');
      if (id === '' || id.length > 100) problems.push('components: a custom id of 1 to 100');
      if (ids.has(id)) problems.push(`components: custom id ${id} twice`);
      ids.add(id);
      if (c.type === 2 && (len(c.label) === 0 || len(c.label) > 80))
        problems.push('components: a label of 1 to 80 characters');
      if (c.type === 3 && items.length > 1)
        problems.push('components: a menu not alone in its row');
    }
  }
  if (String(body.content ?? '').trim() === '' && embeds.length === 0)
    problems.push('empty message');
  return problems;
}

/** The raw 32-byte public key of an Ed25519 key, in hex, as Discord shows it. */
function rawHex(key: KeyObject): string {
  return key.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex');
}

/** Discord sending interactions to the app at `url`, and its webhooks on `fake`. */
export function discordInteractions(options: {
  url: string;
  fake: DiscordFake;
  clock: { now(): Date };
  applicationId?: string;
}) {
  const applicationId = options.applicationId ?? APPLICATION_ID;
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const other = generateKeyPairSync('ed25519').privateKey;
  const now = () => options.clock.now();
  /** Token → the interaction it belongs to and when it was sent. */
  const tokens = new Map<string, { id: string; at: number }>();
  const followUps: FollowUp[] = [];

  options.fake.extend((req): Reply | undefined => {
    const m = /^\/webhooks\/(\d+)\/([^/]+)$/.exec(req.path);
    if (!m || req.method !== 'POST') return undefined;
    const unknown = { status: 404, body: { message: 'Unknown Webhook', code: 10015 } };
    if (m[1] !== applicationId) return unknown;
    const sent = tokens.get(m[2]!);
    if (!sent || now().getTime() - sent.at > TOKEN_LIFETIME_MS)
      return { status: 401, body: { message: 'Invalid Webhook Token', code: 50027 } };
    const problems = messageProblems(req.body);
    if (problems.length > 0) {
      const code = problems.includes('empty message') ? 50006 : 50035;
      const reply = { status: 400, body: { message: problems.join('; '), code } };
      followUps.push({ interactionId: sent.id, status: 400, body: req.body });
      return reply;
    }
    followUps.push({ interactionId: sent.id, status: 200, body: req.body });
    const message = botMessage(applicationId, {
      id: snowflake(now()),
      channel: '0',
      content: String(req.body.content ?? ''),
      embeds: (req.body.embeds as unknown[]) ?? [],
      components: (req.body.components as unknown[]) ?? [],
      at: now(),
    });
    return {
      status: 200,
      body: { ...message, webhook_id: applicationId, flags: req.body.flags ?? 0 },
    };
  });

  function build(payload: Json, tamper: Tamper = {}): SentRequest {
    let body = tamper.rawBody ?? JSON.stringify(payload);
    if (tamper.padTo !== undefined)
      body += ' '.repeat(Math.max(0, tamper.padTo - Buffer.byteLength(body)));
    const timestamp = String(tamper.timestamp ?? Math.floor(now().getTime() / 1000));
    const signature = sign(
      null,
      Buffer.from(timestamp + body),
      tamper.otherKey ? other : privateKey,
    );
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'x-signature-ed25519': signature.toString('hex'),
      'x-signature-timestamp': timestamp,
    };
    return onTheWire(options.url, headers, body, tamper);
  }

  async function send(request: SentRequest): Promise<InteractionAnswer> {
    const answer = await sendOnTheWire(request);
    let json: Json | undefined;
    try {
      json = JSON.parse(answer.body) as Json;
    } catch {}
    return { ...answer, json };
  }

  /** The interaction's token takes follow-ups from now on, as when Discord sends it. */
  function issue(payload: { id: string; token: string }): void {
    tokens.set(payload.token, { id: payload.id, at: now().getTime() });
  }

  /** Signs and sends an interaction, its token taking follow-ups from then on. */
  function interact(payload: Json & { id: string; token: string }, tamper?: Tamper) {
    issue(payload);
    return send(build(payload, tamper));
  }

  return {
    applicationId,
    /** `DISCORD_PUBLIC_KEY`: 64 hex characters. */
    publicKey: rawHex(publicKey),
    /** The follow-ups posted to the webhooks, in order, refused ones included. */
    followUps,
    build,
    /** Sends a request as it is: one sent before goes again byte for byte, a replay. */
    send,
    issue,
    interact,
    /** The payload of `/pipewatch <subcommand> <options…>`. */
    command(subcommand: string, input: Record<string, OptionInput> = {}, where: Where = {}) {
      return {
        ...interactionBase(applicationId, now(), 2, where),
        data: commandData(subcommand, input),
      };
    },
    /** The payload of an autocomplete: the option given as `{ focused }` is being typed. */
    autocomplete(subcommand: string, input: Record<string, OptionInput>, where: Where = {}) {
      return {
        ...interactionBase(applicationId, now(), 4, where),
        data: commandData(subcommand, input),
      };
    },
    /** The payload of a click on a component of a message in `#gas` (or `where`). */
    click(
      input: {
        customId: string;
        values?: string[];
        message: {
          id: string;
          embeds?: unknown[];
          components?: MessageComponents;
          content?: string;
        };
      },
      where: Where = {},
    ) {
      const base = interactionBase(applicationId, now(), 3, where);
      const message = botMessage(applicationId, {
        ...input.message,
        channel: base.channel_id,
        at: now(),
      });
      return { ...base, data: componentData(input.customId, input.values), message };
    },
  };
}

/** Discord's side of the interactions, as `discordInteractions` makes it. */
export type DiscordInteractions = ReturnType<typeof discordInteractions>;
