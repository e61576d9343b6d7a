/**
 * `pipewatch send-test <target>`: sends a sample alert to one target through the same
 * channel `run` uses, and prints what the platform answered (or why it refused). Writes
 * nothing to the database; needs only the channel's credentials.
 */
import { Command, Option } from 'commander';
import type { AlertPayload } from '../alerts/payload.js';
import { DeliveryError } from '../channels/types.js';
import { secretValues } from '../config/index.js';
import { Channels } from '../delivery/channels.js';
import { redact } from '../delivery/redact.js';
import { MemoryThreads } from '../delivery/threads.js';
import { parseTarget } from '../rules/targets.js';
import { targetKey } from '../rules/types.js';
import { toUtcIso } from '../upstream/schemas.js';
import type { CliContext } from './context.js';

const KINDS = ['notice', 'deadline', 'capacity'] as const;
type SampleKind = (typeof KINDS)[number];

/** The location of the sample capacity alert: OAC 30,000 under a threshold of 50,000. */
export function sampleLocation(): NonNullable<AlertPayload['capacity']>['locations'][number] {
  return {
    id: 0,
    location: 'STATION 85 (TEST)',
    identifier: '1001234',
    flow: 'D',
    qti: 'DEL',
    zone: 'Zone 4',
    dc: 1_000_000,
    opc: 800_000,
    tsq: 770_000,
    oac: 30_000,
    it: 'Y',
    all: 'N',
    reason: '',
    service_created_at: null,
    service_updated_at: null,
    threshold: 50_000,
    clear_above: 60_000,
    unit: 'absolute',
  };
}

/** A sample alert of each kind, on Transco, dated around `now`. */
export function sampleAlert(kind: SampleKind, now: Date): AlertPayload {
  const at = (hours: number) => toUtcIso(new Date(now.getTime() + hours * 3_600_000));
  const base = {
    version: 1 as const,
    rule: 'send-test',
    pipeline: { slug: 'transco', name: 'Transco' },
    zone: 'America/New_York',
  };
  const notice = {
    id: 0,
    pipeline_id: 0,
    pipeline_name: 'Transco',
    pipeline_slug: 'transco',
    pipeline_url: '',
    subject: 'pipewatch test alert: Capacity Constraint at Station 165',
    identifier: 'TEST',
    url: 'https://example.com/pipewatch-test-notice',
    category: 'Critical',
    type: 'Capacity Constraint',
    status: 'Initiate',
    notice:
      'This is a test alert sent by `pipewatch send-test`. If you can read it, alerts reach this destination.',
    html: '',
    mobile: '',
    posted_at: toUtcIso(now),
    effective_at: at(2),
    end_at: at(26),
    response_at: at(4),
    service_created_at: null,
    service_updated_at: null,
  };
  if (kind === 'notice') return { ...base, kind, state: 'new', notice };
  if (kind === 'deadline')
    return {
      ...base,
      kind,
      state: 'reminder',
      notice,
      deadline: { field: 'response_at', at: notice.response_at, before: '4h' },
    };
  return {
    ...base,
    kind,
    state: 'firing',
    capacity: {
      cycle: 'timely',
      gas_day: notice.posted_at.slice(0, 10),
      locations: [sampleLocation()],
    },
  };
}

/** Registers `send-test`. */
export function sendTestCommand(ctx: CliContext): Command {
  return new Command('send-test')
    .description('send a sample alert to one target and print what the platform answered')
    .argument(
      '<target>',
      'slack:#ops, slack_dm:U0123ABCD, discord:<id>, email:a@b.c, webhook:https://…, console',
    )
    .addOption(new Option('--kind <kind>', 'which sample alert').choices(KINDS).default('notice'))
    .action(async (text: string, opts: { kind: SampleKind }) => {
      let target: ReturnType<typeof parseTarget>;
      try {
        target = parseTarget(text);
      } catch (error) {
        ctx.err(`pipewatch: ${(error as Error).message}`);
        ctx.exitCode = 2;
        return;
      }
      const { config } = ctx;
      const channels = Channels.create(
        config,
        { clock: ctx.clock, logger: ctx.logger },
        { print: (t) => ctx.out(t) },
      );
      const key = targetKey(target);
      try {
        const now = ctx.clock.now();
        const delivered = await channels.for(target.kind).send(
          target as never,
          [
            {
              key: `send-test|${now.toISOString()}|${key}`,
              payload: sampleAlert(opts.kind, now),
            },
          ],
          {
            now: toUtcIso(now),
            threads: new MemoryThreads(),
            signal: ctx.signal,
          },
        );
        ctx.out(`${key}: ${redact(delivered.detail, secretValues(config))}`);
      } catch (error) {
        const reason =
          error instanceof DeliveryError
            ? `${error.reason}${error.permanent ? '' : ' (temporary: try again)'}`
            : String((error as Error)?.message ?? error);
        ctx.err(`${key}: failed: ${redact(reason, secretValues(config))}`);
        ctx.exitCode = 1;
      } finally {
        await channels.close();
      }
    });
}
