/**
 * `pipewatch rules test` against what a real `pipewatch run --once` stored from the
 * simulator: each verdict says what the daemon does (baseline, too old, already alerted,
 * reminders ahead, a rule that came later), `--render` shows each channel's message,
 * `--json` carries it all, and a bad `--file` gets one line and exit status 2.
 */
import { createHmac } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Rendered } from '../../src/channels/rendered.js';
import { cli } from './run-cli.js';
import {
  at,
  RUN_AT,
  RUN_RULES,
  START,
  type StoredFixture,
  sql,
  storeNotices,
  tempDir,
} from './stored-fixture.js';

const SECRET = 'a-webhook-secret-long-enough';

/** The rules of the run, and two written after it. */
const TEST_RULES = `${RUN_RULES}
  - name: transco-maintenance
    notices: { pipelines: [transco], types: [maintenance] }
    notify:
      - slack: "#gas-ops"
      - discord: "123456789012345678"
      - email: [ops@example.com]
      - webhook: https://hooks.example.com/pipewatch
  - name: transco-oac-watch
    capacity: { pipelines: [transco], locations: ["STATION 85"], oac_below: 100000 }
    notify:
      - email: [capacity@example.com]
`;

let stored: StoredFixture;
let testEnv: Record<string, string>;
let work: string;
let ids: StoredFixture['ids'];
const dir = tempDir;

beforeAll(async () => {
  stored = await storeNotices();
  ids = stored.ids;
  work = tempDir('pipewatch-rules-test-');
  testEnv = {
    ...stored.env,
    PIPEWATCH_RULES_DIR: tempDir('pipewatch-test-rules-', { 'rules.yaml': TEST_RULES }),
    PIPEWATCH_WEBHOOK_SECRET: SECRET,
  };
});
afterAll(async () => {
  await stored.close();
});

interface JsonVerdict {
  rule: string;
  outcome: string;
  fires: boolean;
  targets: string[];
  reason: string;
  deliveries: Array<{ key: string; target: string; status: string; sent_at: string | null }>;
  reminders: Array<{ before: string; status: string; due_at: string | null }>;
  rendered?: Array<Record<string, unknown>>;
}
interface JsonReport {
  now: string;
  source: string;
  notices: Array<{
    id: number;
    stored: boolean;
    baseline: boolean | null;
    verdicts: JsonVerdict[];
  }>;
  capacity: Array<{
    rule: string;
    verdicts: Array<JsonVerdict & { location: string }>;
    rendered?: unknown[];
  }>;
  summary: Array<{
    rule: string;
    outcomes: Record<string, number>;
    not_matched: Record<string, number>;
  }>;
}

const verdict = (report: JsonReport, id: number, rule: string): JsonVerdict =>
  report.notices.find((n) => n.id === id)!.verdicts.find((v) => v.rule === rule)!;

/** A rendered message of one kind, as `--json` prints it. */
type Of<K extends Rendered['kind']> = Rendered & { kind: K };

/** A notice in the API's JSON form, as `--file` takes it. */
function maintenanceFile(extra: Record<string, unknown> = {}): string {
  const file = join(work, `notice-${Object.keys(extra).join('-') || 'plain'}.json`);
  const notice = {
    id: 990001,
    pipeline_id: 1,
    pipeline_slug: 'transco',
    pipeline_name: 'Transco',
    subject: 'Planned Maintenance at Station 90',
    type: 'Planned Maintenance',
    category: 'Critical',
    status: 'Initiate',
    notice: 'Station 90 is down for maintenance.',
    html: '<p>Station 90 is <b>down</b> for maintenance.</p>',
    url: 'https://example.com/notices/990001',
    posted_at: sql(START),
    ...extra,
  };
  writeFileSync(file, JSON.stringify([notice]));
  return file;
}

