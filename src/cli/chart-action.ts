/**
 * What `pipewatch chart` does: finds the pipeline and the location in the store (with a
 * did-you-mean for either), reads its cycles, draws the chart and writes it.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { locationPoints, MAX_ROWS } from '../channels/charts.js';
import { ChartError, drawOacChart } from '../chart/oac-chart.js';
import { addDays } from '../domain/gas-day.js';
import { didYouMean } from '../lib/suggest.js';
import type { ChartOptions } from './chart-levels.js';
import { chartLevels } from './chart-levels.js';
import type { CliContext } from './context.js';
import { BadInputError } from './errors.js';
import { openExistingStore } from './open-store.js';

/** Writes the chart of `location` on `pipeline`, or says which name is wrong. */
export async function writeChart(
  ctx: CliContext,
  pipelineArg: string,
  locationArg: string,
  opts: ChartOptions,
): Promise<void> {
  const toStdout = opts.output === undefined;
  if (toStdout && (ctx.io.stdout as { isTTY?: boolean }).isTTY) {
    throw new BadInputError([
      'not writing PNG bytes to a terminal: give -o file.png, or send stdout to a pipe or a file',
    ]);
  }
  const opened = await openExistingStore(ctx);
  if (!opened) return;
  const { store } = opened;
  try {
    const slugs = (await store.pipelines.all()).map((p) => p.slug);
    const slug = pipelineArg.trim().toLowerCase();
    const latest = await store.capacity.latest(slug);
    if (!latest) {
      const known = slugs.includes(slug) ? ': no capacity of it is stored yet' : ' is not tracked';
      throw new BadInputError([
        `pipeline ${pipelineArg}${known}${slugs.includes(slug) ? '' : didYouMean(slug, slugs)}`,
      ]);
    }
    const seen = await store.capacity.locationsSeenSince(slug, '0000');
    const wanted = locationArg.trim().toLowerCase();
    const found = seen.find(
      (l) => l.identifier.toLowerCase() === wanted || l.location.toLowerCase() === wanted,
    );
    if (!found) {
      const names = [...new Set(seen.flatMap((l) => [l.identifier, l.location]))].filter(Boolean);
      throw new BadInputError([
        `no location ${locationArg} in ${slug}'s stored capacity${didYouMean(locationArg, names)}`,
      ]);
    }
    const key = found.identifier || found.location;
    const { threshold, clear, unit, said } = chartLevels(ctx, slug, found, opts);
    if (said) ctx.err(said);
    const to = latest.gas_day;
    const rows = await store.capacity.oacHistory(
      slug,
      key,
      addDays(to, 1 - opts.days),
      to,
      MAX_ROWS,
    );
    const label =
      found.identifier && found.identifier !== found.location
        ? `${found.location} (${found.identifier})`
        : found.location || found.identifier;
    let png: Uint8Array;
    try {
      png = await drawOacChart({
        points: locationPoints(rows, unit),
        threshold,
        clear,
        unit,
        title: `OAC at ${label}, ${latest.pipeline_name}, last ${opts.days} gas days to ${to}`,
      });
    } catch (err) {
      if (err instanceof ChartError)
        throw new BadInputError([`cannot draw the chart: ${err.message}`]);
      throw err;
    }
    if (toStdout) {
      ctx.io.stdout.write(png);
      return;
    }
    const file = resolve(ctx.io.cwd, opts.output ?? '');
    writeFileSync(file, png);
    ctx.err(`pipewatch chart: wrote ${file} (${rows.length} cycles, ${png.length} bytes)`);
  } finally {
    await opened.close();
  }
}
