/**
 * The OAC chart: PNG bytes of a fixed size whatever the history, the dips kept when a
 * long history is thinned, the line broken where days are missing, and a clear refusal
 * when there is nothing to draw. One chart is drawn here; the rest read the spec.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ChartError,
  type ChartPoint,
  chartSpec,
  drawOacChart,
  HEIGHT,
  MAX_POINTS,
  thin,
  WIDTH,
} from '../../src/chart/oac-chart.js';

const CYCLES = ['timely', 'evening', 'id1', 'id2', 'id3'];

function history(days: number, value: (i: number) => number, from = '2026-11-14'): ChartPoint[] {
  const out: ChartPoint[] = [];
  for (let d = 0; d < days; d++) {
    const gasDay = new Date(Date.parse(from) + d * 86_400_000).toISOString().slice(0, 10);
    for (const cycle of CYCLES) out.push({ gasDay, cycle, value: value(out.length) });
  }
  return out;
}

/** Width and height from a PNG's IHDR chunk. */
function pngSize(png: Uint8Array): { width: number; height: number } {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

describe('drawOacChart', () => {
  it('draws years of history as a PNG of the same fixed size as a week', async () => {
    const png = await drawOacChart({
      points: history(800, (i) => 50_000 + 30_000 * Math.sin(i / 40)),
      threshold: 50_000,
      clear: 60_000,
      unit: 'absolute',
      title: 'OAC at STATION 85\u001b[31m (1001234)\nTransco',
    });
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(pngSize(png)).toEqual({ width: WIDTH * 2, height: HEIGHT * 2 });
    expect(png.length).toBeLessThan(300_000);
  });

  it('refuses with NO_POINTS when no cycle has a value', async () => {
    const refused = drawOacChart({
      points: [{ gasDay: '2026-11-20', cycle: 'timely', value: Number.NaN }],
      threshold: 1,
      clear: 2,
      unit: 'absolute',
      title: 'x',
    });
    await expect(refused).rejects.toBeInstanceOf(ChartError);
    await expect(refused).rejects.toMatchObject({ code: 'NO_POINTS' });
  });

  it('refuses with NO_FONT, saying what to install, on a machine without a font', async () => {
    // resvg pointed at an empty font directory alone: what a machine without fonts has.
    const empty = mkdtempSync(join(tmpdir(), 'pipewatch-no-fonts-'));
    try {
      const refused = drawOacChart(
        { points: history(1, () => 1), threshold: 1, clear: 2, unit: 'absolute', title: 'x' },
        { system: false, dirs: [empty] },
      );
      await expect(refused).rejects.toMatchObject({
        name: 'ChartError',
        code: 'NO_FONT',
        message:
          'no font to draw the chart labels with (install fonts-dejavu-core or any TrueType font)',
      });
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('chartSpec', () => {
  const spec = (points: ChartPoint[]) =>
    chartSpec({ points, threshold: 50_000, clear: 60_000, unit: 'absolute', title: 't' });
  const rows = (s: Record<string, unknown>) =>
    (s.layer as Array<{ data: { values: Array<{ segment?: number; value: number }> } }>)[0].data
      .values;

  it('breaks the line where days of history are missing', () => {
    const points = [...history(2, () => 70_000), ...history(2, () => 40_000, '2026-11-18')];
    const segments = new Set(rows(spec(points)).map((r) => r.segment));
    expect(segments.size).toBe(2);
  });

  it('keeps one stretch of line for a history without gaps', () => {
    expect(new Set(rows(spec(history(7, (i) => i))).map((r) => r.segment)).size).toBe(1);
  });

  it('shows the threshold and the clear level as lines with their figures', () => {
    const text = JSON.stringify(spec(history(1, () => 1)));
    expect(text).toContain('threshold 50,000 Dth');
    expect(text).toContain('clear 60,000 Dth');
  });

  it('removes control characters from the title and clips it', () => {
    const s = chartSpec({
      points: history(1, () => 1),
      threshold: null,
      clear: null,
      unit: 'absolute',
      title: `A\u001b[31mB\r\n${'x'.repeat(200)}`,
    });
    const title = (s.title as { text: string }).text;
    expect([...title].some((c) => c.charCodeAt(0) < 0x20)).toBe(false);
    expect(title.length).toBeLessThanOrEqual(80);
  });
});

describe('thin', () => {
  it('keeps at most MAX_POINTS points and every run’s lowest, so a dip survives', () => {
    const values = Array.from({ length: 5_000 }, (_, i) => ({ value: i === 2_345 ? -7 : 100 }));
    const kept = thin(values);
    expect(kept.length).toBeLessThanOrEqual(MAX_POINTS);
    expect(kept.some((p) => p.value === -7)).toBe(true);
  });
});
