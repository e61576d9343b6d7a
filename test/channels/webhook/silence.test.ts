/**
 * A silence's summary posted to a webhook: one signed `POST` whose body is the contract's
 * `SilenceEnded` branch, valid against the committed JSON Schema as Ajv reads it, with
 * hostile held alerts' text carried as data, exactly as it was.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WEBHOOK_SCHEMA_FILE } from '../../../src/channels/webhook/body-schema.js';
import { createWebhookChannel } from '../../../src/channels/webhook/send.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { memoryThreads } from '../../fakes/alerts.js';
import { HOSTILE_TITLE, hostileSilence, silenceAlert } from '../../fakes/silence.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../fakes/webhook.js';
import { ManualClock } from '../../support/clock.js';

const SECRET = 'a-long-random-webhook-secret';
const deps = { clock: new ManualClock(), logger: silentLogger };
const ctx = () => ({ now: '2026-11-20T15:00:00Z' as const, threads: memoryThreads() });
const validate = new Ajv2020({ strict: true, allErrors: true }).compile(
  JSON.parse(readFileSync(WEBHOOK_SCHEMA_FILE, 'utf8')),
);

describe('a silence’s summary posted to a webhook', () => {
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await startWebhookReceiver({ secret: SECRET });
  });
  afterEach(() => receiver.close());

  it('is one signed body of the contract, hostile text carried as data', async () => {
    const channel = createWebhookChannel({ secret: SECRET }, deps);
    const target = { kind: 'webhook' as const, url: receiver.url };
    await channel.send(target, [silenceAlert()], ctx());
    await channel.send(target, [hostileSilence()], ctx());
    expect(receiver.received).toHaveLength(2);
    for (const r of receiver.received) {
      expect(r.signatureValid).toBe(true);
      expect(validate(JSON.parse(r.body)), JSON.stringify(validate.errors)).toBe(true);
    }
    const plain = JSON.parse(receiver.received[0]!.body);
    expect(Object.keys(plain)).toEqual([
      'version',
      'kind',
      'state',
      'rule',
      'pipeline',
      'silence',
      'sent_at',
    ]);
    expect(plain).toMatchObject({ kind: 'silence', state: 'ended', rule: 'silence-12' });
    const hostile = JSON.parse(receiver.received[1]!.body).silence;
    const sent = hostileSilence().payload.silence!;
    expect(hostile.matchers).toBe(sent.matchers);
    expect(hostile.held).toBe(25);
    expect(hostile.alerts.map((a: { title: string }) => a.title)).toEqual(
      sent.alerts.map((a) => a.title),
    );
    expect(hostile.alerts[0].title).toBe(`${HOSTILE_TITLE} 0`);
    expect(hostile.alerts[0].title.length).toBeGreaterThan(10_000);
    await channel.close?.();
  });
});
