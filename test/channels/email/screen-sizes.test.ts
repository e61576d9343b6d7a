/**
 * Alert email as a browser lays it out, on a 375 px phone and a 900 px desktop: every
 * kind of message, a capacity digest of many locations, a location name of 120
 * characters without a space, and hostile notice text. On the phone nothing may lie
 * past the right edge (the page is no wider than the screen, and neither is anything
 * in a box that scrolls sideways), and the OAC and threshold columns and the Unsubscribe
 * link are on screen; on the desktop the capacity table keeps every column.
 *
 * Real headless Chromium (`test/support/chromium.ts`): `PIPEWATCH_CHROMIUM`, or
 * chromium / chromium-browser / google-chrome on PATH; without one the test is skipped
 * and says so. Each page and a screenshot of it at each size are written under
 * `test-results/email-screens/` to look at.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { h2, layout } from '../../../src/channels/email/html.js';
import { renderEmail } from '../../../src/channels/email/index.js';
import type { Alert } from '../../../src/channels/types.js';
import { capacityAlert, hostileAlerts, location } from '../../fakes/alerts.js';
import { type Browser, findChromium, launchChromium } from '../../support/chromium.js';
import { SAMPLE_KINDS, SENT_AT, sampleAlerts } from '../payload-samples.js';

const SCREENS = fileURLToPath(new URL('../../../test-results/email-screens/', import.meta.url));
const PHONE = 375;
const DESKTOP = 900;
const HEIGHT = 900;
const OPTIONS = {
  from: 'pipewatch <alerts@example.com>',
  now: SENT_AT,
  unsubscribeUrl: 'https://pipewatch.example.com/unsubscribe/aGVsbG8td29ybGQtdGhpcy1pcy1hLXRva2Vu',
};

/** A location name of 120 characters and no space to break it at. */
const LONG_NAME = `STATION-${'X'.repeat(104)}-END-120`;

/** Capacity alerts on `count` locations, some on a percentage rule, some repeats. */
function manyLocations(count: number): Alert {
  const alert = capacityAlert(
    Array.from({ length: count }, (_, i) =>
      location({
        id: 7000 + i,
        location: `STATION ${100 + i}${i % 7 === 3 ? ' SOUTH LATERAL INTERCONNECT' : ''}`,
        identifier: String(1_002_000 + i),
        oac: 1_000 * i,
      }),
    ),
  );
  alert.payload.capacity?.locations.forEach((l, i) => {
    if (i % 3 === 1) Object.assign(l, { unit: 'percent', threshold: 10, clear_above: 12 });
    if (i % 4 === 2) l.repeat = true;
  });
  return alert;
}

/** Capacity alerts on locations whose names are hostile: markup, controls, RTL, emoji. */
function hostileLocations(): Alert {
  return capacityAlert([
    location({
      location: '<b>STATION</b> 85 <img src=x onerror=alert(1)>',
      identifier: '<i>1</i>',
    }),
    location({ location: 'STATION\u202e 58 \u0007\r\nBcc: a@b.c', identifier: '1001235' }),
    location({ location: `🔥🔥🔥 STATION 🔥🔥🔥 ${'💥'.repeat(40)}`, identifier: '1001236' }),
    location({ location: 'محطة 85 الجنوبية', identifier: '١٠٠١٢٣٧' }),
  ]);
}

/** A page to look at: an email's HTML part, and whether it has a capacity table. */
interface Email {
  name: string;
  html: string;
  capacity: boolean;
  /** Measured at 375 px only, as a client that drops the stylesheet shows it. */
  bare?: true;
}

/** A chart as the OAC email may carry one: an image 600 px wide, in a section of its own. */
const CHART = `<img src="data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="300"><rect width="600" height="300" fill="#0b5cad"/></svg>',
)}" width="600" height="300" alt="OAC at STATION 85">`;

/** Every email to look at: the fixtures' samples, then the hard cases. */
function emails(): Email[] {
  const target = 'email:scheduling@example.com';
  const long = capacityAlert([location({ location: LONG_NAME, identifier: LONG_NAME })]);
  const cases: [string, Alert[]][] = [
    ...SAMPLE_KINDS.map((k): [string, Alert[]] => [k, sampleAlerts(k, target)]),
    ['capacity-many-locations', [manyLocations(60)]],
    ['digest-many-locations', [...sampleAlerts('digest', target), manyLocations(25)]],
    ['capacity-long-name', [long]],
    ['capacity-long-name-resolved', [capacityAlert(long.payload.capacity?.locations, 'resolved')]],
    ['capacity-hostile', [hostileLocations()]],
    ['notice-hostile', hostileAlerts()],
  ];
  const all: Email[] = cases.map(([name, alerts]) => ({
    name,
    html: renderEmail(alerts, OPTIONS).html,
    capacity: alerts.some((a) => a.payload.kind === 'capacity'),
  }));
  const chart = { text: '', html: `${h2('OAC at STATION 85')}${CHART}` };
  all.push({
    name: 'chart-600',
    html: layout('OAC at STATION 85', [chart], 'pipewatch', OPTIONS.unsubscribeUrl),
    capacity: false,
  });
  for (const name of ['capacity-firing', 'capacity-many-locations', 'capacity-long-name']) {
    const html = all.find((e) => e.name === name)?.html ?? '';
    all.push({
      name: `${name}-bare`,
      html: html.replace(/<style>.*?<\/style>/s, ''),
      capacity: true,
      bare: true,
    });
  }
  return all;
}

