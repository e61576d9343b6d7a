/** Discord rendering: limits whatever the input, colours, times, links and neutralised text. */
import { describe, expect, it } from 'vitest';
import {
  COLOURS,
  type DiscordMessage,
  escapeMarkdown,
  fitEmbeds,
  neutraliseMentions,
  nonceFor,
  renderMessage,
  supersededEmbed,
} from '../../../src/channels/discord/render.js';
import { localTime } from '../../../src/channels/text.js';
import { LONG_BODY } from '../../../src/simulator/anchors.js';
import {
  capacityAlert,
  deadlineAlert,
  hostileAlerts,
  location,
  noticeAlert,
  updatedAlert,
} from '../../fakes/alerts.js';

const NOW = '2026-11-20T15:00:00Z';
const unix = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** Every Discord limit, counted here independently of the renderer. */
function expectWithinLimits(m: DiscordMessage): void {
  expect(m.allowed_mentions).toEqual({ parse: [] });
  expect(m.embeds.length).toBeGreaterThan(0);
  expect(m.embeds.length).toBeLessThanOrEqual(10);
  expect(m.content?.length ?? 0).toBeLessThanOrEqual(2000);
  let total = 0;
  for (const e of m.embeds) {
    const fields = e.fields ?? [];
    expect(e.title?.length ?? 0).toBeLessThanOrEqual(256);
    expect(e.description?.length ?? 0).toBeLessThanOrEqual(4096);
    expect(e.footer?.text.length ?? 0).toBeLessThanOrEqual(2048);
    expect(e.author?.name.length ?? 0).toBeLessThanOrEqual(256);
    expect(fields.length).toBeLessThanOrEqual(25);
    for (const f of fields) {
      expect(f.name.length).toBeGreaterThan(0);
      expect(f.name.length).toBeLessThanOrEqual(256);
      expect(f.value.length).toBeGreaterThan(0);
      expect(f.value.length).toBeLessThanOrEqual(1024);
      total += f.name.length + f.value.length;
    }
    total += (e.title?.length ?? 0) + (e.description?.length ?? 0);
    total += (e.footer?.text.length ?? 0) + (e.author?.name.length ?? 0);
  }
  expect(total).toBeLessThanOrEqual(6000);
}

function longAlert(i: number) {
  return noticeAlert(
    {
      id: 5000 + i,
      subject: `${'Very long subject '.repeat(30)}${i}`,
      html: LONG_BODY.html,
      notice: '',
      category: 'Critical'.repeat(40),
      type: 'Type '.repeat(80),
      status: 'Status '.repeat(200),
      identifier: '#'.repeat(300),
      response_at: '2026-11-21T14:00:00Z',
    },
    `long|notice:${5000 + i}:v1|discord:1`,
  );
}

const manyLocations = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    location({
      id: i,
      location: `${'STATION '.repeat(i % 2 === 0 ? 40 : 1)}${i}`,
      identifier: `${1000 + i}`,
      reason: 'x'.repeat(900),
    }),
  );

