/**
 * The OAC chart, pure: a location's OAC over its cycles, with the rule's threshold and
 * clear lines, as PNG bytes. Vega-Lite describes it, Vega draws it as SVG, resvg turns
 * the SVG into pixels; nothing here reads the store or the clock, so the same points
 * always make the same picture. The cost is bounded whatever the history: at most
 * `MAX_POINTS` points are drawn (the lowest of each run when there are more, since a dip
 * is what an OAC alert is about), and the picture is always `WIDTH` × `HEIGHT`.
 *
 * Labels need a font. The SVG asks for DejaVu Sans, then the usual sans-serif faces; resvg
 * takes the first system font it finds when none of them is there, so another face is
 * used rather than none. A machine with no font at all would get lines without labels,
 * which could be misread: `drawOacChart` refuses with `NO_FONT` instead, and the alert
 * goes without its picture.
 */
import { NOMINATION_CYCLES } from '../domain/gas-day.js';

/** One cycle's value at the location: OAC in Dth, or its share of OPC in percent. */
export interface ChartPoint {
  /** `2026-11-20`. */
  gasDay: string;
  /** `timely`, `evening`, `id1`, `id2`, `id3`, or another name the pipeline uses. */
  cycle: string;
  value: number;
}

/** What one chart shows. */
export interface OacChartInput {
  /** Oldest first. */
  points: readonly ChartPoint[];
  /** The rule's threshold and clear level, in the points' unit; null: no rule to show. */
  threshold: number | null;
  clear: number | null;
  unit: 'absolute' | 'percent';
  /** `OAC at STATION 85 (1001234), Transco`: one line, clipped here. */
  title: string;
}

/** Why a chart was not drawn, for whoever logs it. */
export class ChartError extends Error {
  readonly code: 'NO_POINTS' | 'NO_FONT' | 'DRAW_FAILED';
  constructor(message: string, code: ChartError['code'], options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ChartError';
    this.code = code;
  }
}

/** Most points drawn: a year of five cycles a day is thinned to this. */
export const MAX_POINTS = 400;
/** The picture's size in CSS pixels; the PNG has twice as many, for sharp screens. */
export const WIDTH = 600;
export const HEIGHT = 240;
const SCALE = 2;
const TITLE_MAX = 80;
const FONT = 'DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif';
const RED = '#b42318';
const GREEN = '#067647';
const BLUE = '#1f6feb';
const DAY_MS = 86_400_000;

/**
 * Where resvg looks for fonts: the system's (the default), and font directories. Tests
 * point it at an empty directory alone to see the refusal a machine without fonts gets.
 */
export interface ChartFonts {
  system: boolean;
  dirs: readonly string[];
}

const SYSTEM_FONTS: ChartFonts = { system: true, dirs: [] };

/** PNG bytes of the chart; a `ChartError` when it cannot be drawn. */
export async function drawOacChart(
  input: OacChartInput,
  fonts: ChartFonts = SYSTEM_FONTS,
): Promise<Uint8Array> {
  const points = input.points.filter((p) => Number.isFinite(p.value));
  if (points.length === 0) throw new ChartError('no stored OAC to draw', 'NO_POINTS');
  const [vl, vega, resvg] = await Promise.all([
    import('vega-lite'),
    import('vega'),
    import('@resvg/resvg-js'),
  ]);
  if (!(await hasFont(resvg, fonts))) {
    throw new ChartError(
      'no font to draw the chart labels with (install fonts-dejavu-core or any TrueType font)',
      'NO_FONT',
    );
  }
  try {
    const spec = vl.compile(chartSpec({ ...input, points }) as never).spec;
    const view = new vega.View(vega.parse(spec), { renderer: 'none', logLevel: vega.None });
    const svg = await view.toSVG();
    view.finalize();
    const png = await resvg.renderAsync(svg, resvgOptions(fonts));
    return png.asPng();
  } catch (err) {
    throw new ChartError(`the chart could not be drawn: ${String(err)}`, 'DRAW_FAILED', {
      cause: err,
    });
  }
}

