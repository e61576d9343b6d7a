/**
 * `pipewatch chart`: a PNG of a stored location's OAC written to a file, a did-you-mean
 * for a pipeline or location that is not stored, and no PNG bytes on a terminal.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { location } from '../fakes/alerts.js';
import { transcoCycle } from '../fakes/capacity-event.js';
import { useTempStore } from '../support/temp-store.js';
import { cli } from './run-cli.js';

const temp = useTempStore('chart-cli');
const NOW = '2026-11-21T14:05:00Z';

function stored(): Record<string, string> {
  for (const gasDay of ['2026-11-20', '2026-11-21']) {
    const event = transcoCycle({ cycle: 'timely', gasDay, seenAt: NOW, locations: [location()] });
    temp.store.capacity.upsertCycle(event.cycle, event.locations, NOW);
  }
  temp.store.close();
  return { PIPEWATCH_DATA_DIR: temp.dir };
}

describe('pipewatch chart', () => {
  it('writes the chart of a stored location to the file -o names', async () => {
    const env = stored();
    const out = join(temp.dir, 'oac.png');
    const run = await cli(['chart', 'transco', '1001234', '--threshold', '50000', '-o', out], env);
    expect(run.stderr).toContain(`wrote ${out} (2 cycles`);
    expect(run.code).toBe(0);
    expect(readFileSync(out).subarray(1, 4).toString()).toBe('PNG');
  });

  it('names a location that is not stored, with the one it was likely meant to be', async () => {
    const run = await cli(['chart', 'transco', 'STATION 58', '-o', '/dev/null'], stored());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("no location STATION 58 in transco's stored capacity");
    expect(run.stderr).toContain('STATION 85');
  });

  it('refuses an unknown pipeline before drawing anything', async () => {
    const run = await cli(['chart', 'transcoo', '1001234', '-o', '/dev/null'], stored());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('pipeline transcoo is not tracked');
  });
});