interface Box {
  left: number;
  right: number;
}

interface Layout {
  viewport: number;
  scrollWidth: number;
  /** Laid-out elements reaching past the right edge, by tag and text. */
  outside: string[];
  /** Each visible column heading of the capacity tables, with where it lies. */
  headings: Record<string, Box[]>;
  unsubscribe: Box[];
}

/**
 * Measures the page at `width`, in the browser (plain JavaScript: this program has no
 * DOM types): what lies past the right edge, the capacity tables' visible headings, the
 * Unsubscribe link.
 */
const measure = (width: number) => `(() => {
  const vw = ${width};
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 ? { left: r.left, right: r.right } : undefined;
  };
  const outside = [...document.body.querySelectorAll('*')]
    .filter((e) => (box(e)?.right ?? 0) > vw + 0.5)
    .map((e) => e.tagName + ' ' + (e.textContent ?? '').trim().slice(0, 60));
  const headings = {};
  for (const th of document.querySelectorAll('th')) {
    const b = box(th);
    const name = (th.textContent ?? '').trim();
    if (b) headings[name] = [...(headings[name] ?? []), b];
  }
  const unsubscribe = [...document.querySelectorAll('a')]
    .filter((a) => a.textContent === 'Unsubscribe')
    .flatMap((a) => box(a) ?? []);
  return {
    viewport: window.innerWidth,
    scrollWidth: document.documentElement.scrollWidth,
    outside,
    headings,
    unsubscribe,
  };
})()`;

const chromium = findChromium();
const layouts = new Map<string, Layout>();
let browser: Browser | undefined;

describe.skipIf(!chromium)('email at 375 and 900 px in headless Chromium', () => {
  beforeAll(async () => {
    rmSync(SCREENS, { recursive: true, force: true });
    mkdirSync(SCREENS, { recursive: true });
    browser = await launchChromium(chromium as string);
    const page = await browser.page();
    for (const email of emails()) {
      const file = `${SCREENS}${email.name}.html`;
      writeFileSync(file, email.html);
      for (const width of email.bare ? [PHONE] : [PHONE, DESKTOP]) {
        await page.open(pathToFileURL(file).href, width, HEIGHT);
        layouts.set(`${email.name}@${width}`, await page.evaluate<Layout>(measure(width)));
        writeFileSync(`${SCREENS}${email.name}-${width}.png`, await page.screenshot(1600));
      }
    }
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
  });

  const onScreen = (b: Box) => b.left >= 0 && b.right <= PHONE;
  for (const { name, capacity, bare } of emails()) {
    if (bare) {
      it(`${name}: without the stylesheet, every column in a box that scrolls, the page no wider than a phone`, () => {
        const l = layouts.get(`${name}@${PHONE}`);
        expect(l?.scrollWidth).toBeLessThanOrEqual(PHONE);
        expect(l?.viewport).toBe(PHONE);
        expect(l?.unsubscribe.every(onScreen)).toBe(true);
        expect(Object.keys(l?.headings ?? {})).toEqual(expect.arrayContaining(['DC', 'OAC']));
      });
      continue;
    }
    it(`${name}: no wider than a phone, OAC, threshold and Unsubscribe on screen`, () => {
      const l = layouts.get(`${name}@${PHONE}`);
      expect(l?.outside).toEqual([]);
      expect(l?.scrollWidth).toBeLessThanOrEqual(PHONE);
      expect(l?.viewport).toBe(PHONE);
      expect(l?.unsubscribe.length).toBe(1);
      expect(l?.unsubscribe.every(onScreen)).toBe(true);
      if (!capacity) return;
      const level = [...(l?.headings.Threshold ?? []), ...(l?.headings['Clear above'] ?? [])];
      expect(l?.headings.OAC?.length).toBeGreaterThan(0);
      expect(level.length).toBeGreaterThan(0);
      expect([...(l?.headings.OAC ?? []), ...level].every(onScreen)).toBe(true);
    });

    it(`${name}: no wider than the window on a desktop${capacity ? ', every column' : ''}`, () => {
      const l = layouts.get(`${name}@${DESKTOP}`);
      expect(l?.outside).toEqual([]);
      expect(l?.scrollWidth).toBeLessThanOrEqual(DESKTOP);
      expect(l?.viewport).toBe(DESKTOP);
      expect(l?.unsubscribe.length).toBe(1);
      if (!capacity) return;
      const shown = Object.keys(l?.headings ?? {});
      expect(shown).toEqual(expect.arrayContaining(['Location', 'ID', 'Flow', 'DC', 'OPC']));
      expect(shown).toEqual(expect.arrayContaining(['TSQ', 'OAC']));
    });
  }
});

if (!chromium) {
  console.warn(
    'email screen-size tests skipped: no chromium, chromium-browser or google-chrome on PATH; install one or set PIPEWATCH_CHROMIUM',
  );
  describe('email at 375 and 900 px in headless Chromium', () => {
    it.skip('skipped: no Chromium found; install chromium or set PIPEWATCH_CHROMIUM to one', () => {});
  });
}