/** The Vega-Lite specification: exported for tests that read what is drawn. */
export function chartSpec(input: OacChartInput): Record<string, unknown> {
  const rows = thin(segments(input.points));
  const spanDays =
    rows.length === 0
      ? 0
      : (Date.parse(rows[rows.length - 1].at) - Date.parse(rows[0].at)) / DAY_MS;
  // A tick a day for a week, fewer as the span grows; the year shows once it matters.
  const tickCount = { interval: 'day', step: Math.max(1, Math.ceil(spanDays / 7)) };
  const format = spanDays > 120 ? '%b %Y' : '%b %d';
  const percent = input.unit === 'percent';
  const rules = [
    ...(input.threshold === null ? [] : [{ level: input.threshold, what: 'threshold' }]),
    ...(input.clear === null || input.clear === input.threshold
      ? []
      : [{ level: input.clear, what: 'clear' }]),
  ];
  const y = {
    field: 'value',
    type: 'quantitative',
    title: percent ? 'OAC, % of OPC' : 'OAC, Dth',
    scale: { zero: true, nice: true },
    axis: {
      format: percent ? '.0f' : '~s',
      tickCount: 5,
      labelExpr: "datum.value === 0 ? '0' : datum.label",
    },
  };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: WIDTH,
    height: HEIGHT,
    autosize: { type: 'fit', contains: 'padding' },
    padding: 8,
    background: '#ffffff',
    title: { text: oneLineTitle(input.title), anchor: 'start', fontSize: 13 },
    config: {
      font: FONT,
      view: { stroke: null },
      axis: { labelFontSize: 11, titleFontSize: 11, gridColor: '#eef0f2' },
    },
    layer: [
      {
        data: { values: rows },
        mark: { type: 'line', color: BLUE, strokeWidth: 2 },
        encoding: {
          x: {
            field: 'at',
            type: 'temporal',
            scale: { type: 'utc' },
            title: null,
            axis: { format, labelAngle: 0, tickCount },
          },
          y,
          detail: { field: 'segment' },
        },
      },
      // Dots while they can be told apart; a long history is a line.
      ...(rows.length > 60
        ? []
        : [
            {
              data: { values: rows },
              mark: { type: 'point', filled: true, color: BLUE, size: 24 },
              encoding: { x: { field: 'at', type: 'temporal', scale: { type: 'utc' } }, y },
            },
          ]),
      ...rules.map((r) => ({
        data: { values: [r] },
        mark: {
          type: 'rule',
          strokeDash: [6, 4],
          strokeWidth: 1.5,
          color: r.what === 'threshold' ? RED : GREEN,
        },
        encoding: { y: { field: 'level', type: 'quantitative' } },
      })),
      ...rules.map((r) => {
        // The threshold's words at the left, the clear level's at the right, both above
        // their line: two levels close together never write over each other.
        const left = r.what === 'threshold';
        return {
          data: { values: [r] },
          mark: {
            type: 'text',
            align: left ? 'left' : 'right',
            dx: left ? 4 : -4,
            dy: -7,
            fontSize: 10,
            color: left ? RED : GREEN,
            x: left ? 0 : { expr: 'width' },
          },
          encoding: {
            y: { field: 'level', type: 'quantitative' },
            text: { value: `${left ? 'threshold' : 'clear'} ${label(r.level, percent)}` },
          },
        };
      }),
    ],
  };
}

/** `12,500 Dth`, `10%`. */
function label(value: number, percent: boolean): string {
  return percent ? `${value}%` : `${Math.round(value).toLocaleString('en-US')} Dth`;
}

/** The title on one line, without control characters, clipped. */
function oneLineTitle(title: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  const flat = title.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return flat.length > TITLE_MAX ? `${flat.slice(0, TITLE_MAX - 1)}…` : flat;
}

/**
 * Where each point goes on the time axis (its gas day, then its cycle's place in the
 * day), and which stretch of line it belongs to: a gap of more than two days in the
 * history starts a new stretch, so the line never bridges days nobody saw.
 */
function segments(points: readonly ChartPoint[]): Row[] {
  let segment = 0;
  let last = Number.NaN;
  return points.map((p) => {
    const at = positionMs(p);
    if (at - last > 2 * DAY_MS) segment += 1;
    last = at;
    return { at: new Date(at).toISOString(), value: p.value, segment };
  });
}

function positionMs(p: ChartPoint): number {
  const day = Date.parse(`${p.gasDay}T00:00:00Z`);
  const rank = (NOMINATION_CYCLES as readonly string[]).indexOf(p.cycle);
  const hours = rank < 0 ? 0 : rank * 4;
  return (Number.isNaN(day) ? 0 : day) + hours * 3_600_000;
}

/** A point placed on the time axis, with its stretch of line. */
interface Row {
  at: string;
  value: number;
  segment: number;
}

/** At most `MAX_POINTS` rows: the lowest of each run of rows when there are more. */
export function thin<T extends { value: number }>(points: readonly T[]): T[] {
  if (points.length <= MAX_POINTS) return [...points];
  const run = Math.ceil(points.length / MAX_POINTS);
  const out: T[] = [];
  for (let i = 0; i < points.length; i += run) {
    let low = points[i];
    for (const p of points.slice(i + 1, i + run)) if (p.value < low.value) low = p;
    out.push(low);
  }
  return out;
}

type Resvg = typeof import('@resvg/resvg-js');

function resvgOptions(fonts: ChartFonts) {
  return {
    fitTo: { mode: 'zoom' as const, value: SCALE },
    font: {
      loadSystemFonts: fonts.system,
      fontDirs: [...fonts.dirs],
      defaultFontFamily: 'DejaVu Sans',
      sansSerifFamily: 'DejaVu Sans',
    },
    logLevel: 'off' as const,
  };
}

/** Whether each set of fonts has one, by `fontsKey`. */
const fontFound = new Map<string, Promise<boolean>>();

/**
 * Whether resvg finds any font to draw text with: a word drawn once, its pixels looked
 * at. Asked once per process and set of fonts.
 */
function hasFont(resvg: Resvg, fonts: ChartFonts): Promise<boolean> {
  const key = JSON.stringify([fonts.system, fonts.dirs]);
  const known = fontFound.get(key);
  if (known) return known;
  const found = (async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><text x="2" y="15" font-family="${FONT}" font-size="14">OAC</text></svg>`;
    const options = { ...resvgOptions(fonts), fitTo: { mode: 'original' as const } };
    const image = (await resvg.renderAsync(svg, options)).pixels;
    for (let i = 3; i < image.length; i += 4) if (image[i] !== 0) return true;
    return false;
  })();
  fontFound.set(key, found);
  return found;
}
