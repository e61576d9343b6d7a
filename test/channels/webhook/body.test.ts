/**
 * The webhook body is built through its contract, and it is what the decisions put in each
 * alert, less the display zone: the rules engine decides every kind and state on a real
 * SQLite store, and each alert it queues renders to a body of the contract holding the
 * stored alert's fields, in their order; so does a silence's summary. An alert that
 * cannot make a body goes dead at once with one line, and nothing reaches the receiver.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { AlertEngine } from '../../../src/alerts/engine.js';
import type { AlertPayload } from '../../../src/alerts/payload.js';
import { DeliveryError } from '../../../src/channels/types.js';
import { webhookBodySchema } from '../../../src/channels/webhook/body-schema.js';
import { renderWebhook } from '../../../src/channels/webhook/render.js';
import { createWebhookChannel } from '../../../src/channels/webhook/send.js';
import type { NoticeEvent, SchemaDriftEvent } from '../../../src/ingest/events.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { toUtcIso } from '../../../src/lib/time.js';
import type { Rule } from '../../../src/rules/types.js';
import { asyncStoreOf } from '../../../src/store/async-sqlite.js';
import type { Store } from '../../../src/store/index.js';
import type { CapacityLocation } from '../../../src/upstream/schemas.js';
import { memoryThreads, noticeAlert } from '../../fakes/alerts.js';
import { transcoCycle } from '../../fakes/capacity-event.js';
import { makeNotice, noticeEvent } from '../../fakes/notice.js';
import { startWebhookReceiver } from '../../fakes/webhook.js';
import { ManualClock } from '../../support/clock.js';
import { useTempStore } from '../../support/temp-store.js';
import { sampleAlerts } from '../payload-samples.js';

const HOOK = { kind: 'webhook' as const, url: 'https://hooks.example.com/pipewatch' };
const at = { file: 'rules/test.yaml', line: 1, col: 1 };
const SENT_AT = '2026-11-21T12:00:00Z';

const RULES: Rule[] = [
  {
    kind: 'notices',
    name: 'transco-notices',
    at,
    filter: { pipelines: ['transco'] },
    on: ['new', 'updated'],
    notify: [HOOK],
  },
  {
    kind: 'deadlines',
    name: 'transco-reminders',
    at,
    field: 'response_at',
    beforeMs: [72_000_000, 7_200_000],
    filter: { pipelines: ['transco'] },
    notify: [HOOK],
  },
  {
    kind: 'capacity',
    name: 'transco-low-oac',
    at,
    pipelines: ['transcoo', 'transco'],
    pipelineRefs: [{ slug: 'transcoo', at: { file: 'rules/test.yaml', line: 4, col: 17 } }],
    unit: 'absolute',
    below: 50_000,
    clearAbove: 60_000,
    repeatEveryMs: 3_600_000,
    notify: [HOOK],
  },
  {
    kind: 'capacity',
    name: 'station-9-watch',
    at,
    pipelines: ['transco'],
    locations: ['station 9'],
    locationRefs: [{ location: 'STATION 9', at: { file: 'rules/test.yaml', line: 9, col: 19 } }],
    unit: 'absolute',
    below: 50_000,
    clearAbove: 60_000,
    notify: [HOOK],
  },
];

function station(id: number, oac: number): CapacityLocation {
  return {
    id,
    location: `STATION ${id}`,
    identifier: String(1_001_000 + id),
    flow: 'D',
    qti: 'DPQ',
    zone: 'Z4',
    dc: 200_000,
    opc: 200_000,
    tsq: 200_000 - oac,
    oac,
    it: 'N',
    all: 'Y',
    reason: '',
    service_created_at: null,
    service_updated_at: '2026-11-20T23:05:00Z',
  };
}

const drift: SchemaDriftEvent = {
  kind: 'schema-drift',
  table: 'notices',
  previousHash: 'a'.repeat(64),
  hash: 'b'.repeat(64),
  description: { name: 'notices', description: '', primary_key: 'id', fields: [] },
  seenAt: '2026-11-20T15:00:00Z',
};

/** Every alert the engine queues over a day that has each kind and state in it. */
async function decide(s: Store): Promise<AlertPayload[]> {
  const clock = new ManualClock('2026-11-20T15:00:00Z');
  const engine = new AlertEngine(
    {
      store: asyncStoreOf(s),
      clock,
      logger: silentLogger,
      maxAlertAgeMs: 86_400_000,
      opsTarget: HOOK,
    },
    RULES,
  );
  s.pipelines.upsert(
    {
      id: 3,
      name: 'Transco',
      slug: 'transco',
      url: '',
      tsp_name: 'Transco',
      tsp_id: '3',
      service_created_at: null,
      service_updated_at: null,
    },
    '2026-11-20T15:00:00Z',
  );
  const ingest = async (e: NoticeEvent) =>
    await asyncStoreOf(s).transaction(async () => {
      s.notices.upsert(e.notice, e.seenAt, false);
      await engine.hooks().notices?.([e]);
    });
  const first = makeNotice({ response_at: '2026-11-21T14:00:00Z' });
  await ingest(noticeEvent(first));
  await ingest(
    noticeEvent(
      { ...first, status: 'Supersede' },
      { change: 'updated', version: 2, changedFields: ['status'], previous: first },
    ),
  );
  clock.set('2026-11-20T18:00:30Z');
  await engine.runReminders();
  clock.set('2026-11-21T12:30:00Z');
  await engine.runReminders();
  const cycle = (name: string, locations: CapacityLocation[]) =>
    asyncStoreOf(s).transaction(async () =>
      engine.hooks().capacity?.(
        transcoCycle({
          cycle: name,
          gasDay: '2026-11-21',
          locations,
          seenAt: toUtcIso(clock.now()),
        }),
      ),
    );
  await cycle('timely', [station(1, 30_000), station(2, 40_000)]);
  clock.advance(3_600_000);
  await cycle('evening', [station(1, 30_000), station(2, 70_000), station(3, 45_000)]);
  await asyncStoreOf(s).transaction(async () => engine.hooks().schemaDrift?.(drift));
  await engine.checkPipelines();
  return s.outbox.due('2030-01-01T00:00:00Z').map((r) => r.payload);
}

