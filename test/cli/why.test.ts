/**
 * `pipewatch why` on notices a real `pipewatch run --once` stored: the audit trail, each
 * rule's verdict as the daemon would act now, and the deliveries; `--json` carries the
 * same with ISO 8601 UTC datetimes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './run-cli.js';
import { at, RUN_AT, type StoredFixture, storeNotices } from './stored-fixture.js';

let stored: StoredFixture;

beforeAll(async () => {
  stored = await storeNotices();
});
afterAll(async () => {
  await stored.close();
});

interface WhyJson {
  notice: { id: number; baseline: boolean; first_seen_at: string; posted_at: string | null };
  decisions: Array<{ at: string; rule: string; event: string; decision: string; reason: string }>;
  verdicts: Array<{ rule: string; outcome: string; fires: boolean; reason: string }> | null;
  rule_problems: unknown[];
  deliveries: Array<{
    key: string;
    rule: string;
    status: string;
    sent_at: string | null;
    detail: string | null;
  }>;
}

describe('pipewatch why', () => {
  it('shows the decision, what each rule does now, and the delivery', async () => {
    const run = await cli(['why', String(stored.ids.constraint)], stored.env, at(RUN_AT));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/transco-constraints\s+notice-new\s+alert\s+matched; to console/);
    expect(run.stdout).toContain('Verdicts of the rules as they stand now:');
    expect(run.stdout).toContain(
      'transco-constraints: no: already alerted: v1 → console sent 2026-11-20T15:01:00Z',
    );
    expect(run.stdout).toContain('tetco-response: no: not matched on pipelines');
    expect(run.stdout).toMatch(
      /Deliveries:\n\s+transco-constraints\|notice:\d+:v1\|console: sent at \S+, 1 attempt, ok/,
    );
  });

  it('--json carries the notice, the decisions, the verdicts and the deliveries', async () => {
    const run = await cli(['why', String(stored.ids.ofo), '--json'], stored.env, at(RUN_AT));
    expect(run.code).toBe(0);
    const why = JSON.parse(run.stdout) as WhyJson;
    expect(why.notice).toMatchObject({
      id: stored.ids.ofo,
      baseline: false,
      first_seen_at: '2026-11-20T15:01:00Z',
      posted_at: '2026-11-20T15:00:00Z',
    });
    expect(why.decisions).toContainEqual(
      expect.objectContaining({
        rule: 'tetco-response',
        event: 'notice-new',
        decision: 'scheduled',
      }),
    );
    expect(why.decisions).toContainEqual(
      expect.objectContaining({ rule: 'tetco-response', event: 'deadline', decision: 'alert' }),
    );
    expect(why.verdicts).toContainEqual(
      expect.objectContaining({ rule: 'tetco-response', outcome: 'scheduled', fires: true }),
    );
    expect(why.rule_problems).toEqual([]);
    expect(why.deliveries).toEqual([
      expect.objectContaining({
        key: `tetco-response|notice:${stored.ids.ofo}:response_at:7200000|console`,
        rule: 'tetco-response',
        status: 'sent',
        sent_at: '2026-11-20T15:01:00Z',
        detail: expect.stringMatching(/^ok/),
      }),
    ]);
  });

  it('says so when the notice is not stored, exit 1', async () => {
    const run = await cli(['why', '1', '--json'], stored.env, at(RUN_AT));
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toBe(
      'pipewatch: notice 1 is not stored (it may be older than the baseline, or not synced yet)\n',
    );
  });
});
