/**
 * A silence's summary in Discord: one embed, its title the count, the held alerts as a
 * list of masked links (or ids), `…and N more` past those listed, re-fitted by whole
 * lines inside a crowded digest; with hostile held alerts, pinging nobody, its markdown
 * neutralised and within every limit, and accepted by the Discord fake.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordChannels } from '../../../src/channels/discord/index.js';
import {
  COLOURS,
  type DiscordMessage,
  renderMessage,
} from '../../../src/channels/discord/render.js';
import { systemClock } from '../../../src/lib/clock.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { LONG_BODY } from '../../../src/simulator/anchors.js';
import { hostileAlerts, memoryThreads, noticeAlert } from '../../fakes/alerts.js';
import { FAKE_CHANNEL, startDiscordFake } from '../../fakes/discord.js';
import { heldAlert, hostileSilence, manyHeld, silenceAlert } from '../../fakes/silence.js';

const NOW = '2026-11-20T15:00:00Z';

/** Discord's limits, counted here apart from the renderer. */
function expectWithinLimits(m: DiscordMessage): void {
  expect(m.allowed_mentions).toEqual({ parse: [] });
  expect(m.embeds.length).toBeLessThanOrEqual(10);
  let total = 0;
  for (const e of m.embeds) {
    expect(e.title?.length ?? 0).toBeLessThanOrEqual(256);
    expect(e.description?.length ?? 0).toBeLessThanOrEqual(4096);
    for (const f of e.fields ?? []) {
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

/** The list lines of an embed's description. */
const listLines = (description = '') => description.split('\n').filter((l) => l.startsWith('• '));

/** A long notice, so a digest has to give up room. */
const longNotice = (i: number) =>
  noticeAlert({ id: 5000 + i, html: LONG_BODY.html, notice: '', subject: 'x'.repeat(300) });

describe('a silence’s summary in Discord', () => {
  it('is one embed: the count as title, the list, what was muted and when', () => {
    const reminder = heldAlert({ kind: 'deadline', state: 'reminder', notice_id: 7, url: null });
    const m = renderMessage([silenceAlert({ alerts: [heldAlert(), reminder] })], NOW);
    expectWithinLimits(m);
    const [e] = m.embeds;
    expect(e).toMatchObject({
      author: { name: 'Transco' },
      title: 'Silence #12 ended — while muted: 2 alerts',
      color: COLOURS.silence,
      footer: { text: 'pipewatch · rule silence-12 · silence expired' },
    });
    expect(listLines(e!.description)).toEqual([
      '• [Notice 26-0412: Capacity Constraint - Station 165](https://www.1line.williams.com/xhtml/notice.jsf?id=101) · new notice · <t:1795186800:f>',
      '• Notice 26-0412: Capacity Constraint - Station 165 · reminder · notice #7 · <t:1795186800:f>',
    ]);
    expect(e!.fields).toEqual([
      { name: 'Muted', value: 'pipeline=transco target=slack:C0GAS', inline: false },
      { name: 'From', value: '<t:1795172400:f>', inline: true },
      { name: 'Until', value: '<t:1795186800:f>\nexpired', inline: true },
    ]);
  });

  it('lists what the summary carries and counts the rest', () => {
    const m = renderMessage([silenceAlert({ held: 25, alerts: manyHeld(20) })], NOW);
    expectWithinLimits(m);
    expect(listLines(m.embeds[0]!.description)).toHaveLength(20);
    expect(m.embeds[0]!.description!.split('\n').at(-1)).toBe('…and 5 more');
  });

  it('keeps whole lines and the count of the rest in a digest that has to give up room', () => {
    const summary = silenceAlert({ held: 25, alerts: manyHeld(20) });
    const m = renderMessage([...Array.from({ length: 5 }, (_, i) => longNotice(i)), summary], NOW);
    expectWithinLimits(m);
    const e = m.embeds.find((x) => x.title?.startsWith('Silence #12'))!;
    const lines = listLines(e.description);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThan(20);
    for (const l of lines) expect(l).toMatch(/^• \[Notice .*\) · new notice · <t:\d+:f>$/);
    expect(e.description!.split('\n').at(-1)).toBe(`…and ${25 - lines.length} more`);
  });

  it('lists the held alerts by id when a full digest leaves no room for a whole line', () => {
    const summary = silenceAlert({ held: 25, alerts: manyHeld(20) });
    const m = renderMessage([...Array.from({ length: 8 }, (_, i) => longNotice(i)), summary], NOW);
    expectWithinLimits(m);
    const e = m.embeds.find((x) => x.title?.startsWith('Silence #12'))!;
    const lines = listLines(e.description);
    expect(lines.slice(0, 2)).toEqual([
      '• notice #1000 · new notice',
      '• notice #999 · new notice',
    ]);
    expect(e.description!.split('\n').at(-1)).toBe(`…and ${25 - lines.length} more`);
  });
});

describe('a silence’s summary of hostile held alerts', () => {
  it('stays within every limit, alone and with every hostile notice', () => {
    expectWithinLimits(renderMessage([hostileSilence()], NOW));
    expectWithinLimits(renderMessage([hostileSilence(), ...hostileAlerts()], NOW));
  });

  it('pings nobody, neutralises markdown and links only http(s) URLs, whole', () => {
    const m = renderMessage([hostileSilence()], NOW);
    const json = JSON.stringify(m);
    expect(json).not.toMatch(/@(everyone|here)/i);
    expect(json).not.toMatch(/<@|<#|<!/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
    expect(json).not.toMatch(/[\u202a-\u202e\u2066-\u2069\r\u001b]/);
    expect(json).not.toContain('javascript:');
    expect(json).not.toContain('secret');
    expect(json).not.toContain('x'.repeat(200));
    const [e] = m.embeds;
    const lines = listLines(e!.description);
    expect(lines[0]).toContain(
      '<script>alert(1)<\u200b/script> @\u200beveryone @\u200bhere <\u200b!channel>',
    );
    expect(lines[0]).toContain('\\*URGENT\\* \\_Gas Control\\_ \\~cancelled\\~ \\`OFO\\`');
    expect(lines[0]).toContain('](https://evil.example/x?a=1&b=%3C2%3E|y%29%28z%20*b*%20_i_) · ');
    expect(lines[1]).toMatch(
      /^• Maintenance Update <script>alert\(1\)<\u200b\/script> 1 · new notice · notice #901 · /,
    );
    expect(e!.fields![0]!.value).toMatch(
      /^pipeline=<\u200b!channel> target=@\u200beveryone \\\*x\\\*/,
    );
    expect(e!.description!.split('\n').at(-1)).toBe('…and 5 more');
  });
});

describe('a silence’s summary sent to Discord', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it('is accepted, alone and in a digest of hostile notices', async () => {
    const fake = await startDiscordFake();
    const { discord } = createDiscordChannels(
      { token: fake.token, apiUrl: fake.url, timeoutMs: 2000, maxRateLimitWaitMs: 1000 },
      { clock: systemClock, logger: silentLogger },
    );
    closers.push(
      async () => discord.close?.(),
      () => fake.close(),
    );
    const target = { kind: 'discord' as const, channel: FAKE_CHANNEL };
    const ctx = { now: NOW, threads: memoryThreads() };
    await discord.send(target, [hostileSilence()], ctx);
    await discord.send(target, [hostileSilence(), ...hostileAlerts()], ctx);
    expect(fake.messages).toHaveLength(2);
    expect(fake.messages[1]!.embeds).toHaveLength(hostileAlerts().length + 1);
  });
});
