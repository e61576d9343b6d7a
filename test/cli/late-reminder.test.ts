/**
 * A notice that arrives late for its reminders, end to end: the simulator posts a notice
 * whose response is due in 90 minutes, and a rule reminds 2 h and 30 min before. The
 * person hears of it at once, on a Slack DM and by email, with how long is left, and
 * again 30 minutes before; nothing more after that.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import { startSimulatedApi } from '../fakes/simulated-api.js';
import { FAKE_TOKEN as SLACK_TOKEN, type SlackFake, startSlackFake } from '../fakes/slack.js';
import { type SmtpFake, startSmtpFake } from '../fakes/smtp.js';
import { InstantClock } from '../support/clock.js';
import { cli } from './run-cli.js';

const START = new Date('2026-11-20T15:00:00Z');
const MINUTE = 60_000;
const RULES = `
rules:
  - name: ofo-response
    deadlines:
      field: response_at
      before: [2h, 30m]
      pipelines: [texas-eastern]
    notify:
      - slack_dm: alice@example.com
      - email: scheduling@example.com
`;

let sim: Simulator;
let slack: SlackFake;
let smtp: SmtpFake;
let env: Record<string, string>;
const at = (minutes: number) => new InstantClock(new Date(START.getTime() + minutes * MINUTE));
const sql = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');

beforeAll(async () => {
  ({ sim, env } = await startSimulatedApi({ seed: 5, start: START, rules: RULES }));
  slack = await startSlackFake();
  // A relay on loopback without STARTTLS, as SMTP_ALLOW_PLAINTEXT is for.
  smtp = await startSmtpFake({ starttls: false });
  env = {
    ...env,
    SLACK_BOT_TOKEN: SLACK_TOKEN,
    SLACK_API_URL: slack.url,
    SMTP_URL: smtp.url,
    SMTP_ALLOW_PLAINTEXT: 'true',
    EMAIL_FROM: 'pipewatch <alerts@example.com>',
  };
});
afterAll(async () => {
  await Promise.all([sim.close(), slack.close(), smtp.close()]);
});

describe('a notice first seen 90 minutes before its response is due', () => {
  it('reminds at once on a Slack DM and by email, and again 30 minutes before', async () => {
    const baseline = await cli(['run', '--once'], env, { clock: at(1) });
    expect(baseline.code, baseline.stderr).toBe(0);

    const ofo = sim.control.addNotice({
      pipeline_slug: 'texas-eastern',
      type: 'Operational Flow Order',
      subject: 'OFO - Imbalance, response required',
      category: 'Critical',
      status: 'Initiate',
      response_at: sql(new Date(START.getTime() + 91 * MINUTE)),
    });

    const first = await cli(['run', '--once'], env, { clock: at(1) });
    expect(first.code, first.stderr).toBe(0);
    expect(slack.posts).toHaveLength(1);
    expect(slack.posts[0]!.channel).toBe('DU0ALICE');
    expect(slack.posts[0]!.text).toBe(
      '[Texas Eastern Transmission] Response due in 1 h 30 min: OFO - Imbalance, response required',
    );
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]!.parsed?.subject).toBe(
      '[Texas Eastern Transmission] Response due in 1 h 30 min: OFO - Imbalance, response required',
    );

    // why tells the schedule: the 2 h reminder went out at once, the 30 min one is ahead.
    const why = await cli(['why', String(ofo.id)], env, { clock: at(1) });
    expect(why.stdout).toContain(
      'reminders 2h before: at once (came due before the notice arrived; 1h30m left); 30m before: at 2026-11-20T16:01:00Z',
    );
    expect(why.stdout).toMatch(
      /ofo-response: reminders ahead → slack_dm:alice@example\.com, email:scheduling@example\.com \(response_at 2026-11-20T16:31:00Z: 2h before: sent: .*; 30m before: at 2026-11-20T16:01:00Z\)/,
    );

    // Nothing more until 30 minutes before.
    const quiet = await cli(['run', '--once'], env, { clock: at(60) });
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(slack.posts).toHaveLength(1);
    expect(smtp.messages).toHaveLength(1);

    const second = await cli(['run', '--once'], env, { clock: at(61) });
    expect(second.code, second.stderr).toBe(0);
    expect(slack.posts.map((p) => p.text)).toEqual([
      '[Texas Eastern Transmission] Response due in 1 h 30 min: OFO - Imbalance, response required',
      '[Texas Eastern Transmission] Response due in 30 min: OFO - Imbalance, response required',
    ]);
    expect(smtp.messages.map((m) => m.parsed?.subject)).toEqual([
      '[Texas Eastern Transmission] Response due in 1 h 30 min: OFO - Imbalance, response required',
      '[Texas Eastern Transmission] Response due in 30 min: OFO - Imbalance, response required',
    ]);

    // After the deadline, nothing: every offset has had its reminder.
    const after = await cli(['run', '--once'], env, { clock: at(120) });
    expect(after.code, after.stderr).toBe(0);
    expect(slack.posts).toHaveLength(2);
    expect(smtp.messages).toHaveLength(2);
  });
});