describe('the bodies of the alerts the rules decide', () => {
  const temp = useTempStore('pipewatch-webhook-body-', { shared: true });
  let payloads: AlertPayload[] = [];
  beforeAll(async () => {
    payloads = await decide(temp.store);
  });

  it('cover every kind and state, a late reminder and a repeated location', () => {
    expect(new Set(payloads.map((p) => `${p.kind}/${p.state}`))).toEqual(
      new Set([
        'notice/new',
        'notice/updated',
        'deadline/reminder',
        'capacity/firing',
        'capacity/resolved',
        'operations/schema-drift',
        'operations/unknown-pipeline',
        'operations/unknown-location',
      ]),
    );
    expect(payloads.some((p) => p.deadline?.late === true)).toBe(true);
    expect(payloads.some((p) => p.capacity?.locations.some((l) => l.repeat === true))).toBe(true);
  });

  it('are bodies of the contract', () => {
    for (const p of payloads) {
      const parsed = webhookBodySchema.safeParse(JSON.parse(renderWebhook(p, SENT_AT)));
      expect(parsed.error, `${p.kind}/${p.state}`).toBeUndefined();
    }
  });

  it('hold every field of the stored alert but its zone, in order, and then sent_at', () => {
    for (const p of payloads) {
      const { zone: _zone, ...sent } = p;
      // The notice says whether its end is a placeholder, right after the end itself.
      const notice =
        sent.notice &&
        Object.fromEntries(
          Object.entries(sent.notice).flatMap(
            ([k, v]): Array<[string, unknown]> =>
              k === 'end_at'
                ? [
                    [k, v],
                    ['open_ended', false],
                  ]
                : [[k, v]],
          ),
        );
      expect(renderWebhook(p, SENT_AT), `${p.kind}/${p.state}`).toBe(
        JSON.stringify({ ...sent, ...(notice ? { notice } : {}), sent_at: SENT_AT }),
      );
    }
  });

  it('carry a placeholder end as null, flagged open-ended', () => {
    const p = payloads.find((x) => x.kind === 'notice' && x.notice)!;
    const open = { ...p, notice: { ...p.notice!, end_at: '9000-12-31T00:00:00Z' } };
    const body = JSON.parse(renderWebhook(open, SENT_AT));
    expect(body.notice.end_at).toBeNull();
    expect(body.notice.open_ended).toBe(true);
    const real = { ...p, notice: { ...p.notice!, end_at: '2026-12-02T15:00:00Z' } };
    expect(JSON.parse(renderWebhook(real, SENT_AT)).notice).toMatchObject({
      end_at: '2026-12-02T15:00:00Z',
      open_ended: false,
    });
  });
});

