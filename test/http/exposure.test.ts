/**
 * What the daemon's HTTP port tells whom, end to end: `pipewatch run` against the
 * simulator, with deliveries refused by the local fakes (an unknown email recipient, a
 * Slack user and channel, a webhook whose URL holds a token) and a feed failing, so that
 * the database holds every kind of text that names a person or quotes an error.
 * `/healthz`, `/metrics` and the public `/status` carry none of it; the full `/status`,
 * for the status token, carries all of it. The tests share one database and run in
 * order: the first makes the failures the others read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import { cli, startCli, until } from '../cli/run-cli.js';
import { startSimulatedApi } from '../fakes/simulated-api.js';
import { FAKE_TOKEN as SLACK_TOKEN, type SlackFake, startSlackFake } from '../fakes/slack.js';
import { type SmtpFake, startSmtpFake } from '../fakes/smtp.js';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook.js';
import { InstantClock, ManualClock } from '../support/clock.js';

const START = new Date('2026-11-20T15:00:00Z');
const STATUS_TOKEN = 'status-token-for-the-exposure-test';
const SMTP_USER = 'mailer-account-7';
const RECIPIENT = 'bob.dispatcher@example.com';
const SLACK_USER = 'U0NOBODY42';
const HOOK_PATH = '/hooks/T0KEN-in-the-path?key=abc123';

let sim: Simulator;
let slack: SlackFake;
let smtp: SmtpFake;
let hooks: WebhookReceiver;
let env: Record<string, string>;
/** Text the database holds that no reader without the token may see. */
let privateText: string[];

beforeAll(async () => {
  slack = await startSlackFake();
  smtp = await startSmtpFake({ user: SMTP_USER, starttls: false });
  hooks = await startWebhookReceiver();
  ({ sim, env } = await startSimulatedApi({
    seed: 7,
    start: START,
    rules: `rules:
  - name: every-target
    notices:
      pipelines: [transco]
    notify:
      - email: [${RECIPIENT}]
      - slack: "#outside"
      - slack_dm: "${SLACK_USER}"
      - webhook: ${hooks.url}${HOOK_PATH}
`,
  }));
  env = {
    ...env,
    SLACK_BOT_TOKEN: SLACK_TOKEN,
    SLACK_API_URL: slack.url,
    SMTP_URL: smtp.url,
    SMTP_ALLOW_PLAINTEXT: 'true',
    EMAIL_FROM: 'pipewatch <alerts@example.com>',
    PIPEWATCH_HTTP_PORT: '0',
  };
  const baseline = await cli(['run', '--once'], env, {
    clock: new InstantClock(new Date(START.getTime() + 60_000)),
  });
  expect(baseline.code, baseline.stderr).toBe(0);
  // The API's host:port is in the text of every upstream error.
  privateText = [
    RECIPIENT,
    SLACK_USER,
    'outside',
    'T0KEN',
    'abc123',
    SMTP_USER,
    new URL(sim.url).host,
  ];
}, 60_000);
afterAll(async () => {
  sim.control.clearFaults();
  await Promise.all([sim.close(), slack.close(), smtp.close(), hooks.close()]);
});

/**
 * Runs the daemon with `extra` settings, its clock starting `at`, until `use` is done
 * with its HTTP URL; first, with `waitFor`, moves the clock a second at a time until what
 * the daemon logged matches.
 */
async function withDaemon(
  extra: Record<string, string>,
  use: (url: string, stderr: string) => Promise<void>,
  options: { at?: Date; waitFor?: (stderr: string) => boolean } = {},
): Promise<void> {
  const { at = new Date(START.getTime() + 120_000), waitFor } = options;
  const stop = new AbortController();
  const clock = new ManualClock(at);
  const running = startCli(
    ['run'],
    { ...env, LOG_LEVEL: 'info', ...extra },
    {
      clock,
      signal: stop.signal,
    },
  );
  try {
    await until(() => /pipewatch running/.test(running.stderr.text), running);
    if (waitFor)
      await until(() => {
        clock.advance(1_000);
        return waitFor(running.stderr.text);
      }, running);
    const url = /"http":"(http:\/\/[^"]+)"/.exec(running.stderr.text)?.[1];
    await use(url!, running.stderr.text);
  } finally {
    stop.abort();
    await running.done;
  }
}

