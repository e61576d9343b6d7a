/**
 * `pipewatch send-test <target>`: sends a sample alert to one target through the same
 * channel `run` uses, and prints what the platform answered (or why it refused). Writes
 * nothing to the database; needs only the channel's credentials, and without them stops
 * as a configuration error naming what to set (exit 2) rather than trying.
 */
import { Command, Option } from 'commander';
import { SAMPLE_KINDS, type SampleKind, sampleAlert } from '../channels/sample.js';
import { DeliveryError } from '../channels/types.js';
import { ConfigError, secretValues } from '../config/index.js';
import { MemoryThreads } from '../delivery/threads.js';
import { parseTarget, targetKey, targetLabel } from '../domain/targets.js';
import { errorMessage } from '../lib/error-text.js';
import { redactor } from '../lib/redact.js';
import { toUtcIso } from '../lib/time.js';
import type { CliContext } from './context.js';

/** Registers `send-test`. */
export function sendTestCommand(ctx: CliContext): Command {
  return new Command('send-test')
    .description('send a sample alert to one target and print what the platform answered')
    .argument(
      '<target>',
      'slack:#ops, slack_dm:U0123ABCD, discord:<id>, email:a@b.c, webhook:https://…, teams:https://…, pagerduty:<key>, console',
    )
    .addOption(
      new Option('--kind <kind>', 'which sample alert').choices(SAMPLE_KINDS).default('notice'),
    )
    .action(async (text: string, opts: { kind: SampleKind }) => {
      let target: ReturnType<typeof parseTarget>;
      try {
        target = parseTarget(text);
      } catch (error) {
        ctx.err(`pipewatch: ${errorMessage(error)}`);
        ctx.exitCode = 2;
        return;
      }
      const { CHANNEL_SETTINGS, Channels } = await import('../delivery/channels.js');
      const { config } = ctx;
      const channels = await Channels.create(
        config,
        { clock: ctx.clock, logger: ctx.logger },
        { print: (t) => ctx.out(t) },
      );
      const key = targetKey(target);
      // A target whose key holds a secret (a workflow's URL, an integration key) is said
      // by its label; the others as they are.
      const shown = targetLabel(target);
      try {
        if (!channels.configured(target.kind)) {
          throw new ConfigError([
            `${shown}: ${target.kind} is not configured; set ${CHANNEL_SETTINGS[target.kind]}`,
          ]);
        }
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
        ctx.out(`${shown}: ${redactor(secretValues(config))(delivered.detail)}`);
      } catch (error) {
        if (error instanceof ConfigError) throw error;
        const reason =
          error instanceof DeliveryError
            ? `${error.reason}${error.permanent ? '' : ' (temporary: try again)'}`
            : errorMessage(error);
        ctx.err(`${shown}: failed: ${redactor(secretValues(config))(reason)}`);
        ctx.exitCode = 1;
      } finally {
        await channels.close();
      }
    });
}
