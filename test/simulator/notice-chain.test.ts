import { describe, expect, it } from 'vitest';
import {
  type Chain,
  chainNotice,
  chainUpdate,
  copyChain,
} from '../../src/simulator/notice-chain.js';
import type { StoredNotice } from '../../src/simulator/notice-store.js';
import { OPEN_ENDED } from '../../src/simulator/notice-timing.js';
import { PIPELINES } from '../../src/simulator/pipelines.js';
import { Random } from '../../src/simulator/random.js';
import { HOUR } from '../../src/simulator/sim-time.js';

const AT = Date.parse('2026-11-20T15:00:00Z');
const transco = PIPELINES.find((p) => p.slug === 'transco')!;

function chain(timing: Partial<Chain['timing']> = {}): Chain {
  return {
    pipeline: transco,
    kind: 'constraint',
    place: 'Station 85',
    base: 'Capacity Constraint at Station 85',
    type: 'Capacity Constraint',
    category: 'Critical',
    timing: { effectiveAt: AT, end: AT + 24 * HOUR, responseAt: null, ...timing },
    lastIdentifier: '12345',
    lastNoticeId: 7,
    steps: 1,
    startedAt: AT - HOUR,
  };
}

describe('chainNotice', () => {
  it('writes the labels of the chain, its dates in the API form, and the link of its identifier', () => {
    const fields = chainNotice(
      chain({ responseAt: AT + 2 * HOUR }),
      'initiate',
      AT,
      Random.of(1),
      '777',
    );
    expect(fields).toMatchObject({
      identifier: '777',
      type: 'Capacity Constraint',
      category: 'Critical',
      effective_at: '2026-11-20 15:00:00',
      end_at: '2026-11-21 15:00:00',
      response_at: '2026-11-20 17:00:00',
      service_created_at: '2026-11-20 15:00:00',
      service_updated_at: '2026-11-20 15:00:00',
    });
    expect(fields.url).toContain('777');
    expect(fields.html).toContain('777');
    expect(fields.posted_at <= fields.service_created_at).toBe(true);
  });

  it('leaves absent dates empty and passes an open-ended end through as written', () => {
    const fields = chainNotice(
      chain({ effectiveAt: null, end: OPEN_ENDED[0] }),
      'supersede',
      AT,
      Random.of(2),
      '778',
    );
    expect(fields).toMatchObject({ effective_at: '', end_at: OPEN_ENDED[0], response_at: '' });
    const text = chainNotice(
      chain({ end: 'until further notice' }),
      'supersede',
      AT,
      Random.of(2),
      '778',
    );
    expect(text.end_at).toBe('until further notice');
  });

  it('puts a hostile body in place of the generated subject and text', () => {
    const body = { subject: 'Update <script>x</script>', html: '<p>a&nbsp;b</p>', notice: 'raw' };
    const fields = chainNotice(chain(), 'initiate', AT, Random.of(3), '779', body);
    expect(fields).toMatchObject({ subject: body.subject, html: body.html, notice: 'raw' });
  });

  it('is the same notice for the same random stream', () => {
    const one = chainNotice(chain(), 'terminate', AT, Random.of(4), '780');
    expect(chainNotice(chain(), 'terminate', AT, Random.of(4), '780')).toEqual(one);
  });
});

describe('chainUpdate', () => {
  const notice = { html: '<p>Original</p>' } as StoredNotice;

  it('appends a dated paragraph and stamps the update time', () => {
    const changes = chainUpdate(chain(), notice, AT, Random.of(5));
    expect(changes.html).toMatch(/^<p>Original<\/p>\n<p><b>Update posted .+:<\/b> .+<\/p>$/);
    expect(changes.notice).toContain('Original');
    expect(changes.service_updated_at).toBe('2026-11-20 15:00:00');
  });

  /** The deadlines chainUpdate gives a chain whose deadline is `responseAt`, over many seeds. */
  function movedDeadlines(responseAt: number): number[] {
    const moved: number[] = [];
    for (let seed = 0; seed < 40; seed++) {
      const c = chain({ responseAt });
      const changes = chainUpdate(c, notice, AT, Random.of(seed));
      if (changes.response_at === undefined) {
        expect(c.timing.responseAt).toBe(responseAt);
        continue;
      }
      expect(changes.response_at).toBe(
        new Date(c.timing.responseAt!).toISOString().slice(0, 19).replace('T', ' '),
      );
      moved.push(c.timing.responseAt!);
    }
    expect(moved.length).toBeGreaterThan(0);
    expect(moved.length).toBeLessThan(40);
    return moved;
  }

  it('moves a future deadline 2 to 12 hours later, and the chain keeps it', () => {
    for (const at of movedDeadlines(AT + 5 * HOUR)) {
      expect(at - (AT + 5 * HOUR)).toBeGreaterThanOrEqual(2 * HOUR);
      expect(at - (AT + 5 * HOUR)).toBeLessThanOrEqual(12 * HOUR);
    }
  });

  it('moves a long-past deadline to an hour after the update', () => {
    expect(new Set(movedDeadlines(AT - 24 * HOUR))).toEqual(new Set([AT + HOUR]));
  });

  it('never sets a deadline on a notice that has none', () => {
    for (let seed = 0; seed < 20; seed++) {
      const c = chain();
      expect(chainUpdate(c, notice, AT, Random.of(seed)).response_at).toBeUndefined();
      expect(c.timing.responseAt).toBeNull();
    }
  });
});

describe('copyChain', () => {
  it('gives a copy whose timing later steps of the original leave alone', () => {
    const original = chain({ responseAt: AT });
    const copy = copyChain(original);
    original.timing.responseAt = AT + HOUR;
    original.steps++;
    expect(copy.timing.responseAt).toBe(AT);
    expect(copy.steps).toBe(1);
  });
});
