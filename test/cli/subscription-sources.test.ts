/**
 * The subscriptions as rule sources beyond notices: `status` plans the capacity a
 * subscription asks for and names it with where it came from, and a stored subscription
 * that no longer validates is reported (not in force, as the daemon treats it) rather
 * than failing `rules test` or `why`.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InstantClock } from '../support/clock.js';
import { cli } from './run-cli.js';
import { tempDir } from './stored-fixture.js';
import {
  dataDirWith,
  FILE_RULES,
  rulesDir,
  SUBSCRIPTIONS,
  slackSubscription,
} from './subscription-fixture.js';

const at = { clock: new InstantClock(new Date('2026-11-25T12:00:00Z')) };

describe('subscriptions as rule sources', () => {
  it('status plans the capacity a subscription asks for, naming it with its source', async () => {
    const dir = dataDirWith({ pipelines: ['transco'], subscriptions: SUBSCRIPTIONS });
    const env = { PIPEWATCH_DATA_DIR: dir, PIPEWATCH_RULES_DIR: rulesDir(FILE_RULES) };
    const run = await cli(['status'], env, at);
    expect(run.stdout).toContain(
      '  transco: latest, timely, evening (sub-3 (slack:C0OPS12345 by U0BOB, 2026-11-23))\n',
    );
    expect(run.stdout).toContain('subscriptions: 4, silences in force: 0\n');
    const json = JSON.parse((await cli(['status', '--json'], env, at)).stdout);
    expect(json.capacity_plan.pipelines[0].requested_by).toEqual([
      { by: 'sub-3', cycles: ['timely', 'evening'] },
    ]);
  });

  it('rules test reports a subscription that no longer validates and judges the rest', async () => {
    const dir = dataDirWith({
      subscriptions: [
        slackSubscription({ notices: { pipelines: ['transco'], colour: 'red' } }),
        SUBSCRIPTIONS[0]!,
      ],
    });
    const env = { PIPEWATCH_DATA_DIR: dir, PIPEWATCH_RULES_DIR: rulesDir(FILE_RULES) };
    const notice = {
      id: 990001,
      pipeline_id: 1,
      pipeline_slug: 'transco',
      pipeline_name: 'Transco',
      subject: 'Force majeure at Station 200',
      type: 'Capacity Constraint',
      posted_at: '2026-11-25 11:00:00',
    };
    const file = join(
      tempDir('pipewatch-sources-', { 'n.json': JSON.stringify(notice) }),
      'n.json',
    );
    const run = await cli(['rules', 'test', '--file', file], env, at);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /^pipewatch: subscription 1 \(slack:C0GAS12345 by U0ALICE, 2026-11-23\): notices: .*colour.*; it is not in force\n$/,
    );
    expect(run.stdout).toContain(
      '  sub-2 (slack:C0GAS12345 by U0ALICE, 2026-11-23): fires → slack:C0GAS12345 (matches, judged as new',
    );
    expect(run.stdout).not.toMatch(/sub-1 .*fires/);
  });
});
