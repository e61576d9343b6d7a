/**
 * Replicas of `pipewatch run` sharing one PostgreSQL database, each a process of its own
 * (`daemon-process.ts`), and what they say of their roles: the `role: leader (term N)…`
 * and `role: standby (term N ended: …)` lines each logs at a change. A takeover is timed
 * from the moment the test signalled the old leader to the new leader's line, by that
 * line's own timestamp (the replica's clock, the test's machine), not by when the test
 * got round to reading it.
 *
 * Waits end on what the replicas log, never on time; each is bounded for a hang.
 */
import {
  type DaemonProcess,
  type LogLine,
  type Program,
  STEP_HANG_MS,
  startDaemon,
} from './daemon-process.js';

/** A change of role, as a replica logged it. */
export interface RoleLine {
  replica: DaemonProcess;
  role: 'leader' | 'standby';
  term: number;
  /** Why a leader stood down: `late`, `lost` or `stopped`. */
  reason?: string;
  /** When it was logged (epoch milliseconds, the replica's clock). */
  at: number;
}

/** The role changes `replica` logged, in order. */
export function roleLines(replica: DaemonProcess): RoleLine[] {
  return replica
    .logs()
    .filter((l: LogLine) => l.msg.startsWith('role: '))
    .map((l) => ({
      replica,
      role: l.role as RoleLine['role'],
      term: l.term as number,
      ...(typeof l.reason === 'string' ? { reason: l.reason } : {}),
      at: Date.parse(String(l.time)),
    }));
}

/** Replicas of one daemon configuration; `killAll` after each test, whatever happened. */
export class ReplicaSet {
  readonly replicas: DaemonProcess[] = [];

  constructor(
    private readonly env: Record<string, string>,
    private readonly options: { program?: Program } = {},
  ) {}

  /** Starts `count` replicas at once. */
  start(count: number): DaemonProcess[] {
    const started = Array.from({ length: count }, () => startDaemon(this.env, this.options));
    this.replicas.push(...started);
    return started;
  }

  /** The replicas still running. */
  running(): DaemonProcess[] {
    return this.replicas.filter((r) => r.exit() === undefined);
  }

  /**
   * The first line of a replica of `among` (default: every one running) taking the lease
   * at a term above `afterTerm`; fails after `withinMs`, or once none of them runs.
   */
  async nextLeader(
    afterTerm: number,
    among: DaemonProcess[] = this.running(),
    withinMs = STEP_HANG_MS,
  ): Promise<RoleLine> {
    const taken = () =>
      among
        .flatMap(roleLines)
        .filter((l) => l.role === 'leader' && l.term > afterTerm)
        .sort((a, b) => a.term - b.term)[0];
    await untilAny(
      among,
      `a leader after term ${afterTerm}`,
      () => taken() !== undefined,
      withinMs,
    );
    return taken()!;
  }

  /**
   * Resolves once each notice of `ids` has been logged sent by a replica, the killed ones
   * included: a replica logs it once the outbox has recorded it sent.
   */
  async loggedSent(ids: readonly number[], withinMs = STEP_HANG_MS): Promise<void> {
    const done = () => {
      const sent = new Set(
        this.replicas.flatMap((r) =>
          r
            .logs()
            .filter((l) => l.msg.startsWith('sent '))
            .map((l) => l.notice_id),
        ),
      );
      return ids.every((id) => sent.has(id));
    };
    await untilAny(this.running(), `notices ${ids.join(', ')} logged sent`, done, withinMs);
  }

  /** Ends every replica at once (SIGKILL), stopped or not. */
  killAll(): void {
    for (const replica of this.replicas.splice(0)) replica.kill();
  }
}

/**
 * Resolves once `done()` holds, checked after each line any of `replicas` writes; fails
 * after `withinMs`, or once every one of them has exited, with what each said.
 */
async function untilAny(
  replicas: DaemonProcess[],
  what: string,
  done: () => boolean,
  withinMs: number,
): Promise<void> {
  if (done()) return;
  const finished = new AbortController();
  try {
    await Promise.any(replicas.map((r) => r.until(what, done, withinMs, finished.signal)));
  } catch (error) {
    const errors = error instanceof AggregateError ? error.errors : [error];
    throw new Error(errors.map((e) => (e instanceof Error ? e.message : String(e))).join('\n\n'));
  } finally {
    finished.abort(new Error(`${what}: another replica got there`));
  }
}
