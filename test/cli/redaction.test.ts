/**
 * Secrets never leave the process: an API that echoes the key it refused, and platforms
 * that quote the token in their errors, get it into no log line, no `status`, no row of
 * the database. Each check reads the database file whole, as anyone with the file could.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_CHANNEL, startDiscordFake } from '../fakes/discord.js';
import { type ScriptedApi, startScriptedApi } from '../fakes/scripted-api.js';
import { startSimulatedApi } from '../fakes/simulated-api.js';
import { FAKE_TOKEN as SLACK_TOKEN, startSlackFake } from '../fakes/slack.js';
import { startSmtpFake } from '../fakes/smtp.js';
import { startWebhookReceiver } from '../fakes/webhook.js';
import { InstantClock } from '../support/clock.js';
import { cli } from './run-cli.js';

const KEY = 'k3y-that-must-not-leak-0123456789';
const USER = 'scheduler1';
const BASIC = Buffer.from(`${USER}:${KEY}`).toString('base64');
const clock = () => new InstantClock(new Date('2026-11-20T15:00:00Z'));

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** Everything the database holds, as text: the main file and its write-ahead log. */
function databaseText(dir: string): string {
  const read = (name: string) => {
    try {
      return readFileSync(join(dir, name)).toString('latin1');
    } catch {
      return '';
    }
  };
  return read('pipewatch.db') + read('pipewatch.db-wal');
}

describe('an API that echoes the key it refused', () => {
  it('gets it into no output, status or database row', async () => {
    api = await startScriptedApi((req) => ({
      status: req.url.pathname.includes('/catalog/') ? 200 : 401,
      body: req.url.pathname.includes('/catalog/')
        ? { status: 'success', messages: [], meta: {}, data: {} }
        : {
            status: 'error',
            messages: [
              `The API user ${USER} or key ${KEY} does not appear to be valid.`,
              `Received Authorization: Basic ${BASIC}`,
            ],
            meta: {},
            data: {},
          },
    }));
    const dataDir = mkdtempSync(join(tmpdir(), 'pipewatch-redaction-'));
    const env = {
      PIPEWATCH_API_URL: api.url,
      PIPEWATCH_API_USER: USER,
      PIPEWATCH_API_KEY: KEY,
      PIPEWATCH_DATA_DIR: dataDir,
      PIPEWATCH_RULES_DIR: mkdtempSync(join(tmpdir(), 'pipewatch-rules-')),
      LOG_LEVEL: 'debug',
    };
    const run = await cli(['run', '--once'], env, { clock: clock() });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/does not appear to be valid/);
    const status = await cli(['status', '--json'], env, { clock: clock() });
    expect(status.stdout).toMatch(/does not appear to be valid/);
    for (const text of [
      run.stdout,
      run.stderr,
      status.stdout,
      status.stderr,
      databaseText(dataDir),
    ]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(BASIC);
    }
  });
});

describe('platforms that quote a secret back in their refusals', () => {
  it('get it, and the token in a webhook URL, into no output, why, status or database row', async () => {
    const start = new Date('2026-11-20T15:00:00Z');
    const discordToken = 'MTIzNDU2Nzg5.GhIjKl.discordSecretPart';
    const hookToken = 'T0HOOK/B0HOOK/hookSecretPathToken';
    const hookPassword = 'hookPassw0rd';
    const slack = await startSlackFake();
    const discord = await startDiscordFake({ token: discordToken });
    const smtp = await startSmtpFake({ starttls: false });
    const hooks = await startWebhookReceiver();
    const hookUrl = hooks.url.replace('http://', `http://relay:${hookPassword}@`);
    const {
      sim,
      env: base,
      dataDir,
    } = await startSimulatedApi({
      seed: 9,
      start,
      rules: `
rules:
  - name: everywhere
    notices:
      pipelines: [transco]
    notify:
      - slack: "#gas"
      - discord: "${FAKE_CHANNEL}"
      - email: [scheduling@example.com]
      - webhook: ${hookUrl}/${hookToken}?key=queryToken123
`,
    });
    try {
      const env = {
        ...base,
        SLACK_BOT_TOKEN: SLACK_TOKEN,
        SLACK_API_URL: slack.url,
        DISCORD_BOT_TOKEN: discordToken,
        DISCORD_API_URL: discord.url,
        SMTP_URL: smtp.url,
        SMTP_ALLOW_PLAINTEXT: 'true',
        EMAIL_FROM: 'pipewatch <alerts@example.com>',
        LOG_LEVEL: 'debug',
      };
      const at = () => new InstantClock(new Date(start.getTime() + 60_000));
      expect((await cli(['run', '--once'], env, { clock: at() })).code).toBe(0);

      const notice = sim.control.addNotice({ pipeline_slug: 'transco', subject: 'Constraint' });
      slack.inject({ method: 'chat.postMessage', error: `invalid_auth_for_${SLACK_TOKEN}` });
      discord.inject({
        status: 403,
        body: { message: `Missing Access for ${discordToken}`, code: 50001 },
      });
      smtp.reject({ code: 550, message: `relay denied for user with password ${smtp.pass}` });
      hooks.fail(410);
      const run = await cli(['run', '--once'], env, { clock: at() });
      expect(run.stdout).toMatch(/1 failed for good|failed for good/);

      const why = await cli(['why', String(notice.id)], env, { clock: at() });
      const whyJson = await cli(['why', String(notice.id), '--json'], env, { clock: at() });
      const status = await cli(['status', '--json'], env, { clock: at() });
      expect(why.stdout).toMatch(
        /everywhere\|notice:\d+:v1\|webhook:http:\/\/127\.0\.0\.1:\d+\/…: dead/,
      );
      const secrets = [
        SLACK_TOKEN,
        discordToken,
        smtp.pass,
        hookToken,
        hookPassword,
        'queryToken123',
      ];
      const texts = {
        run: run.stdout + run.stderr,
        why: why.stdout,
        whyJson: whyJson.stdout,
        status: status.stdout,
        database: databaseText(dataDir),
      };
      for (const [where, text] of Object.entries(texts)) {
        for (const secret of secrets) {
          if (where === 'database' && [hookToken, hookPassword, 'queryToken123'].includes(secret))
            continue;
          expect(text, `${secret} in ${where}`).not.toContain(secret);
        }
      }
    } finally {
      await Promise.all([sim.close(), slack.close(), discord.close(), smtp.close(), hooks.close()]);
    }
  });
});