describe('limits', () => {
  it('keeps each hostile alert, and all of them as one digest, within every limit', () => {
    for (const a of hostileAlerts()) expectWithinLimits(renderMessage([a], NOW));
    expectWithinLimits(renderMessage(hostileAlerts(), NOW));
  });

  it('fits a digest of 10 long alerts into 6,000 characters, one embed per alert', () => {
    const alerts = Array.from({ length: 10 }, (_, i) => longAlert(i));
    const single = renderMessage([alerts[0]!], NOW);
    expectWithinLimits(single);
    expect(single.embeds[0]!.description!.length).toBeGreaterThan(3000);
    const digest = renderMessage(alerts, NOW);
    expectWithinLimits(digest);
    expect(digest.embeds).toHaveLength(10);
    expect(digest.content).toBe('**10 pipewatch alerts**');
    for (const e of digest.embeds) expect(e.title).toMatch(/^Capacity Constraint|^Type/);
  });

  it('shows many locations as one table, cut by whole rows, alone and in a full digest', () => {
    const fences = (e: { description?: string }) => e.description!.split('```').length - 1;
    const one = renderMessage([capacityAlert(manyLocations(300))], NOW);
    expectWithinLimits(one);
    expect(one.embeds).toHaveLength(1);
    expect(one.embeds[0]!.title).toBe(
      'Low OAC at 300 locations — timely cycle, gas day 2026-11-21',
    );
    expect(fences(one.embeds[0]!)).toBe(2);
    const hidden = Number(/…and (\d+) more locations$/.exec(one.embeds[0]!.description!)![1]);
    const rows = one.embeds[0]!.description!.split('\n').filter((l) => /^STATION/.test(l));
    expect(rows.length + hidden).toBe(300);
    expect(rows.length).toBeGreaterThan(40);
    const ten = Array.from({ length: 10 }, () => capacityAlert(manyLocations(30)));
    const merged = renderMessage(ten, NOW);
    expectWithinLimits(merged);
    expect(merged.embeds).toHaveLength(1);
    expect(merged.embeds[0]!.title).toMatch(/^Low OAC at 300 locations/);
    const crowded = renderMessage(
      [capacityAlert(manyLocations(300)), ...Array.from({ length: 9 }, (_, i) => longAlert(i))],
      NOW,
    );
    expectWithinLimits(crowded);
    const table = crowded.embeds[0]!;
    expect(fences(table)).toBe(2);
    expect(table.description).toMatch(/```\n…and \d+ more locations$/);
    const shown = table.description!.split('\n').filter((l) => /^STATION/.test(l)).length;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(rows.length);
  });

  it('re-fits embeds after they are marked superseded', () => {
    const digest = renderMessage(
      Array.from({ length: 10 }, (_, i) => longAlert(i)),
      NOW,
    );
    expectWithinLimits({ ...digest, embeds: fitEmbeds(digest.embeds.map(supersededEmbed)) });
  });
});

describe('layout', () => {
  it('colours notices by category and capacity alerts by state', () => {
    const colour = (a: Parameters<typeof renderMessage>[0][number]) =>
      renderMessage([a], NOW).embeds[0]!.color;
    expect(colour(noticeAlert({ category: 'Critical' }))).toBe(COLOURS.critical);
    expect(colour(noticeAlert({ category: 'CRITICAL' }))).toBe(COLOURS.critical);
    expect(colour(noticeAlert({ category: 'Non-Critical' }))).toBe(COLOURS.nonCritical);
    expect(colour(noticeAlert({ category: 'Informational' }))).toBe(COLOURS.other);
    expect(colour(capacityAlert())).toBe(COLOURS.lowCapacity);
    expect(colour(capacityAlert([location({ oac: 90_000 })], 'resolved'))).toBe(COLOURS.resolved);
    expect(supersededEmbed({ color: 1, footer: { text: 'x' } }).color).toBe(COLOURS.superseded);
  });

  it('links the notice over http(s) only and stamps the send time', () => {
    const [e] = renderMessage([noticeAlert()], NOW).embeds;
    expect(e!.url).toBe('https://www.1line.williams.com/xhtml/notice.jsf?id=101');
    expect(e!.timestamp).toBe('2026-11-20T15:00:00.000Z');
    expect(
      renderMessage([noticeAlert({ url: 'javascript:alert(1)' })], NOW).embeds[0]!.url,
    ).toBeUndefined();
    expect(renderMessage([noticeAlert({ url: '' })], NOW).embeds[0]!.url).toBeUndefined();
    expect(renderMessage(hostileAlerts(), NOW).embeds[0]!.url).toBe(
      'https://evil.example/x?a=1&b=%3C2%3E',
    );
  });

  it('shows notice fields with Discord timestamps and the pipeline local time', () => {
    const [e] = renderMessage([noticeAlert({ response_at: '2026-11-21T20:00:00Z' })], NOW).embeds;
    const fields = Object.fromEntries(e!.fields!.map((f) => [f.name, f.value]));
    expect(Object.keys(fields)).toEqual([
      'Category',
      'Type',
      'Status',
      'Notice',
      'Posted',
      'Effective',
      'End',
      'Response deadline',
      'Next',
    ]);
    expect(fields.Category).toBe('Critical');
    expect(fields.Posted).toBe(
      `<t:${unix('2026-11-20T14:00:00Z')}:f>\nFri, Nov 20, 2026, 9:00 AM EST`,
    );
    expect(fields['Response deadline']).toContain(`(<t:${unix('2026-11-21T20:00:00Z')}:R>)`);
    expect(e!.author!.name).toBe('Transco');
    expect(e!.title).toBe('Capacity Constraint: Station 165');
    expect(e!.footer!.text).toBe('pipewatch · rule transco-constraints · new notice 101');
  });

  it('marks updates with what changed', () => {
    const [e] = renderMessage([updatedAlert()], NOW).embeds;
    expect(e!.title).toMatch(/^Updated Capacity Constraint/);
    expect(e!.fields!.find((f) => f.name === 'Changed')!.value).toBe('status, subject');
  });

  it('lays out a deadline reminder around the deadline, saying how long is left', () => {
    const [e] = renderMessage([deadlineAlert()], NOW).embeds;
    const at = unix('2026-11-20T20:00:00Z');
    expect(e!.title).toBe('Response due in 5 h: Capacity Constraint - Station 165');
    expect(e!.description).toContain(`**Response due** <t:${at}:R>: <t:${at}:F>`);
    expect(e!.description).toContain(localTime('2026-11-20T20:00:00Z', 'America/New_York'));
    expect(e!.fields!.map((f) => f.name)).not.toContain('Response deadline');
    expect(e!.footer!.text).toContain('reminder 2h before response_at');
  });

  it('lays out a capacity alert as one table, firing and resolved, absolute and percent', () => {
    const [e] = renderMessage([capacityAlert()], NOW).embeds;
    expect(e!.title).toBe('Low OAC at STATION 85 — timely cycle, gas day 2026-11-21');
    expect(e!.fields).toEqual([
      { name: 'Cycle', value: 'timely', inline: true },
      { name: 'Gas day', value: '2026-11-21', inline: true },
      {
        name: 'Next',
        value: 'Intraday 1 cycle for gas day 2026-11-20, noms due 11:00 AM EST (in 1 h)',
        inline: false,
      },
    ]);
    const [lead, fence, head, row, close] = e!.description!.split('\n');
    expect([lead, fence, close]).toEqual([
      'OAC is below the threshold at 1 location.',
      '```',
      '```',
    ]);
    expect(head).toMatch(/^Location\s+Flow\s+OAC\s+OPC\s+Threshold$/);
    expect(row).toMatch(/^STATION 85 \(1001234\)\s+D\s+30,000\s+800,000\s+50,000$/);
    const resolved = renderMessage([capacityAlert([location({ oac: 90_000 })], 'resolved')], NOW);
    expect(resolved.embeds[0]!.title).toMatch(/^OAC recovered at STATION 85 — /);
    expect(resolved.embeds[0]!.description).toMatch(/Clear above\n.*90,000\s+800,000\s+60,000\n/);
    const pct = capacityAlert();
    for (const l of pct.payload.capacity!.locations)
      Object.assign(l, { unit: 'percent', threshold: 10, clear_above: 12 });
    expect(renderMessage([pct], NOW).embeds[0]!.description).toMatch(
      /30,000 \(3\.8%\)\s+800,000\s+10% of OPC/,
    );
  });

  it('keeps a location name from closing the table or mentioning anyone', () => {
    const alert = capacityAlert([location({ location: '``` @everyone <@&1> \u202eX' })]);
    const d = renderMessage([alert], NOW).embeds[0]!.description!;
    expect(d.split('```')).toHaveLength(3);
    expect(d).not.toMatch(/@everyone|<@&|\u202e/);
  });
});

