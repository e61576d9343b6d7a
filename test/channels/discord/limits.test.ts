import { embedLength as discordJsEmbedLength, EmbedAssertions } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { type Embed, embedLength, LIMITS } from '../../../src/channels/discord/limits.js';

/** Throws unless discord.js's check takes the value. */
type Check = { parse(value: unknown): unknown };

/** The limits discord.js enforces in its embed builder, each next to ours. */
const CHECKED: ReadonlyArray<readonly [keyof typeof LIMITS, Check]> = [
  ['title', EmbedAssertions.titlePredicate],
  ['description', EmbedAssertions.descriptionPredicate],
  ['fieldName', EmbedAssertions.fieldNamePredicate],
  ['fieldValue', EmbedAssertions.fieldValuePredicate],
  ['footer', EmbedAssertions.footerTextPredicate],
  ['author', EmbedAssertions.authorNamePredicate],
];

describe("Discord's embed limits", () => {
  it.each(CHECKED)('%s is the length discord.js allows, and not a character more', (key, check) => {
    const limit = LIMITS[key];
    expect(() => check.parse('x'.repeat(limit))).not.toThrow();
    expect(() => check.parse('x'.repeat(limit + 1))).toThrow();
  });

  it('fields are as many as discord.js allows on one embed, and not one more', () => {
    const fields = Array.from({ length: LIMITS.fields - 1 }, () => ({ name: 'n', value: 'v' }));
    expect(() => EmbedAssertions.validateFieldLength(1, fields)).not.toThrow();
    expect(() => EmbedAssertions.validateFieldLength(2, fields)).toThrow();
  });
});

describe('embedLength', () => {
  const embeds: Embed[] = [
    {},
    { title: 'Capacity Constraint', description: 'Station 165 — Zone 5 deliveries limited.' },
    { url: 'https://example.com', color: 0xff0000, timestamp: '2026-11-20T15:00:00Z' },
    {
      title: 't',
      description: 'd'.repeat(4096),
      fields: [
        { name: 'Effective', value: 'Fri, Nov 20, 9:00 AM CST', inline: true },
        { name: '', value: '' },
      ],
      footer: { text: 'pipewatch · transco', icon_url: 'https://example.com/i.png' },
      author: { name: 'Transco', url: 'https://example.com' },
    },
    { fields: [], footer: { text: '' }, author: { name: '👩🏽‍🔧 emoji count as UTF-16' } },
  ];

  it.each(embeds.map((e, i) => [i, e] as const))(
    'counts embed %i as discord.js does',
    (_, embed) => {
      expect(embedLength(embed)).toBe(discordJsEmbedLength(embed));
    },
  );
});
