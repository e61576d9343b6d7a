/**
 * `pipewatch demo` (what `npm start` runs): the simulator in live mode on a clock sixty
 * times faster than real time, the daemon against it with short intervals, the example
 * rules that ship with pipewatch (its `rules/` folder, wherever it is installed) and a
 * fresh database under `data/demo/` of the working directory. Right after the baseline,
 * and every minute and a half after that, the simulator plays an act of its storyline
 * (src/simulator/storyline.ts): a Transco constraint, a Texas Eastern order that needs a
 * response within the reminder window, and an OAC drop (or recovery) at Station 85. The
 * alerts they cause come through the real engine and outbox, and for platforms that are
 * not configured are printed as they would look there.
 */
import { readdirSync, rmSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError } from 'commander';
import { secretValues } from '../config/index.js';
import { targetLabel } from '../domain/targets.js';
import type { FeedSettings } from '../ingest/feeds.js';
import { NOTICES_FEED } from '../ingest/notice-sync.js';
import { acceleratedClock } from '../lib/clock.js';
import { errorCode } from '../lib/error-text.js';
import { grouped } from '../lib/quantity.js';
import { inlineText } from '../lib/terminal.js';
import { toUtcIso } from '../lib/time.js';
import { counted } from '../lib/words.js';
import type { Simulator } from '../simulator/index.js';
import { STORY_RESPONSE_MS, type StoryAct, Storyline } from '../simulator/storyline.js';
import { RUN_LOCK_FILE } from '../store/files.js';
import type { CliContext } from './context.js';
import type { Daemon } from './daemon.js';
import { BadInputError } from './errors.js';
import { capacityLine, driftLine, noticeLine } from './event-lines.js';

/** Simulated seconds per real second. */
const SPEED = 60;
/** Simulated notice events per hour besides the storyline: about one every six real seconds. */
const NOTICES_PER_HOUR = 10;
/** Real time between two acts of the storyline. */
export const STORY_EVERY_MS = 90_000;

const MINUTE = 60_000;

/**
 * The example rules, from the package's own folder rather than the working directory: the
 * storyline is written for them, and an installed `pipewatch demo` runs anywhere.
 */
export const EXAMPLE_RULES_DIR = fileURLToPath(new URL('../../rules', import.meta.url));

/**
 * Short intervals, so the demo moves; real deployments keep the defaults. They are in
 * simulated time, which the daemon runs on too: five simulated minutes pass in five real
 * seconds, and a reminder due in 30 minutes comes 30 seconds later.
 */
const DEMO_SETTINGS: FeedSettings = {
  noticesIntervalMs: 5 * MINUTE,
  capacityIntervalMs: 10 * MINUTE,
  pipelinesIntervalMs: 24 * 60 * MINUTE,
  catalogIntervalMs: 60 * MINUTE,
  maxAlertAgeMs: 86_400_000,
  pipelines: [],
  capacityPipelines: [],
  baselinePages: 10,
  baselineAgeMs: 7 * 86_400_000,
};

/** `--at`: an ISO 8601 instant with its zone (`Z` or an offset). */
function parseInstant(text: string): Date {
  const at = new Date(text);
  if (!/(Z|[+-]\d{2}:?\d{2})$/i.test(text.trim()) || Number.isNaN(at.getTime())) {
    throw new InvalidArgumentError(
      'must be an instant with its zone, such as 2026-11-24T19:00:00Z',
    );
  }
  return at;
}

/** Registers `demo`. */
export function demoCommand(ctx: CliContext): Command {
  return new Command('demo')
    .description('run the demo against the built-in simulator')
    .option(
      '--at <instant>',
      "start the simulator's clock at this UTC instant (2026-11-24T19:00:00Z) instead of now, to see a given hour of the gas day",
      parseInstant,
    )
    .action(async (opts: { at?: Date }) => {
      const daemon = await openDemo(ctx, ctx.io.cwd, opts.at);
      await banner(ctx, daemon);
      try {
        await Promise.all([daemon.run(), tellStories(ctx, daemon)]);
      } finally {
        await daemon.close();
      }
    });
}

/**
 * The demo's daemon, wired and not yet running: the simulator (always, whatever
 * `PIPEWATCH_API_URL` says: the storyline is played on it) starting at `at` (default
 * now) on a clock `SPEED` times faster than the context's, the example rules
 * (`EXAMPLE_RULES_DIR`), a fresh database in `cwd/data/demo`, and alerts for platforms
 * that are not set up printed. What `pipewatch demo` runs, and what tests run at any instant.
 */
export async function openDemo(ctx: CliContext, cwd: string, at?: Date): Promise<Daemon> {
  // The simulator's data is anchored at its start time, so each demo starts from a fresh database.
  const dataDir = join(cwd, 'data', 'demo');
  await clearDemoData(dataDir, cwd);
  const [{ openApi }, { Daemon }] = await Promise.all([
    import('./api-target.js'),
    import('./daemon.js'),
  ]);
  const api = await openApi(
    ctx,
    {
      live: true,
      speed: SPEED,
      noticesPerHour: NOTICES_PER_HOUR,
      // Station 85 moves only when the storyline moves it, so its email follows each act.
      swing: false,
      ...(at ? { startAt: at } : {}),
    },
    'simulator',
  );
  const { simulator } = api;
  if (!simulator) throw new Error(NO_SIMULATOR);
  try {
    return await Daemon.create(ctx, {
      settings: DEMO_SETTINGS,
      dataDir,
      rulesDir: EXAMPLE_RULES_DIR,
      httpPort: 0,
      alertsIntervalMs: 2 * MINUTE,
      channels: ctx.config,
      delivery: { ...ctx.config.delivery, digestWindowMs: 2 * MINUTE },
      secretKey: ctx.config.secretKey,
      secrets: secretValues(ctx.config),
      standIn: true,
      print: (text) => ctx.out(text),
      api,
      clock: acceleratedClock(ctx.clock, () => simulator.now(), SPEED),
      hooks: {
        notices: async (events) => {
          for (const e of events) ctx.out(noticeLine(e));
        },
        capacity: async (e) => ctx.out(capacityLine(e)),
        schemaDrift: async (e) => ctx.out(driftLine(e)),
      },
    });
  } catch (error) {
    await api.close();
    throw error;
  }
}