function expectNothingPrivate(what: string, text: string): void {
  for (const secret of privateText) expect(text, `${what} shows ${secret}`).not.toContain(secret);
}

describe('the HTTP port', () => {
  it('on every interface: /healthz and /metrics tell no one anything private; /status needs the token', async () => {
    sim.control.addNotice({
      pipeline_slug: 'transco',
      type: 'Capacity Constraint',
      subject: 'Capacity Constraint - Station 165',
      category: 'Critical',
      status: 'Initiate',
    });
    smtp.reject({ code: 550, message: `5.1.1 <${RECIPIENT}>: no such user`, recipient: RECIPIENT });
    hooks.fail(410);
    sim.control.injectFault({ kind: '500', path: '/catalog', count: 1000 });
    const settled = (stderr: string) =>
      (stderr.match(/could not send/g) ?? []).length === 4 && /catalog sync failed/.test(stderr);
    await withDaemon(
      { PIPEWATCH_HTTP_HOST: '0.0.0.0', PIPEWATCH_STATUS_TOKEN: STATUS_TOKEN },
      async (url, stderr) => {
        expect(stderr).toMatch(
          /HTTP on 0\.0\.0\.0:\d+, reachable from other hosts: \/healthz and \/metrics are open, \/status needs the status token/,
        );
        const health = await (await fetch(`${url}/healthz`)).text();
        expect(health).toMatch(/"feed": "catalog"/);
        expectNothingPrivate('/healthz', health);
        const metrics = await (await fetch(`${url}/metrics`)).text();
        expect(metrics).toMatch(
          /pipewatch_sync_errors_total\{feed="catalog",code="UPSTREAM_UNAVAILABLE"\} \d/,
        );
        for (const channel of ['email', 'slack', 'webhook'])
          expect(metrics).toContain(
            `pipewatch_deliveries_total{channel="${channel}",result="dead"}`,
          );
        expectNothingPrivate('/metrics', metrics);

        const refused = await fetch(`${url}/status`);
        expect(refused.status).toBe(401);
        expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="pipewatch"');
        expectNothingPrivate('a refused /status', await refused.text());

        const full = await fetch(`${url}/status`, {
          headers: { authorization: `Bearer ${STATUS_TOKEN}` },
        });
        const text = await full.text();
        for (const shown of [RECIPIENT, SLACK_USER, 'outside', sim.url.replace('http://', '')])
          expect(text).toContain(shown);
      },
      { waitFor: settled },
    );
  });

  it('on loopback serves /status without the token, without anything private', async () => {
    // Hours later, the catalog still failing: its feed is unhealthy, with a reason.
    await withDaemon(
      {},
      async (url, stderr) => {
        expect(stderr).not.toMatch(/reachable from other hosts/);
        const response = await fetch(`${url}/status`);
        expect(response.status).toBe(200);
        const text = await response.text();
        expectNothingPrivate('the public /status', text);
        const body = JSON.parse(text);
        expect(body.outbox).toEqual({ pending: 0, sent: 0, dead: 4, oldest_pending_at: null });
        expect(body.feeds.find((f: { feed: string }) => f.feed === 'catalog')).toMatchObject({
          healthy: false,
          last_error_code: 'UPSTREAM_UNAVAILABLE',
          reason: expect.stringMatching(/; last error: UPSTREAM_UNAVAILABLE$/),
        });
      },
      { at: new Date(START.getTime() + 24 * 3_600_000) },
    );
  });

  it('warns that /status refuses everyone on every interface without a status token', async () => {
    await withDaemon({ PIPEWATCH_HTTP_HOST: '0.0.0.0' }, async (url, stderr) => {
      expect(stderr).toMatch(
        /HTTP on 0\.0\.0\.0:\d+, reachable from other hosts, without PIPEWATCH_STATUS_TOKEN: \/status refuses every request; \/healthz and \/metrics are open/,
      );
      expect((await fetch(`${url}/status`)).status).toBe(401);
    });
  });
});