describe('pipewatch rules test on stored notices', () => {
  it('says a notice that already alerted did, and where it went', async () => {
    const run = await cli(
      ['rules', 'test', '--notice', String(ids.constraint)],
      testEnv,
      at(RUN_AT),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `transco-constraints: no: already alerted: v1 → console sent ${RUN_AT.toISOString().slice(0, 19)}Z`,
    );
    expect(run.stdout).not.toMatch(/: fires/);
  });

  it('says a baseline notice never alerts as new', async () => {
    const report = JSON.parse(
      (await cli(['rules', 'test', '--json'], testEnv, at(RUN_AT))).stdout,
    ) as JsonReport;
    const baseline = report.notices.find(
      (n) =>
        n.baseline &&
        n.verdicts.some((v) => v.rule === 'transco-constraints' && v.outcome !== 'not-matched'),
    )!;
    const run = await cli(['rules', 'test', '--notice', String(baseline.id)], testEnv, at(RUN_AT));
    expect(run.stdout).toContain(
      'transco-constraints: no: baseline: stored quietly when pipewatch started watching; never alerts as new',
    );
  });

  it('says a notice posted longer ago than PIPEWATCH_MAX_ALERT_AGE is too old', async () => {
    const later = new Date(START.getTime() + 2 * 86_400_000);
    const run = await cli(
      ['rules', 'test', '--notice', String(ids.maintenance)],
      testEnv,
      at(later),
    );
    expect(run.stdout).toContain(
      `transco-maintenance: no: too old: posted ${sql(START).replace(' ', 'T')}Z, more than 1d ago; it never alerts`,
    );
  });

  it('says a rule written after the notice arrived does not alert on it', async () => {
    const run = await cli(
      ['rules', 'test', '--notice', String(ids.maintenance)],
      testEnv,
      at(RUN_AT),
    );
    expect(run.stdout).toMatch(
      /transco-maintenance: no: before the rule: no decision of this rule is recorded; .* with on: \[new\] it never alerts on this one/,
    );
  });

  it('shows the reminder schedule the daemon runs: the nearest passed offset sent, earlier skipped, later ahead', async () => {
    const run = await cli(['rules', 'test', '--notice', String(ids.ofo)], testEnv, at(RUN_AT));
    expect(run.stdout).toContain(
      'tetco-response: reminders ahead → console (response_at 2026-11-20T16:30:00Z: ' +
        '1d before: skipped: came due before the notice arrived',
    );
    expect(run.stdout).toContain('2h before: sent: console sent 2026-11-20T15:01:00Z');
    expect(run.stdout).toContain('30m before: at 2026-11-20T16:00:00Z)');

    // Once the 30 min reminder is due, the verdict fires: the next run sends it.
    const due = await cli(
      ['rules', 'test', '--notice', String(ids.ofo)],
      testEnv,
      at(new Date('2026-11-20T16:05:00Z')),
    );
    expect(due.stdout).toContain('tetco-response: fires → console (response_at');
    expect(due.stdout).toContain(
      '30m before: due since 2026-11-20T16:00:00Z: goes out at the next run',
    );
  });

  it('lists what fires or did, counts the rest by outcome, and judges the latest capacity', async () => {
    const run = await cli(['rules', 'test'], testEnv, at(RUN_AT));
    expect(run.code).toBe(0);
    const listed = run.stdout.split('\n').filter((l) => l.startsWith('#'));
    expect(listed.map((l) => Number(l.slice(1, l.indexOf(' '))))).toEqual(
      expect.arrayContaining([ids.constraint, ids.ofo, ids.maintenance]),
    );
    // And a Texas Eastern notice the baseline stored, whose response is due tomorrow: its
    // reminders are planned like any other's.
    expect(listed).toHaveLength(4);
    expect(listed.filter((l) => !l.includes('2026-11-20T15:00:00Z'))).toEqual([
      expect.stringMatching(/^#\d+ texas-eastern /),
    ]);
    expect(run.stdout).toMatch(
      /tetco-response: reminders ahead → console \(response_at 2026-11-21T17:00:00Z: 1d before: at 2026-11-20T17:00:00Z; 2h before: at 2026-11-21T15:00:00Z; 30m before: at 2026-11-21T16:30:00Z\)/,
    );
    expect(run.stdout).toMatch(
      /^ {2}transco-constraints: fires 0 · already alerted 1 · baseline \d+ · not matched \d+ \(pipelines \d+, types \d+\)$/m,
    );
    expect(run.stdout).toMatch(/^ {2}transco-maintenance: fires 0 · before the rule 1 · /m);
    expect(run.stdout).toMatch(
      /^ {2}tetco-response: fires 0 · reminders ahead 2 · matches, no alert \d+ · not matched /m,
    );
    expect(run.stdout).toMatch(
      /transco STATION 85 \(1001234\): no: already alerted: OAC 30,000 .*firing since 2026-11-20T15:01:00Z \(episode 1\) → console sent/,
    );
    expect(run.stdout).toMatch(
      /transco STATION 85 \(1001234\): fires at the next cycle → email:capacity@example\.com: OAC 30,000 below 100,000/,
    );
    expect(run.stdout).toMatch(
      /^ {2}transco-low-oac: fires at the next cycle 0 · already alerted 1 · /m,
    );
  });

  it('counts in words that agree: one location', async () => {
    const rulesDir = tempDir('pipewatch-one-location-', {
      'rules.yaml': `rules:
  - name: station-85-very-low
    capacity: { pipelines: [transco], locations: ["1001234"], oac_below: 1000 }
    notify: [{ console: true }]
`,
    });
    const run = await cli(
      ['rules', 'test'],
      { ...testEnv, PIPEWATCH_RULES_DIR: rulesDir },
      at(RUN_AT),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('  nothing below the threshold (1 location)\n');
  });

  it('--help shows the --since default as it is typed', async () => {
    const run = await cli(['rules', 'test', '--help'], {});
    expect(run.stdout).toMatch(
      /--since <duration>\s+notices posted within this long \(default: 7d\)/,
    );
    expect(run.stdout).not.toContain('604800000');
  });

  it('--json carries every notice with its verdicts, deliveries, reminders and the summary', async () => {
    const run = await cli(['rules', 'test', '--json'], testEnv, at(RUN_AT));
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as JsonReport;
    expect(report).toMatchObject({ now: '2026-11-20T15:01:00Z', source: 'stored', since: '7d' });
    expect(verdict(report, ids.constraint, 'transco-constraints')).toMatchObject({
      outcome: 'alerted',
      fires: false,
      deliveries: [
        {
          key: `transco-constraints|notice:${ids.constraint}:v1|console`,
          status: 'sent',
          sent_at: '2026-11-20T15:01:00Z',
        },
      ],
    });
    expect(verdict(report, ids.ofo, 'tetco-response')).toMatchObject({
      outcome: 'scheduled',
      fires: true,
      targets: ['console'],
      reminders: [
        { before: '1d', status: 'skipped' },
        { before: '2h', status: 'sent' },
        { before: '30m', status: 'scheduled', due_at: '2026-11-20T16:00:00Z' },
      ],
    });
    expect(verdict(report, ids.maintenance, 'transco-maintenance').outcome).toBe('not-in-force');
    expect(report.summary.find((s) => s.rule === 'transco-constraints')).toMatchObject({
      outcomes: { alerted: 1 },
      not_matched: { pipelines: expect.any(Number) },
    });
    const watch = report.capacity.find((c) => c.rule === 'transco-oac-watch')!;
    expect(watch.verdicts.map((v) => v.outcome)).toEqual(['next-cycle', 'next-cycle']);
  });
});

describe('pipewatch rules test on rules that can never match', () => {
  const NEVER_RULES = `rules:
  - name: typo-oac
    capacity: { pipelines: [transco], locations: ["STATION 58"], oac_below: 50000 }
    notify: [{ console: true }]
  - name: half-typo-oac
    capacity: { pipelines: [transco], locations: ["STATION 58", "station 85"], oac_below: 50000 }
    notify: [{ console: true }]
  - name: typo-notices
    notices: { pipelines: [transcoo] }
    notify: [{ console: true }]
`;

  it('says so in the capacity section and the summary, with the name meant', async () => {
    const env = {
      ...stored.env,
      PIPEWATCH_RULES_DIR: tempDir('pipewatch-never-rules-', { 'rules.yaml': NEVER_RULES }),
    };
    const run = await cli(['rules', 'test'], env, at(RUN_AT));
    expect(run.code).toBe(0);
    const never =
      "location 'STATION 58' matches no location of transco — did you mean 'STATION 85'?";
    expect(run.stdout).toContain(
      `typo-oac (capacity below 50,000 Dth; latest stored cycles: transco`,
    );
    expect(run.stdout).toMatch(new RegExp(`\\):\\n {2}can never match: ${literal(never)}\\n`));
    expect(run.stdout).not.toMatch(/nothing below the threshold \(0 locations\)/);
    expect(run.stdout).toMatch(
      new RegExp(
        `^ {2}typo-oac: fires at the next cycle 0 · can never match: ${literal(never)}$`,
        'm',
      ),
    );
    expect(run.stdout).toMatch(
      new RegExp(`^ {2}half-typo-oac: .* · part of it never matches: ${literal(never)}$`, 'm'),
    );
    expect(run.stdout).toMatch(
      /^ {2}typo-notices: fires 0 · not matched \d+ \(pipelines \d+\) · can never match: pipeline 'transcoo' is not tracked by the API — did you mean 'transco'\?$/m,
    );

    const json = JSON.parse((await cli(['rules', 'test', '--json'], env, at(RUN_AT))).stdout) as {
      summary: Array<{ rule: string; can_never_match: boolean; never_matches: string[] }>;
    };
    const of = (rule: string) => json.summary.find((s) => s.rule === rule);
    expect(of('typo-oac')).toMatchObject({ can_never_match: true, never_matches: [never] });
    expect(of('half-typo-oac')).toMatchObject({ can_never_match: false, never_matches: [never] });
    expect(of('typo-notices')).toMatchObject({ can_never_match: true });
  });
});

/** `text` as a literal part of a pattern. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('pipewatch rules test --file and --render', () => {
  it('judges a notice from a file as new and renders each target exactly', async () => {
    const htmlDir = join(work, 'html');
    const run = await cli(
      ['rules', 'test', '--file', maintenanceFile(), '--render', '--render-dir', htmlDir, '--json'],
      testEnv,
      at(RUN_AT),
    );
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as JsonReport;
    expect(report.source).toBe('file');
    expect(report.notices[0]).toMatchObject({ id: 990001, stored: false, baseline: null });
    const v = verdict(report, 990001, 'transco-maintenance');
    expect(v).toMatchObject({ outcome: 'fires', fires: true });
    expect(v.reason).toContain('judged as new (the notice is not stored)');
    const [slack, discord, email, webhook] = v.rendered! as [
      Of<'slack'>,
      Of<'discord'>,
      Of<'email'> & { html_file: string },
      Of<'webhook'>,
    ];
    expect(slack).toMatchObject({
      kind: 'slack',
      target: 'slack:#gas-ops',
      method: 'chat.postMessage',
      arguments: {
        channel: '#gas-ops',
        text: expect.stringContaining('Planned Maintenance at Station 90'),
      },
    });
    expect(slack.arguments.blocks[0]).toMatchObject({ type: 'header' });
    expect(discord).toMatchObject({
      kind: 'discord',
      route: 'POST /channels/123456789012345678/messages',
      body: {
        allowed_mentions: { parse: [] },
        enforce_nonce: true,
        embeds: [
          {
            title: expect.stringContaining('Station 90'),
            url: 'https://example.com/notices/990001',
          },
        ],
      },
    });
    expect(discord.body.nonce).toMatch(/^[\w-]{25}$/);
    expect(email).toMatchObject({
      kind: 'email',
      to: ['ops@example.com'],
      subject: expect.stringContaining('Planned Maintenance at Station 90'),
      text: expect.stringContaining('Station 90 is down for maintenance.'),
    });
    expect(email).not.toHaveProperty('html');
    expect(email.html_file.startsWith(htmlDir)).toBe(true);
    const html = readFileSync(email.html_file, 'utf8');
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain('<b>down</b>');
    const request = webhook.requests[0]!;
    expect(request).toMatchObject({
      method: 'POST',
      url: 'https://hooks.example.com/pipewatch',
      body: {
        version: 1,
        kind: 'notice',
        state: 'new',
        rule: 'transco-maintenance',
        sent_at: '2026-11-20T15:01:00Z',
      },
    });
    const body = JSON.stringify(request.body);
    const t = RUN_AT.getTime() / 1000;
    const hmac = (text: string) => createHmac('sha256', SECRET).update(text).digest('hex');
    expect(request.headers['x-pipewatch-signature-v1']).toBe(`t=${t},v1=${hmac(`${t}.${body}`)}`);
    expect(request.headers['x-pipewatch-signature']).toBe(`sha256=${hmac(body)}`);
    expect(request.headers['content-type']).toBe('application/json');
    expect(verdict(report, 990001, 'transco-constraints').rendered).toEqual([]);
  });

  it('plans reminders as the daemon does: the nearest passed offset at once, earlier skipped, later at their time', async () => {
    const file = maintenanceFile({
      pipeline_slug: 'texas-eastern',
      type: 'Operational Flow Order',
      response_at: sql(new Date(RUN_AT.getTime() + 90 * 60_000)),
    });
    const run = await cli(['rules', 'test', '--file', file], testEnv, at(RUN_AT));
    expect(run.stdout).toContain(
      'tetco-response: fires → console (judged as new (the notice is not stored): response_at 2026-11-20T16:31:00Z: ' +
        '1d before: skipped: its time had passed; the 2h reminder says it; ' +
        '2h before: at once, due in 1 h 30 min (its time had passed); ' +
        '30m before: at 2026-11-20T16:01:00Z)',
    );
    const early = await cli(
      ['rules', 'test', '--file', file],
      testEnv,
      at(new Date('2026-11-19T12:00:00Z')),
    );
    expect(early.stdout).toContain(
      'tetco-response: reminders ahead → console (judged as new (the notice is not stored): response_at 2026-11-20T16:31:00Z: 1d before: at 2026-11-19T16:31:00Z;',
    );
    const late = await cli(
      ['rules', 'test', '--file', file],
      testEnv,
      at(new Date('2026-11-20T16:40:00Z')),
    );
    expect(late.stdout).toContain(
      'tetco-response: no: matches, but response_at 2026-11-20T16:31:00Z has passed',
    );
  });

  it('prints the rendered messages for people, with the path of the HTML part', async () => {
    const run = await cli(
      ['rules', 'test', '--file', maintenanceFile(), '--render'],
      testEnv,
      at(RUN_AT),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('from ');
    expect(run.stdout).toContain('not stored, so judged as new');
    expect(run.stdout).toContain('→ slack:#gas-ops: chat.postMessage');
    expect(run.stdout).toContain(
      '→ discord:123456789012345678: POST /channels/123456789012345678/messages',
    );
    expect(run.stdout).toContain(
      'Subject: [Transco] Planned Maintenance: Planned Maintenance at Station 90',
    );
    expect(run.stdout).toMatch(/x-pipewatch-signature-v1: t=\d+,v1=[0-9a-f]{64}/);
    const path = /HTML part: (\S+\.html)/.exec(run.stdout)?.[1];
    expect(path && existsSync(path)).toBe(true);
  });

  it('renders the capacity alert that fires at the next cycle, its locations together', async () => {
    const run = await cli(['rules', 'test', '--render', '--json'], testEnv, at(RUN_AT));
    const report = JSON.parse(run.stdout) as JsonReport;
    const watch = report.capacity.find((c) => c.rule === 'transco-oac-watch')!;
    expect(watch.rendered).toEqual([
      expect.objectContaining({
        kind: 'email',
        to: ['capacity@example.com'],
        subject: expect.stringContaining('2 locations'),
      }),
    ]);
  });
});

describe('pipewatch rules test, bad input', () => {
  it('names the notice and the field a file lacks, in one line, exit 2', async () => {
    const file = join(work, 'F.json');
    writeFileSync(file, JSON.stringify([{ id: 5, pipeline_slug: 'transco', subject: 'x' }]));
    const run = await cli(['rules', 'test', '--file', 'F.json'], testEnv, {
      ...at(RUN_AT),
      cwd: work,
    });
    expect(run).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'pipewatch: F.json: notice 1: missing pipeline_id\n',
    });
  });

  it('says a file is not JSON, or not there, in one line each', async () => {
    writeFileSync(join(work, 'bad.json'), '{"id": 5,');
    const bad = await cli(['rules', 'test', '--file', 'bad.json'], testEnv, {
      ...at(RUN_AT),
      cwd: work,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^pipewatch: bad\.json: not valid JSON \(.+\)\n$/);
    const missing = await cli(['rules', 'test', '--file', 'nope.json'], testEnv, {
      ...at(RUN_AT),
      cwd: work,
    });
    expect(missing).toMatchObject({ code: 2, stderr: 'pipewatch: nope.json: no such file\n' });
  });

  it('turns an unexpected failure into one line; the stack only at LOG_LEVEL=debug', async () => {
    const data = dir('pipewatch-broken-db-', { 'pipewatch.db': 'this is not a database' });
    const run = await cli(['rules', 'test'], { ...testEnv, PIPEWATCH_DATA_DIR: data }, at(RUN_AT));
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('pipewatch: file is not a database\n');
    const debug = await cli(
      ['rules', 'test'],
      { ...testEnv, PIPEWATCH_DATA_DIR: data, LOG_LEVEL: 'debug' },
      at(RUN_AT),
    );
    expect(debug.stderr).toMatch(/^pipewatch: file is not a database\n.*\n\s+at /);
  });
});
