/**
 * The real chat core on a database in a temp dir, as the daemon runs it for Discord
 * channels that go away: subscriptions made from a Discord channel, paused when a send
 * says the channel is gone, and the operations alert that says so queued to the console.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { AlertEngine } from '../../../src/alerts/engine.js';
import { ChatCore } from '../../../src/chat/service.js';
import { createLogger, type Logger } from '../../../src/lib/logger.js';
import { Store } from '../../../src/store/index.js';
import { storePipelines } from '../../fakes/pipelines.js';
import { ManualClock } from '../../support/clock.js';

/** When the core's clock stands. */
export const NOW = '2026-11-20T15:00:00Z';

/** A Discord user who may manage the channels they subscribe. */
const MANAGER = '1200000000000000002';

/** A logger whose lines are kept. */
export function capturedLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ level: 'trace', pretty: false, destination }), lines };
}

/** The chat core, what it stands on, and what a test reads its effects in. */
export function startChatCore(logger: Logger) {
  const dir = mkdtempSync(join(tmpdir(), 'pipewatch-discord-gone-'));
  const store = Store.open(dir);
  storePipelines(store, ['transco', 'tgp'], NOW);
  const clock = new ManualClock(NOW);
  const engine = new AlertEngine({ store, clock, logger, maxAlertAgeMs: 86_400_000 }, []);
  const core = new ChatCore({
    store,
    engine,
    clock,
    logger,
    policy: { admins: new Set() },
    opsTarget: { kind: 'console' },
  });
  return {
    core,
    store,
    /** Subscribes a Discord channel to `pipeline`, as its manager typed it there. */
    subscribe(channel: string, pipeline = 'transco') {
      const caller = { platform: 'discord' as const, channel, user: MANAGER };
      const answer = core.command({ ...caller, canManageChannel: true }, `subscribe ${pipeline}`);
      if (answer.reply.private) throw new Error(`not subscribed: ${answer.reply.text}`);
    },
    /** Each subscription's channel and why it is paused (null while it is not). */
    pauses: () => store.subscriptions.all().map((r) => [r.channel, r.paused_reason]),
    /** The operations alerts queued: which channel went away, and how many paused. */
    opsAlerts: () =>
      store.outbox.due('2030-01-01T00:00:00Z').map((r) => {
        const o = r.payload.operations;
        return o?.event === 'channel-gone' ? [o.channel, o.paused] : [r.payload.kind];
      }),
    close() {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
