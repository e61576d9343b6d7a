/**
 * SMTP_URL with a password full of reserved characters: each way an unencoded one cuts
 * the URL short is refused with the percent-encoding rule and the value shown without
 * its password, a `.env` file's comment included; encoded, or where the URL parser
 * reads it whole (`@`, `:`), the same password is taken and decoded.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, readEnvironment, secretValues } from '../../src/config/index.js';
import { shownPostgresUrl } from '../../src/config/smtp-url.js';

const RULE =
  'reserved characters in the user name or password must be percent-encoded (/ as %2F, # as %23, ? as %3F, @ as %40, : as %3A, % as %25)';
const EXAMPLE = '(example: SMTP_URL=smtps://user:password@smtp.example.com:465)';
const NOT_A_URL = `SMTP_URL is not a valid URL; ${RULE}`;
const CUT = `SMTP_URL is cut short by a reserved character in the user name or password, so the host read is not the one after the last @; ${RULE}`;

function errorsFor(env: Record<string, string>): string[] {
  try {
    loadConfig({ EMAIL_FROM: 'alerts@example.com', ...env }, '/srv/pipewatch');
  } catch (error) {
    if (error instanceof ConfigError) return error.lines;
    throw error;
  }
  return [];
}

describe('SMTP_URL with reserved characters in the password', () => {
  it.each([
    // `/` starts the path: the host would be `alerts`, the port `sK3`.
    ['sK3/cK3#eK3', 'smtp', ':587', NOT_A_URL],
    // `?` starts the query, the same way.
    ['sK3?cK3', 'smtp', ':587', NOT_A_URL],
    // `#` after digits: host `alerts`, port 12, the rest a fragment.
    ['12#cK3', 'smtp', ':587', CUT],
    ['12?cK3', 'smtps', '', CUT],
    ['12/cK3', 'smtp', '', CUT],
    // An `@` and then a `#`: host `sK3`, a piece of the password.
    ['pK3@sK3#wK3', 'smtp', '', CUT],
  ])(
    'refuses the password %s left unencoded, naming the rule and never the password',
    (password, scheme, port, problem) => {
      const url = `${scheme}://alerts:${password}@mail.example.com${port}`;
      const lines = errorsFor({ SMTP_URL: url });
      expect(lines).toEqual([
        `${problem}; got "${scheme}://alerts:[redacted]@mail.example.com${port}" ${EXAMPLE}`,
      ]);
      expect(lines[0]).not.toMatch(/K3|:12\b/);
    },
  );

  it('refuses a / in the user name: the host read is a piece of it', () => {
    expect(errorsFor({ SMTP_URL: 'smtp://ops/alerts:S3KR1T@mail.example.com' })).toEqual([
      `${CUT}; got "smtp://ops/alerts:[redacted]@mail.example.com" ${EXAMPLE}`,
    ]);
  });

  it('refuses a % that starts no escape, which the channel could not decode', () => {
    expect(errorsFor({ SMTP_URL: 'smtp://alerts:50%off-S3KR1T@mail.example.com:587' })).toEqual([
      `SMTP_URL is not percent-encoded: a % in the user name or password is not followed by two hexadecimal digits; ${RULE}; got "smtp://alerts:[redacted]@mail.example.com:587" ${EXAMPLE}`,
    ]);
  });

  it('says so when a .env file took the # of a password for a comment', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipewatch-smtp-'));
    writeFileSync(
      join(dir, '.env'),
      'SMTP_URL=smtp://alerts:S3KR1Tcr#et@mail.example.com:587\nEMAIL_FROM=alerts@example.com\n',
    );
    const { env } = readEnvironment({}, dir);
    expect(env.SMTP_URL).toBe('smtp://alerts:S3KR1Tcr');
    expect(errorsFor(env as Record<string, string>)).toEqual([
      `${NOT_A_URL}; got "smtp://alerts:[redacted]" ${EXAMPLE}`,
    ]);
  });

  it('shows no password that doubles as the user name, nor what follows the host', () => {
    const [line] = errorsFor({
      SMTP_URL: 'smtp://T0KEN-9f8e:T0KEN-9f8e@mail.example.com:5870000/?auth.pass=S3KR1T',
    });
    expect(line).toContain('got "smtp://[redacted]:[redacted]@mail.example.com:5870000…"');
    expect(line).not.toMatch(/T0KEN|S3KR1T/);
  });

  it('keeps the plain message for what is no SMTP URL at all', () => {
    expect(errorsFor({ SMTP_URL: 'smtp://mail.example.com:99999' })).toEqual([
      `SMTP_URL must be an smtp:// or smtps:// URL with a host; got "smtp://mail.example.com:99999" ${EXAMPLE}`,
    ]);
    expect(errorsFor({ SMTP_URL: 'http://user:S3KR1TPASS@mail' })).toEqual([
      `SMTP_URL must be an smtp:// or smtps:// URL with a host; got "http://user:[redacted]@mail" ${EXAMPLE}`,
    ]);
  });

  it.each([
    ['percent-encoded', 'smtp://alerts:se%2Fcr%23et%401%3A%25@mail.example.com:587'],
    ['an @ and a : as they are', 'smtp://alerts:se%2Fcr%23et@1:%25@mail.example.com:587'],
  ])('takes the password %s and decodes it for scrubbing', (_how, url) => {
    const config = loadConfig({ SMTP_URL: url, EMAIL_FROM: 'alerts@example.com' }, '/srv');
    expect(config.email.smtpUrl).toBe(url);
    expect(secretValues(config)).toContain('se/cr#et@1:%');
  });

  it('takes a user name that is an email address, its @ as it is', () => {
    const url = 'smtps://alerts@example.com:pa55word@mail.example.com:465';
    expect(errorsFor({ SMTP_URL: url })).toEqual([]);
  });
});

describe('PIPEWATCH_DATABASE_URL as logs and errors show it', () => {
  it('keeps the database name, and hides the password wherever it is', () => {
    expect(shownPostgresUrl('postgres://pipewatch:s3cret@db.example.com:5432/alerts')).toBe(
      'postgres://pipewatch:[redacted]@db.example.com:5432/alerts',
    );
    expect(
      shownPostgresUrl(
        'postgresql://pipewatch@db.example.com/alerts?password=s3cret&sslmode=require',
      ),
    ).toBe('postgresql://pipewatch@db.example.com/alerts?…');
    expect(shownPostgresUrl('postgres://pipewatch:se/cr#et@db')).not.toContain('cr#et');
  });

  it('is scrubbed, with its password, from what delivery records', () => {
    const config = loadConfig(
      { PIPEWATCH_DATABASE_URL: 'postgres://pipewatch:p%40ss%2Fword@db.example.com/alerts' },
      '/',
    );
    expect(secretValues(config)).toContain('p@ss/word');
  });
});
