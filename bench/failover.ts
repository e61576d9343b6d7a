/**
 * `failover`: how soon a standby leads when the leader dies or hangs, and what a target
 * gets meanwhile. Three replicas of the built pipewatch (`dist/main.js` by its first
 * line, as users start it) on one PostgreSQL database (a server of the benchmark's own,
 * started as the tests start theirs), a 3 s lease, one simulator they all poll, one
 * webhook receiver. A notice is published every `TRICKLE_MS` throughout; a leader polls
 * when its term begins, so each term has the notices since the last to decide and send.
 * The receiver answers a term's first two requests and holds the third: the leader has a
 * send in flight when it is signalled, and the target is a slow one.
 *
 * - Ten times, the leader is killed (SIGKILL) with its send in flight, and a new replica
 *   started in its place; the trickle stops before the tenth, whose successor polls and
 *   sends the rest. Then: `alerts` published, `lost` (never delivered) and `duplicated`
 *   (requests beyond the first of each `X-Pipewatch-Delivery`; the promise is at most one
 *   a takeover: the one in flight).
 * - Three times, the leader is paused (SIGSTOP) with its send in flight, and resumed once
 *   another leads; it stands down and stays a standby.
 *
 * A takeover is timed from the signal to the new leader's `role: leader` line, by the
 * line's own timestamp: wall time, and by design mostly the lease's length (a standby
 * takes an expired lease at its next try, a third of a lease apart), which is what a
 * user waits; a loaded machine shows in the spread. Figures in milliseconds.
 */
import { tmpdir } from 'node:os';
import { FAILOVER_LEASE_MS, startFailoverStage } from '../test/fakes/failover.js';
import { ReplicaSet, type RoleLine } from '../test/fakes/replicas.js';
import {
  createDatabaseOn,
  dropDatabaseOn,
  startPostgresServer,
} from '../test/support/postgres-server.js';
import { buildDist } from './built.js';
import { median } from './median.js';

const KILLS = 10;
const HANGS = 3;
const REPLICAS = 3;
/** A notice is published this often. */
const TRICKLE_MS = 250;
/** A leader's requests the receiver answers in each term before it holds the next. */
const ANSWERED = 2;
/** Notices published before each pause, for the next leader's first poll. */
const BURST = 4;
/** Bound of any one wait: a hang, not a figure. */
const WITHIN_MS = 120_000;

/** The `failover` figures. */
export async function failoverBench(): Promise<Record<string, number>> {
  buildDist();
  // The benchmark's own temporary directory, as the tests' server keeps its data in theirs.
  const server = await startPostgresServer(tmpdir());
  const db = await createDatabaseOn(server.url);
  const stage = await startFailoverStage(db.url);
  const { receiver } = stage;
  const set = new ReplicaSet(stage.env, { program: 'executable' });
  const published: number[] = [];
  let trickle: NodeJS.Timeout | undefined;
  /** Waits until the leader has its held send in flight. */
  const inFlight = () =>
    receiver.until('the leader with a send in flight', () => receiver.held > 0, WITHIN_MS);
  /** The next leader among the running replicas but `except`. */
  const nextLeader = (after: RoleLine, except?: RoleLine['replica']) =>
    set.nextLeader(
      after.term,
      set.running().filter((r) => r !== except),
      WITHIN_MS,
    );
  /** A new replica in place of one gone, listening before anything else happens. */
  const replace = async () => {
    const [replacement] = set.start(1);
    await replacement!.http;
  };
  try {
    set.start(REPLICAS);
    let leader = await set.nextLeader(0, set.replicas, WITHIN_MS);
    await Promise.all(set.replicas.map((r) => r.http));
    await leader.replica.until(
      'the baseline',
      () => leader.replica.logs().some((l) => l.msg.startsWith('baseline: ')),
      WITHIN_MS,
    );

    // From now on: what the baseline would have stored without alerting is before it.
    trickle = setInterval(() => published.push(...stage.burst(1)), TRICKLE_MS);
    receiver.hold(ANSWERED);
    const killed: number[] = [];
    for (let i = 0; i < KILLS; i++) {
      // The first leader's poll was the baseline: it has nothing to send.
      if (i > 0) await inFlight();
      if (i === KILLS - 1) clearInterval(trickle);
      const at = Date.now();
      leader.replica.kill();
      receiver.release();
      receiver.hold(ANSWERED);
      const next = await nextLeader(leader);
      killed.push(next.at - at);
      leader = next;
      await replace();
    }
    receiver.release();
    await receiver.until(
      'every notice delivered',
      () => stage.count(published).lost.length === 0,
      WITHIN_MS,
    );
    const afterKills = stage.count(published);

    // A kill not timed, so that there is a leader with a send in flight to pause.
    receiver.hold(ANSWERED);
    stage.burst(BURST);
    leader.replica.kill();
    leader = await nextLeader(leader);
    await replace();
    const hung: number[] = [];
    for (let i = 0; i < HANGS; i++) {
      await inFlight();
      const paused = leader.replica;
      const at = Date.now();
      paused.signal('SIGSTOP');
      // Its answer waits for it; the next leader's first poll finds a burst to send.
      receiver.release();
      receiver.hold(ANSWERED);
      stage.burst(BURST);
      const next = await nextLeader(leader, paused);
      hung.push(next.at - at);
      const lines = paused.logs().length;
      paused.signal('SIGCONT');
      await paused.until(
        'the resumed leader standing down',
        () =>
          paused
            .logs()
            .slice(lines)
            .some((l) => l.msg.startsWith('role: standby')),
        WITHIN_MS,
      );
      leader = next;
    }
    return {
      lease_ms: FAILOVER_LEASE_MS,
      kills: KILLS,
      takeover_after_sigkill_median_ms: median(killed),
      takeover_after_sigkill_max_ms: Math.max(...killed),
      takeover_after_sigkill_min_ms: Math.min(...killed),
      hangs: HANGS,
      takeover_after_sigstop_median_ms: median(hung),
      takeover_after_sigstop_spread_ms: Math.max(...hung) - Math.min(...hung),
      alerts: published.length,
      lost: afterKills.lost.length,
      duplicated: afterKills.duplicates,
    };
  } finally {
    clearInterval(trickle);
    set.killAll();
    await stage.close();
    await dropDatabaseOn(server.url, db.name).catch(() => {});
    await server.stop();
  }
}
