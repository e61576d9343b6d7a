/**
 * The upstream of `sync_at_scale`, in a process of its own as the real API is, so that
 * what it spends serving pages is not counted as pipewatch's: the simulator, with its
 * control API, 14 days of history up to now, and nothing more published unless asked.
 * Says `{ url }` once it listens; ends when the benchmark goes.
 */
import { startSimulator } from '../src/simulator/index.js';

const sim = await startSimulator({
  seed: 3,
  startAt: new Date(Math.floor(Date.now() / 1000) * 1000),
  historyDays: 14,
  control: true,
});
process.on('disconnect', () => {
  sim.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error('the upstream could not close:', error);
      process.exit(1);
    },
  );
});
process.send!({ url: sim.url });
