/**
 * `docs/webhook.schema.json` is what receivers validate webhook bodies against: it is
 * generated from the body schema pipewatch builds bodies to, it has one closed branch
 * per state, every webhook fixture passes it, and a body missing a required field, of
 * an unknown kind or state, or with a field it does not define, fails it, nested
 * objects (a notice, a silence and the alerts it held) included. Three
 * validators hold it to that: the body schema itself; the committed file read back by
 * zod's JSON Schema importer; and the committed file compiled by Ajv (draft 2020-12),
 * the validator receivers use.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  WEBHOOK_SCHEMA_FILE,
  webhookBodySchema,
  webhookJsonSchema,
} from '../../../src/channels/webhook/body-schema.js';
import { fixtureKinds, webhookFixtureBody } from '../payload-fixtures.js';

/** The parts of the JSON Schema the checks below read. */
interface SchemaFile {
  $schema: string;
  oneOf: Array<{ $ref: string }>;
  $defs: Record<string, { required: string[]; properties: { state: Branch } }>;
}
type Branch = { const?: string; enum?: string[] };
type Body = { [key: string]: unknown };

/** The committed file as parsed, for the validators; `committed` to read it. */
const file = JSON.parse(readFileSync(WEBHOOK_SCHEMA_FILE, 'utf8'));
const committed: SchemaFile = file;

/** Every webhook fixture's body, parsed. */
const bodies = fixtureKinds('webhook').map(
  (kind) => [kind, JSON.parse(webhookFixtureBody(kind)) as Body] as const,
);

/** A body whose `path` (keys, then the last one deleted) is gone. */
function without(body: Body, path: readonly (string | number)[]): Body {
  const copy = structuredClone(body);
  let at = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  delete at[path.at(-1)!];
  return copy;
}

/** The required fields of a body, nested ones included, as paths. */
function requiredPaths(body: Body): (string | number)[][] {
  const top = Object.keys(body);
  const nested: (string | number)[][] = [
    ['pipeline', 'slug'],
    ['pipeline', 'name'],
  ];
  if (body.notice) nested.push(['notice', 'id'], ['notice', 'posted_at']);
  if (body.deadline) nested.push(['deadline', 'at'], ['deadline', 'before']);
  if (body.capacity) nested.push(['capacity', 'gas_day'], ['capacity', 'locations', 0, 'oac']);
  if (body.operations) nested.push(['operations', 'summary'], ['operations', 'seen_at']);
  if (body.silence) {
    const silence = body.silence as Body;
    nested.push(...Object.keys(silence).map((k) => ['silence', k]));
    const [held] = silence.alerts as Body[];
    if (held) nested.push(...Object.keys(held).map((k) => ['silence', 'alerts', 0, k]));
  }
  return [...top.map((k) => [k]), ...nested];
}

