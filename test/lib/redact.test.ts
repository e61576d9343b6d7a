/**
 * The one redaction every outgoing string passes through: the secrets pipewatch was
 * given, wherever they appear (also percent-encoded, as in a URL), and what looks like a
 * credential even when it was not given.
 */
import { describe, expect, it } from 'vitest';
import { REDACTED, redactor, redactPatterns } from '../../src/lib/redact.js';

describe('redactor', () => {
  it('replaces each given secret wherever it appears, also percent-encoded', () => {
    const redact = redactor(['s3cr3t-key', 'p@ss/word', undefined, '']);
    expect(redact('key s3cr3t-key, again s3cr3t-key')).toBe(`key ${REDACTED}, again ${REDACTED}`);
    expect(redact('smtp://alerts:p%40ss%2Fword@smtp.example.com')).toBe(
      `smtp://alerts:${REDACTED}@smtp.example.com`,
    );
    expect(redact('the password p@ss/word')).toBe(`the password ${REDACTED}`);
  });

  it('replaces a longer secret whole when it contains a shorter one', () => {
    const redact = redactor(['abcd', 'abcdefgh-long']);
    expect(redact('token abcdefgh-long')).toBe(`token ${REDACTED}`);
  });

  it('ignores secrets too short to tell from ordinary words', () => {
    expect(redactor(['abc'])('abc def')).toBe('abc def');
  });

  it('replaces credentials by their form, given or not', () => {
    expect(redactPatterns('https://user:hunter2@hooks.example.com/x')).toBe(
      `https://user:${REDACTED}@hooks.example.com/x`,
    );
    expect(redactPatterns('invalid_auth for xoxb-1234-5678-abcdefABCDEF')).toBe(
      `invalid_auth for ${REDACTED}`,
    );
    expect(redactPatterns('app token xapp-1-A123-456-abcdef')).toBe(`app token ${REDACTED}`);
    expect(redactPatterns('invalid_auth_for_xoxb-1-2-abc')).toBe(`invalid_auth_for_${REDACTED}`);
    expect(redactPatterns('Authorization: Basic cGlwZXdhdGNoOnNpbS1rZXk=')).toBe(
      `Authorization: Basic ${REDACTED}`,
    );
    expect(redactPatterns('Bearer abcdefghijklmnop.qrs')).toBe(`Bearer ${REDACTED}`);
    expect(
      redactPatterns('bot MTIzNDU2Nzg5MDEyMzQ1Njc4OTA.GhIjKl.abcdefghijklmnopqrstuvwxyz01234 ok'),
    ).toBe(`bot ${REDACTED} ok`);
    // A PagerDuty integration key, which rule files hold: as a target, and in an event.
    expect(redactPatterns('dead: pagerduty:R0UT1NGKEYR0UT1NGKEYR0UT1NGK9a1b (400)')).toBe(
      'dead: pagerduty:…9a1b (400)',
    );
    expect(redactPatterns('{"routing_key":"R0UT1NGKEYR0UT1NGKEYR0UT1NGK9a1b","x":1}')).toBe(
      `{"routing_key":"${REDACTED}","x":1}`,
    );
    const workflow =
      'https://default0a1b.2c.environment.api.powerplatform.com:443/powerautomate/automations/direct/workflows/0c1d/triggers/manual/paths/invoke?api-version=1&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=Wq3v8kTz0pL2xYc7RbN5mD1sFh9gJ4aE6uI-oK_tQ0w';
    expect(redactPatterns(`POST ${workflow} failed`)).toBe(
      `POST ${workflow.replace(/sig=.*/, `sig=${REDACTED}`)} failed`,
    );
    expect(redactPatterns('"url":"https://x.logic.azure.com/w?sv=1.0&amp;sig=abc-DEF_123"')).toBe(
      `"url":"https://x.logic.azure.com/w?sv=1.0&amp;sig=${REDACTED}"`,
    );
  });

  it('leaves ordinary text alone', () => {
    const text =
      'slack: channel_not_found (#gas-constraints); WWW-Authenticate: Bearer realm="pipewatch"; https://hooks.example.com/a/b';
    expect(redactPatterns(text)).toBe(text);
  });
});