/** What the demo writes in its data folder: the database and SQLite's files beside it. */
const DEMO_FILES = new Set([
  'pipewatch.db',
  'pipewatch.db-wal',
  'pipewatch.db-shm',
  RUN_LOCK_FILE,
  `${RUN_LOCK_FILE}-journal`,
]);

/**
 * Removes the last demo's database. An installed `pipewatch demo` runs in any folder, and
 * a `data/demo` there may be someone's own: one holding anything else is left alone and
 * the demo refuses to start, naming what it found.
 */
export async function clearDemoData(dataDir: string, cwd: string): Promise<void> {
  let names: string[];
  try {
    names = readdirSync(dataDir);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return;
    throw error;
  }
  const others = names.filter((name) => !DEMO_FILES.has(name)).sort();
  if (others.length > 0) {
    const shown = relative(cwd, dataDir);
    const listed = others.slice(0, 5).map(inlineText).join(', ') + (others.length > 5 ? ', …' : '');
    throw new BadInputError([
      `${shown} holds files the demo did not write (${listed}): the demo starts from a fresh database there and would delete them; move them, or run the demo in another folder`,
    ]);
  }
  // A demo still running there keeps its database: this one is refused, as a second run is.
  if (names.includes(RUN_LOCK_FILE)) {
    const { holdRunLock } = await import('../store/run-lock.js');
    holdRunLock(dataDir, toUtcIso(new Date())).release();
  }
  rmSync(dataDir, { recursive: true, force: true });
}

const NO_SIMULATOR = 'the demo watches the built-in simulator, which did not start';

/** The simulator the demo's daemon watches: always there (see `openDemo`). */
function simulatorOf(daemon: Daemon): Simulator {
  const { simulator } = daemon.target;
  if (!simulator) throw new Error(NO_SIMULATOR);
  return simulator;
}

async function banner(ctx: CliContext, daemon: Daemon): Promise<void> {
  // Relative inside the working directory, absolute outside it (an installed package).
  const shown = (path: string) => {
    const inside = relative(ctx.io.cwd, path);
    return inside.startsWith('..') || isAbsolute(inside) ? path : inside || '.';
  };
  const { rulesDir, dataDir } = daemon.setup;
  ctx.out(
    `pipewatch demo: watching the built-in simulator at ${simulatorOf(daemon).url}, its clock ${SPEED} times faster than real time.`,
  );
  ctx.out(`  rules from ${shown(rulesDir)}/:`);
  for (const rule of await daemon.engine.rules()) {
    const to = rule.notify.map((t) => targetLabel(t)).join(', ');
    const configured = rule.notify.every((t) => daemon.channels.configured(t.kind));
    ctx.out(`    ${rule.name} (${rule.kind}) → ${to}${configured ? '' : ' (printed here)'}`);
  }
  ctx.out(
    '  Alerts for a platform whose credentials are not set are printed as the message would look there.',
  );
  ctx.out(
    `  database ${shown(join(dataDir, 'pipewatch.db'))}; status ${daemon.httpUrl}/status, metrics ${daemon.httpUrl}/metrics`,
  );
  ctx.out(
    '  The first sync is a baseline: it stores recent notices without alerting. Ctrl-C to stop.',
  );
  ctx.out();
}

/**
 * After the baseline, plays an act of the simulator's storyline at once and then every
 * `STORY_EVERY_MS`, saying what it posted.
 */
async function tellStories(ctx: CliContext, daemon: Daemon): Promise<void> {
  const simulator = simulatorOf(daemon);
  try {
    while ((await daemon.store.syncState.get(NOTICES_FEED))?.last_success_at == null)
      await ctx.clock.sleep(250, ctx.signal);
    ctx.out(
      `[demo] baseline stored ${counted(await daemon.store.notices.count(), 'notice')} quietly; new ones are judged by the rules from now on.`,
    );
    const story = new Storyline(simulator.control, () => simulator.now());
    for (;;) {
      ctx.out(actLine(story.next()));
      await ctx.clock.sleep(STORY_EVERY_MS, ctx.signal);
    }
  } catch {
    // Stopping: the daemon ends on the same signal.
  }
}

function actLine(act: StoryAct): string {
  const oac = grouped(act.capacity.oac);
  return (
    `[demo] the simulator posts: a Transco constraint (#${act.constraint.id}), a Texas Eastern flow order ` +
    `needing a response in ${STORY_RESPONSE_MS / 60_000} min (#${act.flowOrder.id}), and Station 85 OAC ` +
    `${act.capacity.low ? 'down' : 'back up'} to ${oac}`
  );
}