/** The contract's checks, run by one validator. */
function contract(accepts: (body: unknown) => boolean) {
  it.each(bodies)('accepts the %s fixture', (_kind, body) => {
    expect(accepts(body)).toBe(true);
  });

  it.each(bodies)('refuses the %s fixture without any one required field', (_kind, body) => {
    for (const path of requiredPaths(body)) {
      expect(accepts(without(body, path)), `without ${path.join('.')}`).toBe(false);
    }
  });

  it.each(bodies)('refuses the %s fixture of an unknown kind or state', (_kind, body) => {
    expect(accepts({ ...body, kind: 'pager' })).toBe(false);
    expect(accepts({ ...body, state: 'paged' })).toBe(false);
    expect(accepts({ ...body, kind: body.kind === 'notice' ? 'capacity' : 'notice' })).toBe(false);
  });

  it.each(bodies)('refuses the %s fixture with a field it does not define', (_kind, body) => {
    expect(accepts({ ...body, zone: 'America/Chicago' })).toBe(false);
    expect(accepts({ ...body, pipeline: { ...(body.pipeline as object), zone: 'UTC' } })).toBe(
      false,
    );
    if (body.notice)
      expect(accepts({ ...body, notice: { ...(body.notice as object), x: 1 } })).toBe(false);
    if (body.silence) {
      const silence = body.silence as Body & { alerts: Body[] };
      expect(accepts({ ...body, silence: { ...silence, x: 1 } })).toBe(false);
      const [first, ...rest] = silence.alerts;
      const alerts = [{ ...first, zone: 'UTC' }, ...rest];
      expect(accepts({ ...body, silence: { ...silence, alerts } })).toBe(false);
    }
  });

  it.each(bodies.filter(([, body]) => body.silence))(
    'refuses the %s fixture listing more than 20 held alerts, or of another kind of held alert',
    (_kind, body) => {
      const silence = body.silence as Body & { alerts: Body[] };
      const [first] = silence.alerts;
      const many = Array.from({ length: 21 }, () => first);
      expect(accepts({ ...body, silence: { ...silence, alerts: many.slice(0, 20) } })).toBe(true);
      expect(accepts({ ...body, silence: { ...silence, alerts: many } })).toBe(false);
      const paged = [{ ...first, kind: 'pager' }];
      expect(accepts({ ...body, silence: { ...silence, alerts: paged } })).toBe(false);
      expect(accepts({ ...body, silence: { ...silence, ended_by: 'forgotten' } })).toBe(false);
      expect(accepts({ ...body, silence: { ...silence, held: -1 } })).toBe(false);
    },
  );

  it('refuses a body of another version, or with a time not in UTC seconds', () => {
    const [, body] = bodies[0]!;
    expect(accepts({ ...body, version: 2 })).toBe(false);
    expect(accepts({ ...body, sent_at: '2026-11-20T18:30:00.000Z' })).toBe(false);
  });
}

describe('docs/webhook.schema.json', () => {
  it('is the JSON Schema the body schema generates', () => {
    expect(
      JSON.stringify(committed) === JSON.stringify(webhookJsonSchema()),
      'docs/webhook.schema.json is out of date: run `node --import tsx scripts/webhook-schema.ts` and commit it',
    ).toBe(true);
  });

  it('is draft 2020-12 with one branch per state, every object closed', () => {
    expect(committed.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    const branches = (committed.oneOf as Array<{ $ref: string }>).map(
      (b) => committed.$defs[b.$ref.replace('#/$defs/', '')],
    );
    const states = branches.flatMap((b) => b.properties.state.enum ?? [b.properties.state.const]);
    expect(states).toEqual([
      'new',
      'updated',
      'reminder',
      'firing',
      'resolved',
      'schema-drift',
      'unknown-pipeline',
      'unknown-location',
      'channel-gone',
      'feed-stale',
      'feed-recovered',
      'target-dead',
      'target-recovered',
      'ended',
    ]);
    for (const b of branches) expect(b.required).toEqual(expect.arrayContaining(['kind', 'state']));
    const objects: Array<Record<string, unknown>> = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        if ((node as { type?: unknown }).type === 'object') objects.push(node as never);
        Object.values(node).forEach(walk);
      }
    };
    walk(committed);
    expect(objects.length).toBeGreaterThanOrEqual(14);
    for (const o of objects) expect(o.additionalProperties, JSON.stringify(o)).toBe(false);
  });

  it('names one type per schema, as validators in strict mode require', () => {
    const unions = JSON.stringify(committed).match(/"type":\[[^\]]*\]/g);
    expect(unions).toBeNull();
  });
});

describe('the body schema', () => {
  contract((body) => webhookBodySchema.safeParse(body).success);
});

describe('docs/webhook.schema.json, read back by zod', () => {
  const imported = z.fromJSONSchema(file);
  contract((body) => imported.safeParse(body).success);
});

describe('docs/webhook.schema.json, compiled by Ajv', () => {
  it('compiles in strict mode', () => {
    expect(() => new Ajv2020({ strict: true, allErrors: true }).compile(file)).not.toThrow();
  });
  const validate = new Ajv2020({ strict: true, allErrors: true }).compile(file);
  contract((body) => validate(body) === true);
});