describe('safety', () => {
  const json = JSON.stringify(renderMessage(hostileAlerts(), NOW));

  it('pings nobody: no @everyone, @here or raw user, role or channel mention', () => {
    expect(json).not.toMatch(/@(everyone|here)/i);
    expect(json).not.toMatch(/<@|<#|<!/);
    expect(json).toContain('@\u200beveryone');
    expect(json).toContain('<\u200b@&123456789>');
  });

  it('neutralises markdown from upstream text', () => {
    const [, , md] = renderMessage(hostileAlerts(), NOW).embeds;
    expect(md!.title).toBe(
      'Capacity Constraint: \\*URGENT\\* \\_Gas Control\\_ \\~cancelled\\~ \\`OFO\\`',
    );
    expect(md!.description).toContain('\\*\\*bold\\*\\* \\*bold\\* \\_x\\_ \\~y\\~ \\`code\\`');
    expect(md!.description).toContain('\\[click here\\](https://evil.example/phish)');
    expect(md!.description).toMatch(/^\\> quoted line$/m);
    expect(md!.description).toMatch(/^\\# heading$/m);
    expect(md!.description).toContain('\\| a \\| b \\|');
    expect(json).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
  });

  it('escapes around URLs and breaks every mention form', () => {
    expect(escapeMarkdown('see https://x.example/a_b_c and a_b')).toBe(
      'see https://x.example/a_b_c and a\\_b',
    );
    expect(escapeMarkdown('- item\n1. first\n>>> quote')).toBe('\\- item\n1\\. first\n\\>>> quote');
    expect(neutraliseMentions('<@1> <@!2> <@&3> <#4> <t:5:R> </cmd:6> <:e:7> <a:e:8> @here')).toBe(
      '<\u200b@1> <\u200b@!2> <\u200b@&3> <\u200b#4> <\u200bt:5:R> <\u200b/cmd:6> <\u200b:e:7> <\u200ba:e:8> @\u200bhere',
    );
  });
});

describe('nonce', () => {
  it('is at most 25 base64url characters, stable across resends and order', () => {
    const a = noticeAlert();
    const b = deadlineAlert();
    expect(nonceFor([a, b])).toMatch(/^[A-Za-z0-9_-]{25}$/);
    expect(nonceFor([a, b])).toBe(nonceFor([b, a]));
    expect(nonceFor([a])).not.toBe(nonceFor([b]));
  });
});
