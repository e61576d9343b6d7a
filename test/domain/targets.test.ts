/**
 * Targets written on one line, as people type them: the kind in any case, and for what
 * is not a target, a message saying what was most likely meant.
 */
import { describe, expect, it } from 'vitest';
import { keyLabel, parseTarget, targetLabel } from '../../src/domain/targets.js';

describe('parseTarget', () => {
  it.each([
    ['slack:#ops', { kind: 'slack', channel: '#ops' }],
    ['Slack:#ops', { kind: 'slack', channel: '#ops' }],
    ['slack-dm:U0123ABCD', { kind: 'slack_dm', user: 'U0123ABCD' }],
    [
      'EMAIL:a@example.com, b@example.com',
      { kind: 'email', to: ['a@example.com', 'b@example.com'] },
    ],
    ['Console', { kind: 'console' }],
    [
      'PagerDuty:R0UT1NGKEYR0UT1NGKEYR0UT1NGK9a1b',
      { kind: 'pagerduty', routingKey: 'R0UT1NGKEYR0UT1NGKEYR0UT1NGK9a1b' },
    ],
    [
      'teams:https://x.powerplatform.com/workflows/1/triggers/manual/paths/invoke?sig=s3cret',
      {
        kind: 'teams',
        url: 'https://x.powerplatform.com/workflows/1/triggers/manual/paths/invoke?sig=s3cret',
      },
    ],
  ])('%s', (text, target) => {
    expect(parseTarget(text)).toEqual(target);
  });

  it.each([
    ['slack', 'slack needs a channel: slack:#ops or slack:C0123ABCD'],
    ['EMAIL', 'email needs an address: email:ops@example.com (or several, comma-separated)'],
    ['console:yes', 'console takes no value: write console alone'],
    ['#ops', "'#ops' has no kind: write slack:#ops"],
    [
      'ops@example.com',
      "'ops@example.com' has no kind: write email:ops@example.com (or slack_dm:ops@example.com for a Slack direct message)",
    ],
    [
      '123456789012345678',
      "'123456789012345678' has no kind: write discord:123456789012345678 for a channel, discord_dm:123456789012345678 for a user",
    ],
    ['https://hooks.example.com/T0/B0/s3cret', 'a URL alone has no kind: write webhook: before it'],
    [
      'https://x.westus.logic.azure.com:443/workflows/1/triggers/manual/paths/invoke?sig=s3cret',
      "a URL alone has no kind: write teams: before a Teams workflow's URL",
    ],
    ['teams', "teams needs a workflow's URL: teams:https://….powerplatform.com/…"],
    ['teams:not a url', 'teams: '],
    [
      'discrod:123456789012345678',
      "unknown kind 'discrod' (did you mean 'discord'?); write kind:value with one of slack, slack_dm, discord, discord_dm, email, webhook, teams, pagerduty, or console",
    ],
    [
      'constructor',
      "unknown kind 'constructor'; write kind:value with one of slack, slack_dm, discord, discord_dm, email, webhook, teams, pagerduty, or console",
    ],
    ['pagerduty', 'pagerduty needs an integration key: pagerduty:<32-character Events API v2 key>'],
    [
      'pagerduty:R0UT1NGKEYR0UT1NGKEYR0UT1',
      'pagerduty: must be the 32-character integration key of an Events API v2 integration',
    ],
    [`${'x'.repeat(100)}:y`, `unknown kind '${'x'.repeat(59)}…'; write kind:value`],
  ])('%s: %s', (text, message) => {
    expect(() => parseTarget(text)).toThrow(message);
  });
});

describe('targetLabel', () => {
  it('shows a Teams workflow by scheme and host, never its path or signature', () => {
    const url =
      'https://x.powerplatform.com:443/powerautomate/workflows/1/invoke?sv=1.0&sig=s3cret';
    const target = parseTarget(`teams:${url}`);
    expect(targetLabel(target)).toBe('teams:https://x.powerplatform.com/…');
    expect(keyLabel(`rule|notice:1:v1|teams:${url}`, target)).toBe(
      'rule|notice:1:v1|teams:https://x.powerplatform.com/…',
    );
  });
});

describe('a PagerDuty target as it may be shown', () => {
  it('never shows its integration key, only its last 4 characters', () => {
    const target = parseTarget('pagerduty:R0UT1NGKEYR0UT1NGKEYR0UT1NGK9a1b');
    expect(targetLabel(target)).toBe('pagerduty:…9a1b');
    expect(keyLabel('rule|notice:1:v1|pagerduty:R0UT1NGKEYR0UT1NGKEYR0UT1NGK9a1b', target)).toBe(
      'rule|notice:1:v1|pagerduty:…9a1b',
    );
  });

  it('a wrong key is refused without being echoed', () => {
    expect(() => parseTarget('pagerduty:s3cretbutshort')).toThrow(
      /^pagerduty: must be the 32-character/,
    );
    expect(() => parseTarget('pagerduty:s3cretbutshort')).not.toThrow(/s3cret/);
  });
});