describe('a body built through the contract', () => {
  const temp = useTempStore('pipewatch-webhook-body-', { shared: true });
  let payloads: AlertPayload[] = [];
  beforeAll(async () => {
    payloads = await decide(temp.store);
  });

  /** `value` with a field no contract defines added to it and to every object inside. */
  function withExtras(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(withExtras);
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = { internal_note: 'not for receivers' };
    for (const [key, field] of Object.entries(value)) out[key] = withExtras(field);
    return out;
  }

  it('leaves behind what the alert holds beyond the contract, at every depth', () => {
    for (const p of payloads) {
      const body = renderWebhook(withExtras(p) as AlertPayload, SENT_AT);
      expect(body, `${p.kind}/${p.state}`).toBe(renderWebhook(p, SENT_AT));
    }
  });

  it('is refused, naming the field, when the alert holds it in another shape', () => {
    const p = payloads.find((x) => x.state === 'reminder')!;
    const deadline = { ...p.deadline!, field: 'posted_at' };
    expect(() => renderWebhook({ ...p, deadline }, SENT_AT)).toThrow(
      /^webhook: cannot render a deadline\/reminder alert: its deadline\.field does not fit the contract \(/,
    );
    const capacity = p.state === 'reminder' ? payloads.find((x) => x.state === 'firing')! : p;
    const { oac: _oac, ...location } = capacity.capacity!.locations[0]!;
    expect(() =>
      renderWebhook(
        { ...capacity, capacity: { ...capacity.capacity!, locations: [location as never] } },
        SENT_AT,
      ),
    ).toThrow(
      'webhook: cannot render a capacity/firing alert: its capacity.locations.0.oac is missing',
    );
  });
});

describe('the body of a silence’s summary', () => {
  const samples = ['silence-ended', 'silence-ended-many'] as const;

  it.each(samples)('%s holds every field of the summary but its zone, in order', (kind) => {
    const { payload } = sampleAlerts(kind, 'webhook:https://hooks.example.com/pipewatch')[0]!;
    const { zone: _zone, ...sent } = payload;
    const body = renderWebhook(payload, SENT_AT);
    expect(body).toBe(JSON.stringify({ ...sent, sent_at: SENT_AT }));
    expect(webhookBodySchema.safeParse(JSON.parse(body)).error).toBeUndefined();
  });

  it('leaves out what a held alert carries beyond the contract', () => {
    const { payload } = sampleAlerts('silence-ended', 'webhook:x')[0]!;
    const [first, ...rest] = payload.silence!.alerts;
    const extra = { ...first!, zone: 'America/Chicago', notice: { id: 1 } };
    const silence = { ...payload.silence!, alerts: [extra, ...rest] };
    const body = JSON.parse(renderWebhook({ ...payload, silence }, SENT_AT));
    expect(body.silence.alerts[0]).toEqual(first);
    expect(webhookBodySchema.safeParse(body).error).toBeUndefined();
  });

  it('lists at most the 20 newest held alerts, whatever the summary carries', () => {
    const { payload } = sampleAlerts('silence-ended-many', 'webhook:x')[0]!;
    const [first] = payload.silence!.alerts;
    const silence = { ...payload.silence!, alerts: Array.from({ length: 25 }, () => first!) };
    const body = JSON.parse(renderWebhook({ ...payload, silence }, SENT_AT));
    expect(body.silence.alerts).toHaveLength(20);
    expect(body.silence.held).toBe(25);
    expect(webhookBodySchema.safeParse(body).error).toBeUndefined();
  });

  it('is refused with one line when the alert has no summary or is of another kind', () => {
    const { payload } = sampleAlerts('silence-ended', 'webhook:x')[0]!;
    const { silence: _silence, ...bare } = payload;
    expect(() => renderWebhook(bare, SENT_AT)).toThrow(
      'webhook: cannot render a silence/ended alert: it has no silence',
    );
    expect(() => renderWebhook({ ...payload, kind: 'notice' }, SENT_AT)).toThrow(
      'webhook: cannot render a notice/ended alert: state ended belongs to silence alerts',
    );
  });

  it('says "an" before a kind that starts with a vowel', () => {
    const { payload } = sampleAlerts('operations-schema-drift', 'webhook:x')[0]!;
    const { operations: _operations, ...bare } = payload;
    expect(() => renderWebhook(bare, SENT_AT)).toThrow(
      /^webhook: cannot render an operations\/[\w-]+ alert: /,
    );
  });
});

describe('an alert that cannot make a body', () => {
  it('goes dead at once with one line, and nothing is posted', async () => {
    const receiver = await startWebhookReceiver();
    const channel = createWebhookChannel({}, { clock: new ManualClock(), logger: silentLogger });
    const { notice: _notice, ...payload } = noticeAlert().payload;
    const error = await channel
      .send({ kind: 'webhook', url: receiver.url }, [{ key: 'k', payload }], {
        now: SENT_AT,
        threads: memoryThreads(),
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({
      permanent: true,
      reason: 'webhook: cannot render a notice/new alert: it has no notice',
    });
    expect(receiver.requests).toBe(0);
    await channel.close?.();
    await receiver.close();
  });
});
