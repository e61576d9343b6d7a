import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  environmentWithDotEnv,
  loadConfig,
  VARIABLES,
} from '../../src/config/index.js';

function errorsFor(env: Record<string, string>): string[] {
  try {
    loadConfig(env, '/srv/pipewatch');
  } catch (error) {
    if (error instanceof ConfigError) return error.lines;
    throw error;
  }
  return [];
}

describe('loadConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    const config = loadConfig({}, '/srv/pipewatch');
    expect(config.api).toEqual({
      url: null,
      user: undefined,
      key: undefined,
      ratePerSecond: 2,
      concurrency: 1,
      timeoutMs: 30_000,
      maxBodyBytes: 20_000_000,
    });
    expect(config.dataDir).toBe('/srv/pipewatch/data');
    expect(config.rulesDir).toBe('/srv/pipewatch/rules');
    expect(config.noticesIntervalMs).toBe(600_000);
    expect(config.capacityIntervalMs).toBe(900_000);
    expect(config.maxAlertAgeMs).toBe(86_400_000);
    expect(config.httpPort).toBe(8080);
    expect(config.httpHost).toBe('127.0.0.1');
    expect(config.statusToken).toBeUndefined();
    expect(config.email.allowPlaintext).toBe(false);
    expect(config.logLevel).toBe('info');
    expect(config.pipelines).toEqual([]);
    expect(config.capacityPipelines).toEqual([]);
    expect(config.baselinePages).toBe(10);
    expect(config.baselineAgeMs).toBe(7 * 86_400_000);
    expect(config.warnings).toEqual([]);
  });

  it('takes every default from the variable table', () => {
    for (const v of Object.values(VARIABLES)) {
      const unset = v.schema.parse(undefined);
      if (v.default === undefined) expect(unset, v.name).toBeUndefined();
      else expect(unset, v.name).toEqual(v.schema.parse(v.default));
    }
  });

  it('parses good values of every kind', () => {
    const config = loadConfig(
      {
        PIPEWATCH_API_URL: 'https://api.example.com/',
        PIPEWATCH_API_USER: 'scheduler1',
        PIPEWATCH_API_KEY: 'k3y',
        PIPEWATCH_NOTICES_INTERVAL: '90s',
        PIPEWATCH_CAPACITY_INTERVAL: '1h30m',
        PIPEWATCH_MAX_ALERT_AGE: '2d',
        PIPEWATCH_HTTP_PORT: '0',
        PIPEWATCH_DATA_DIR: '/var/lib/pipewatch',
        SMTP_URL: 'smtps://u:p@mail.example.com:465',
        EMAIL_FROM: 'pipewatch <alerts@example.com>',
        LOG_LEVEL: 'debug',
      },
      '/srv',
    );
    expect(config.api.url).toBe('https://api.example.com/');
    expect(config.noticesIntervalMs).toBe(90_000);
    expect(config.capacityIntervalMs).toBe(5_400_000);
    expect(config.maxAlertAgeMs).toBe(172_800_000);
    expect(config.httpPort).toBe(0);
    expect(
      loadConfig({ PIPEWATCH_PIPELINES: ' Transco, texas-eastern,,transco ' }, '/').pipelines,
    ).toEqual(['transco', 'texas-eastern']);
    expect(config.dataDir).toBe('/var/lib/pipewatch');
    expect(config.email.from).toBe('pipewatch <alerts@example.com>');
  });

  const bad: Array<[string, string, RegExp]> = [
    ['PIPEWATCH_API_URL', 'ftp://files.example.com', /must be an http:\/\/ or https:\/\/ URL/],
    ['PIPEWATCH_API_RATE', 'fast', /must be a number/],
    ['PIPEWATCH_DATABASE_URL', 'mysql://db.example.com/pipewatch', /must be a postgres:\/\//],
    ['PIPEWATCH_DATABASE_URL', 'postgres://pw:se/cr#et@db', /must be percent-encoded/],
    ['PIPEWATCH_LEADER_LEASE', '1s', /below the minimum of 3s/],
    ['PIPEWATCH_API_CONCURRENCY', '0', /between 1 and 16/],
    ['PIPEWATCH_API_TIMEOUT', '5', /is not a duration/],
    ['PIPEWATCH_NOTICES_INTERVAL', '30s', /below the minimum of 1m/],
    ['PIPEWATCH_NOTICES_INTERVAL', 'often', /is not a duration/],
    ['PIPEWATCH_CAPACITY_INTERVAL', '10x', /is not a duration/],
    ['PIPEWATCH_MAX_ALERT_AGE', '10s', /below the minimum/],
    ['PIPEWATCH_API_MAX_BODY', '20', /is not a size/],
    ['PIPEWATCH_API_MAX_BODY', '2GB', /must be between 64 KB and 500 MB/],
    ['PIPEWATCH_HTTP_PORT', '70000', /between 0 and 65535/],
    ['PIPEWATCH_PIPELINES', 'transco, Texas Eastern', /"texas eastern" is not a slug/],
    ['PIPEWATCH_CAPACITY_PIPELINES', 'transco;anr', /separated by commas/],
    ['PIPEWATCH_BASELINE_PAGES', '0', /between 1 and 1000/],
    ['PIPEWATCH_BASELINE_AGE', 'forever', /is not a duration/],
    ['PIPEWATCH_RETENTION', 'forever', /is not a duration \(.*\), nor off/],
    ['PIPEWATCH_RETENTION', '2h', /below the minimum of 1d, nor off/],
    ['PIPEWATCH_HTTP_PORT', 'http', /whole number/],
    ['PIPEWATCH_HTTP_HOST', 'pipewatch.example.com', /must be an IP address .* or localhost/],
    ['PIPEWATCH_STATUS_TOKEN', 'short-token', /at least 16 characters/],
    ['PIPEWATCH_STATUS_TOKEN', 'a token with spaces in it', /no spaces/],
    ['PIPEWATCH_WEBHOOK_SECRET', 'short', /at least 16 characters/],
    ['SLACK_BOT_TOKEN', 'xoxp-user-token', /must be a bot token starting with "xoxb-"/],
    ['SLACK_SIGNING_SECRET', 'not-hex', /32 hexadecimal/],
    ['SLACK_APP_TOKEN', 'xoxb-1-2', /must be an app-level token starting with "xapp-"/],
    ['SLACK_API_URL', 'slack.com/api', /http:\/\/ or https:\/\//],
    ['DISCORD_BOT_TOKEN', 'nodots', /three dot-separated parts/],
    ['DISCORD_APPLICATION_ID', 'my-app', /snowflake/],
    ['DISCORD_PUBLIC_KEY', 'xyz', /64 hexadecimal/],
    ['DISCORD_API_URL', 'discord', /http:\/\/ or https:\/\//],
    ['PAGERDUTY_API_URL', 'events.pagerduty.com', /http:\/\/ or https:\/\//],
    ['SMTP_URL', 'http://mail.example.com', /smtp:\/\/ or smtps:\/\//],
    ['SMTP_ALLOW_PLAINTEXT', 'yes', /must be true or false/],
    ['EMAIL_FROM', 'alerts at example', /must be an email address/],
    ['EMAIL_FROM', 'pipewatch <alerts@example..com>', /must be an email address/],
    ['PIPEWATCH_EMAIL_RATE', '0', /greater than 0/],
    [
      'PIPEWATCH_OPS_TARGET',
      'slak:#ops',
      /is not a target: unknown kind 'slak' \(did you mean 'slack'\?\); write kind:value/,
    ],
    ['PIPEWATCH_HEARTBEAT_URL', 'hc-ping.com/0b1d', /must be an http:\/\/ or https:\/\/ URL/],
    ['PIPEWATCH_CHAT_ADMINS', 'U0ALICE,@bob', /"@bob" is neither/],
    ['PIPEWATCH_CHAT_SUBSCRIPTIONS_PER_CHANNEL', '0', /between 1 and 100000/],
    ['PIPEWATCH_CHAT_SUBSCRIPTIONS_PER_WORKSPACE', 'lots', /whole number/],
    ['PIPEWATCH_CHAT_REMINDERS_PER_USER', '1.5', /whole number/],
    ['PIPEWATCH_CHAT_REMINDERS_PER_WORKSPACE', '0', /between 1 and 1000000/],
    ['PIPEWATCH_CHAT_SILENCES_PER_USER', '-1', /whole number/],
    ['PIPEWATCH_CHAT_SILENCES_PER_WORKSPACE', '2000000', /between 1 and 1000000/],
    ['PIPEWATCH_PUBLIC_URL', 'pipewatch.example.com', /must be an http:\/\/ or https:\/\/ URL/],
    ['PIPEWATCH_SECRET_KEY', 'short', /at least 32 characters/],
    ['PIPEWATCH_DIGEST_WINDOW', 'soon', /is not a duration/],
    ['PIPEWATCH_DELIVERY_MAX_AGE', '10s', /below the minimum of 1m/],
    ['PIPEWATCH_DELIVERY_TIMEOUT', '0s', /below the minimum of 1s/],
    ['PIPEWATCH_DELIVERY_STUCK_AFTER', 'never', /is not a duration/],
    ['LOG_LEVEL', 'verbose', /must be one of fatal, error, warn, info, debug, trace, silent/],
  ];

  it.each(bad)(
    '%s=%s gives one line naming the variable, the problem and an example',
    (name, value, problem) => {
      const env: Record<string, string> = { [name]: value };
      if (name === 'SMTP_URL') env.EMAIL_FROM = 'alerts@example.com';
      const lines = errorsFor(env);
      expect(lines).toHaveLength(1);
      const [line] = lines as [string];
      expect(line.startsWith(`${name} `)).toBe(true);
      expect(line).toMatch(problem);
      expect(line).toContain(`(example: ${name}=`);
      expect(line).not.toContain('\n');
    },
  );

  it('covers every variable that can hold a bad value', () => {
    const tested = new Set(bad.map(([name]) => name));
    const free = [
      'PIPEWATCH_API_USER',
      'PIPEWATCH_API_KEY',
      'PIPEWATCH_DATA_DIR',
      'PIPEWATCH_RULES_DIR',
      'NO_COLOR',
      'FORCE_COLOR',
    ];
    for (const v of Object.values(VARIABLES)) {
      if (!free.includes(v.name)) expect(tested, v.name).toContain(v.name);
    }
  });

  it('shows a bad value, but never a secret one', () => {
    expect(errorsFor({ PIPEWATCH_HTTP_PORT: 'http' })[0]).toContain('got "http"');
    const secretLines = errorsFor({
      SLACK_BOT_TOKEN: 'xoxp-S3KR1T-123',
      SMTP_URL: 'http://user:S3KR1TPASS@mail',
      EMAIL_FROM: 'a@b.co',
      PIPEWATCH_WEBHOOK_SECRET: 'S3KR1Tx',
      PIPEWATCH_HEARTBEAT_URL: 'hc-ping.com/S3KR1T-check',
      PIPEWATCH_DATABASE_URL: 'mysql://pipewatch:S3KR1TPASS@db',
    });
    expect(secretLines).toHaveLength(5);
    for (const line of secretLines) {
      // A URL shows its user and host, to find what is wrong, with its password taken out.
      if (line.startsWith('SMTP_URL ')) expect(line).toContain('got "http://user:[redacted]@mail"');
      else if (line.startsWith('PIPEWATCH_DATABASE_URL '))
        expect(line).toContain('got "mysql://pipewatch:[redacted]@db"');
      else expect(line).toContain('(value hidden)');
      expect(line).not.toMatch(/S3KR1T/);
    }
  });

  it('takes a Teams workflow as the operations target', () => {
    const url = 'https://x.powerplatform.com/workflows/1/triggers/manual/paths/invoke?sig=abc123';
    expect(loadConfig({ PIPEWATCH_OPS_TARGET: `teams:${url}` }, '/').opsTarget).toEqual({
      kind: 'teams',
      url,
    });
  });

  it('takes listening addresses, a status token and SMTP_ALLOW_PLAINTEXT', () => {
    for (const host of ['0.0.0.0', '::', '::1', '10.0.0.5', 'localhost']) {
      expect(loadConfig({ PIPEWATCH_HTTP_HOST: host }, '/').httpHost).toBe(host);
    }
    const token = 'Zm9vYmFyLWJhei0xMjM0NTY3ODkw==';
    expect(loadConfig({ PIPEWATCH_STATUS_TOKEN: token }, '/').statusToken).toBe(token);
    expect(loadConfig({ SMTP_ALLOW_PLAINTEXT: 'TRUE' }, '/').email.allowPlaintext).toBe(true);
    expect(errorsFor({ PIPEWATCH_STATUS_TOKEN: 'S3KR1T with space' })[0]).toContain(
      '(value hidden)',
    );
  });

  it.each([['ignoreTLS=true'], ['requireTLS=false'], ['opportunisticTLS=true']])(
    'refuses an smtp:// login whose URL turns STARTTLS off with %s',
    (setting) => {
      const env = {
        SMTP_URL: `smtp://u:p4ss@mail.example.com:587/?${setting}`,
        EMAIL_FROM: 'a@b.co',
      };
      expect(errorsFor(env)).toEqual([
        `SMTP_URL turns STARTTLS off (${setting}) but logs in, so the password would cross the network in clear text; remove ${setting}, or set SMTP_ALLOW_PLAINTEXT=true for a local relay`,
      ]);
      expect(errorsFor({ ...env, SMTP_ALLOW_PLAINTEXT: 'true' })).toEqual([]);
      expect(errorsFor({ ...env, SMTP_URL: 'smtp://relay.local:25/?ignoreTLS=true' })).toEqual([]);
    },
  );

  it('reports every bad variable at once', () => {
    expect(
      errorsFor({ LOG_LEVEL: 'loud', PIPEWATCH_HTTP_PORT: '-1', PIPEWATCH_API_RATE: '0' }),
    ).toHaveLength(3);
  });

  it('requires the API user and key together', () => {
    expect(errorsFor({ PIPEWATCH_API_USER: 'me' })).toEqual([
      'PIPEWATCH_API_KEY is missing: PIPEWATCH_API_USER and PIPEWATCH_API_KEY go together (example: PIPEWATCH_API_KEY=your-api-key)',
    ]);
    expect(errorsFor({ PIPEWATCH_API_KEY: 'k' })[0]).toMatch(/^PIPEWATCH_API_USER is missing/);
  });

  it('requires a sender address when SMTP is configured', () => {
    expect(errorsFor({ SMTP_URL: 'smtp://mail.example.com:25' })[0]).toMatch(
      /^EMAIL_FROM is missing/,
    );
  });

  it.each([
    ['https://api.example.com/api/v1', 'https://api.example.com'],
    ['https://api.example.com/api/v1/', 'https://api.example.com'],
    ['https://gw.example.com/gas/API/V1/', 'https://gw.example.com/gas'],
  ])('stops at PIPEWATCH_API_URL=%s, saying to set %s instead', (url, instead) => {
    expect(errorsFor({ PIPEWATCH_API_URL: url })).toEqual([
      `PIPEWATCH_API_URL must not end in /api/v1: the client appends /api/v1 itself; got "${url}" (set PIPEWATCH_API_URL=${instead} instead)`,
    ]);
  });

  it('takes an API URL whose path only looks like the API version', () => {
    for (const url of ['https://api.example.com/', 'https://api.example.com/api/v10']) {
      expect(loadConfig({ PIPEWATCH_API_URL: url }, '/').api.url).toBe(url);
    }
  });

  it('treats an empty value as unset', () => {
    expect(
      loadConfig({ PIPEWATCH_NOTICES_INTERVAL: '', PIPEWATCH_API_URL: '  ' }, '/')
        .noticesIntervalMs,
    ).toBe(600_000);
  });
});

describe('environmentWithDotEnv', () => {
  it('reads .env from the working directory, and the real environment wins', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipewatch-env-'));
    writeFileSync(
      join(dir, '.env'),
      '# comment\nLOG_LEVEL=debug\nPIPEWATCH_HTTP_PORT="9090"\nPIPEWATCH_API_RATE=5\n',
    );
    const env = environmentWithDotEnv({ PIPEWATCH_API_RATE: '1' }, dir);
    const config = loadConfig(env, dir);
    expect(config.logLevel).toBe('debug');
    expect(config.httpPort).toBe(9090);
    expect(config.api.ratePerSecond).toBe(1);
  });

  it('is the plain environment when there is no .env', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipewatch-env-'));
    const env = { LOG_LEVEL: 'warn' };
    expect(environmentWithDotEnv(env, dir)).toBe(env);
  });

  it('reports a bad value that came from .env like any other', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipewatch-env-'));
    writeFileSync(join(dir, '.env'), 'PIPEWATCH_NOTICES_INTERVAL=5s\n');
    expect(() => loadConfig(environmentWithDotEnv({}, dir), dir)).toThrow(
      /PIPEWATCH_NOTICES_INTERVAL is below the minimum/,
    );
  });
});
