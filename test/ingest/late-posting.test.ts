import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, harness, syncOnce, testSyncOptions } from './harness.js';

const options = testSyncOptions;
let h: Harness;

afterEach(async () => {
  await h?.close();
});

function sync() {
  return syncOnce(h, options);
}

function postedMinutesAgo(minutes: number): string {
  return new Date(h.sim.now().getTime() - minutes * 60_000)
    .toISOString()
    .slice(0, 19)
    .replace('T', ' ');
}

/** A page (20) of notices posted in the last minutes, so an older posting sorts below them. */
async function fillFirstPage() {
  for (let i = 1; i <= 20; i++) {
    h.sim.control.addNotice({
      pipeline_slug: 'transco',
      subject: `Fresh ${i}`,
      posted_at: postedMinutesAgo(i),
    });
  }
  await sync();
}

describe('late postings', () => {
  it('a notice posted within the window before the last sync is found on page 2', async () => {
    h = await harness();
    await sync();
    await fillFirstPage();
    const late = h.sim.control.addNotice({
      pipeline_slug: 'transco',
      subject: 'Posted late with an older date',
      posted_at: postedMinutesAgo(35),
    });
    const result = await sync();
    expect(h.events.notices.map((e) => e.notice.id)).toContain(late.id);
    // Page 1 held nothing new but reached back into the window; page 2 had it and reached no further.
    expect(result.pages).toBe(2);
    // Once page 1 no longer reaches back into the window, a quiet sync reads one page.
    await h.clock.sleep(50 * 60_000);
    await sync();
    expect((await sync()).requests).toBe(1);
  });

  it('a notice posted before the window is found by the next deep scan, not before', async () => {
    h = await harness();
    await sync();
    await fillFirstPage();
    const late = h.sim.control.addNotice({
      pipeline_slug: 'transco',
      subject: 'Posted two days late',
      posted_at: postedMinutesAgo(2 * 24 * 60),
    });
    const ids = () => h.events.notices.map((e) => e.notice.id);
    await sync();
    expect(ids()).not.toContain(late.id);
    await h.clock.sleep(options.deepScanEveryMs - 60_000);
    await sync();
    expect(ids()).not.toContain(late.id);
    await h.clock.sleep(60_000);
    const deep = await sync();
    expect(ids()).toContain(late.id);
    expect(deep.pages).toBeGreaterThanOrEqual(options.deepScanPages);
  });
});
