/**
 * The OAC chart a capacity alert carries, from the stored history to the email that
 * arrives: an inline image shown by `cid:`, with its figures as alt text and in the plain
 * text; and a chart that cannot be drawn costs only the picture, with a warning, never
 * the alert. One chart is drawn in this file.
 */
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChartSource } from '../../src/channels/charts.js';
import { storedCharts } from '../../src/channels/charts.js';
import { createDiscordChannels } from '../../src/channels/discord/index.js';
import { createEmailChannel } from '../../src/channels/email/index.js';
import type { Channel } from '../../src/channels/types.js';
import { systemClock } from '../../src/lib/clock.js';
import { capacityAlert, location, memoryThreads } from '../fakes/alerts.js';
import { transcoCycle } from '../fakes/capacity-event.js';
import { FAKE_CHANNEL, startDiscordFake } from '../fakes/discord.js';
import { type SmtpFake, startSmtpFake } from '../fakes/smtp.js';
import { capturedLogger } from '../support/captured-logger.js';
import { useTempStore } from '../support/temp-store.js';

const NOW = '2026-11-21T14:05:00Z';
const to = { kind: 'email' as const, to: ['ops@example.com'] };
const temp = useTempStore('charts');
let fake: SmtpFake;

beforeAll(async () => {
  fake = await startSmtpFake();
});
afterAll(async () => {
  await fake.close();
});

/** An email channel whose charts come from `charts`, and the lines it logs. */
function emailChannel(charts: ChartSource): { channel: Channel<'email'>; lines: string[] } {
  const { logger, lines } = capturedLogger();
  const channel = createEmailChannel(
    { smtpUrl: fake.url, from: 'pipewatch <alerts@example.com>', ratePerSecond: 1000, ca: fake.ca },
    { clock: systemClock, logger, charts },
  );
  return { channel, lines };
}

/** Three gas days of STATION 85's cycles, OAC falling, and one cycle of another location. */
function storeHistory(): void {
  let n = 0;
  for (const gasDay of ['2026-11-19', '2026-11-20', '2026-11-21']) {
    for (const cycle of ['timely', 'evening', 'id1']) {
      n += 1;
      const event = transcoCycle({
        cycle,
        gasDay,
        seenAt: NOW,
        locations: [
          location({ oac: 90_000 - n * 5_000 }),
          location({ id: 9002, location: 'STATION 90', identifier: '1009999', oac: 1 }),
        ],
      });
      temp.store.capacity.upsertCycle(event.cycle, event.locations, NOW);
    }
  }
}

async function deliver(
  channel: Channel<'email'>,
  state: 'firing' | 'resolved',
): Promise<ParsedMail> {
  const before = fake.messages.length;
  await channel.send(to, [capacityAlert([location({ oac: 45_000 })], state)], {
    now: NOW,
    threads: memoryThreads(),
  });
  expect(fake.messages.length).toBe(before + 1);
  return fake.messages.at(-1)!.parsed!;
}

describe('OAC charts in email', () => {
  it('carries the stored history as an inline PNG shown by cid, with the figures in words', async () => {
    storeHistory();
    const history = temp.store.capacity.oacHistory.bind(temp.store.capacity);
    const { channel, lines } = emailChannel(storedCharts(() => history));
    try {
      const mail = await deliver(channel, 'firing');
      expect(mail.attachments).toHaveLength(1);
      const [image] = mail.attachments;
      expect(image.contentType).toBe('image/png');
      expect(image.contentDisposition).toBe('inline');
      expect([...image.content.subarray(1, 4)].map((c) => String.fromCharCode(c)).join('')).toBe(
        'PNG',
      );
      const html = mail.html as string;
      expect(image.cid).toBe('oac-transco-1001234.png@pipewatch');
      // mailparser puts the attachment a `cid:` names in its place: the reference resolved.
      expect(html).toContain('<img src="data:image/png;base64,');
      expect(html).toContain(
        'alt="OAC at STATION 85 (1001234) over the last 7 gas days: 9 cycles, from 45,000 to 85,000, last 45,000; threshold 50,000, clear above 60,000 (Dth)."',
      );
      expect(mail.text).toContain('Chart: OAC at STATION 85 (1001234) over the last 7 gas days');
      expect(lines.join('')).not.toContain('without its OAC chart');
    } finally {
      await channel.close?.();
    }
  });

  it('sends the alert without the picture, and warns, when the chart cannot be drawn', async () => {
    const broken = storedCharts(() => () => {
      throw new Error('database disk image is malformed');
    });
    const { channel, lines } = emailChannel(broken);
    try {
      const mail = await deliver(channel, 'resolved');
      expect(mail.subject).toContain('STATION 85');
      expect(mail.attachments).toHaveLength(0);
      expect(mail.html as string).not.toContain('<img');
      const warning = lines.map((l) => JSON.parse(l)).find((l) => l.level === 40);
      expect(warning?.msg).toBe(
        'chart: the alert goes without its OAC chart: database disk image is malformed',
      );
    } finally {
      await channel.close?.();
    }
  });

  it('draws nothing for an alert whose location has no stored history, and still sends it', async () => {
    const history = temp.store.capacity.oacHistory.bind(temp.store.capacity);
    const { channel, lines } = emailChannel(storedCharts(() => history));
    try {
      const mail = await deliver(channel, 'firing');
      expect(mail.attachments).toHaveLength(0);
      expect(lines.join('')).toContain('no stored OAC to draw');
    } finally {
      await channel.close?.();
    }
  });
});

describe('CapacityStore.oacHistory', () => {
  it("reads one location's cycles of the gas days asked, oldest first, the newest when limited", () => {
    storeHistory();
    const rows = temp.store.capacity.oacHistory(
      'transco',
      '1001234',
      '2026-11-20',
      '2026-11-21',
      4,
    );
    expect(rows.map((r) => `${r.gas_day} ${r.cycle} ${r.oac}`)).toEqual([
      '2026-11-20 id1 60000',
      '2026-11-21 timely 55000',
      '2026-11-21 evening 50000',
      '2026-11-21 id1 45000',
    ]);
  });
});

describe('OAC charts on Discord', () => {
  it('sends the chart as a file of the message, shown as the image of its embed', async () => {
    storeHistory();
    const fake = await startDiscordFake();
    const history = temp.store.capacity.oacHistory.bind(temp.store.capacity);
    const { discord } = createDiscordChannels(
      { token: fake.token, apiUrl: fake.url },
      { clock: systemClock, logger: capturedLogger().logger, charts: storedCharts(() => history) },
    );
    try {
      const target = { kind: 'discord' as const, channel: FAKE_CHANNEL };
      await discord.send(target, [capacityAlert([location({ oac: 45_000 })])], {
        now: NOW,
        threads: memoryThreads(),
      });
      const [message] = fake.messages;
      expect(message.attachments.map((a) => [a.filename, a.content_type])).toEqual([
        ['oac-transco-1001234.png', 'image/png'],
      ]);
      expect(message.attachments[0].size).toBeGreaterThan(1_000);
      expect(message.embeds[0].image).toEqual({ url: 'attachment://oac-transco-1001234.png' });
    } finally {
      await discord.close?.();
      await fake.close();
    }
  });
});
