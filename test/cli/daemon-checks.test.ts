import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { unconfiguredOpsTarget, unconfiguredTargets } from '../../src/cli/daemon-checks.js';
import { loadConfig } from '../../src/config/index.js';
import { Channels } from '../../src/delivery/channels.js';
import type { Target } from '../../src/domain/targets.js';
import { silentLogger } from '../../src/lib/logger.js';
import { parseRuleFile } from '../../src/rules/loader.js';
import { formatProblem } from '../../src/rules/types.js';
import { ManualClock } from '../support/clock.js';

const SLACK = { SLACK_BOT_TOKEN: 'xoxb-1234-5678-abcdef' };
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0)) await fn();
});

/** The channels a daemon builds from `env`. */
async function channels(env: Record<string, string> = {}): Promise<Channels> {
  const config = loadConfig(env, mkdtempSync(join(tmpdir(), 'pipewatch-checks-')));
  const built = await Channels.create(
    config,
    { clock: new ManualClock(), logger: silentLogger },
    { print: () => {} },
  );
  cleanup.push(() => built.close());
  return built;
}

describe('unconfiguredOpsTarget', () => {
  it.each<[string, Target | undefined, Record<string, string>, boolean, string | undefined]>([
    ['no ops target', undefined, {}, false, undefined],
    ['console needs nothing', { kind: 'console' }, {}, false, undefined],
    [
      'a webhook needs nothing',
      { kind: 'webhook', url: 'https://h.example.com/x' },
      {},
      false,
      undefined,
    ],
    [
      'Slack without its token',
      { kind: 'slack', channel: '#ops' },
      {},
      false,
      'PIPEWATCH_OPS_TARGET sends to slack, but SLACK_BOT_TOKEN is not set',
    ],
    [
      'email without its two settings',
      { kind: 'email', to: ['ops@example.com'] },
      {},
      false,
      'PIPEWATCH_OPS_TARGET sends to email, but SMTP_URL and EMAIL_FROM are not set',
    ],
    ['Slack with its token', { kind: 'slack', channel: '#ops' }, SLACK, false, undefined],
    ['Slack printed in its stead', { kind: 'slack', channel: '#ops' }, {}, true, undefined],
  ])('%s', async (_name, ops, env, standIn, expected) => {
    expect(unconfiguredOpsTarget(ops, await channels(env), standIn)).toBe(expected);
  });
});

describe('unconfiguredTargets', () => {
  const { rules } = parseRuleFile(
    `rules:
  - name: everywhere
    notices: {}
    notify:
      - slack: "#a"
      - slack: "#b"
      - discord: "123456789012345678"
      - console: true
  - name: quiet
    notices: {}
    notify:
      - console: true
`,
    'r.yaml',
  );

  it('names each rule and channel without credentials once, at the rule', async () => {
    expect(unconfiguredTargets(rules, await channels()).map(formatProblem)).toEqual([
      "r.yaml:2:5: rule 'everywhere' sends to slack, but SLACK_BOT_TOKEN is not set",
      "r.yaml:2:5: rule 'everywhere' sends to discord, but DISCORD_BOT_TOKEN is not set",
    ]);
  });

  it('leaves out the channels whose credentials are set', async () => {
    expect(unconfiguredTargets(rules, await channels(SLACK)).map(formatProblem)).toEqual([
      "r.yaml:2:5: rule 'everywhere' sends to discord, but DISCORD_BOT_TOKEN is not set",
    ]);
  });
});
