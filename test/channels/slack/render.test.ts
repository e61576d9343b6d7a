/** Slack rendering: layouts per alert kind, date tokens, buttons, clipping, digests, limits. */
import { describe, expect, it } from 'vitest';
import type { Block } from '../../../src/channels/slack/index.js';
import { MAX_DIGEST, markSuperseded, renderSlack } from '../../../src/channels/slack/index.js';
import type { Alert } from '../../../src/channels/types.js';
import {
  capacityAlert,
  deadlineAlert,
  hostileAlerts,
  location,
  noticeAlert,
  updatedAlert,
} from '../../fakes/alerts.js';
import { checkMessage } from '../../fakes/slack-blocks.js';
import { allTexts } from './support.js';

type AnyBlock = Block & Record<string, unknown>;
const byType = (blocks: Block[], type: string) =>
  blocks.filter((b) => b.type === type) as AnyBlock[];
const fieldTexts = (blocks: Block[]) =>
  byType(blocks, 'section').flatMap((b) =>
    ((b.fields as Array<{ text: string }>) ?? []).map((f) => f.text),
  );
const headerText = (blocks: Block[]) =>
  (byType(blocks, 'header')[0]!.text as { text: string }).text;
const accepted = (alerts: Alert[]) => {
  const m = renderSlack(alerts);
  expect(checkMessage(m.text, m.blocks)).toBeUndefined();
  return m;
};

describe('a notice', () => {
  it('has a header with pipeline and type, the subject, the fields and a button', () => {
    const m = accepted([noticeAlert({ response_at: '2026-11-20T20:00:00Z' })]);
    expect(headerText(m.blocks)).toBe('Transco: Capacity Constraint');
    expect(allTexts(m.blocks)).toContain('*Capacity Constraint - Station 165*');
    const fields = fieldTexts(m.blocks);
    expect(fields.map((f) => f.split('\n')[0])).toEqual([
      '*Category*',
      '*Status*',
      '*Notice ID*',
      '*Posted*',
      '*Effective*',
      '*Ends*',
      '*Response due*',
    ]);
    expect(fields[0]).toBe('*Category*\nCritical');
    expect(fields[1]).toBe('*Status*\nInitiate');
    const [button] = byType(m.blocks, 'actions')[0]!.elements as Array<{
      url: string;
      text: { text: string };
    }>;
    expect(button!.url).toBe('https://www.1line.williams.com/xhtml/notice.jsf?id=101');
    expect(button!.text.text).toBe('Open notice');
    expect(m.text).toBe('[Transco] Capacity Constraint: Station 165');
  });

  it('shows times as date tokens with the pipeline’s local time as fallback', () => {
    const alert = noticeAlert();
    alert.payload.zone = 'America/Chicago';
    const fields = fieldTexts(accepted([alert]).blocks);
    const posted = Date.parse('2026-11-20T14:00:00Z') / 1000;
    expect(fields).toContain(
      `*Posted*\n<!date^${posted}^{date_short_pretty} {time}|Fri, Nov 20, 2026, 8:00 AM CST>`,
    );
    alert.payload.zone = 'Not/AZone';
    expect(fieldTexts(accepted([alert]).blocks)).toContain(
      `*Posted*\n<!date^${posted}^{date_short_pretty} {time}|Fri, Nov 20, 2026, 2:00 PM UTC>`,
    );
  });

  it('leaves out absent times and the button when the URL is not http(s)', () => {
    for (const url of ['', 'javascript:alert(1)', 'ftp://x.example/a', 'not a url']) {
      const m = accepted([noticeAlert({ url, effective_at: null, end_at: null })]);
      expect(byType(m.blocks, 'actions')).toEqual([]);
      expect(fieldTexts(m.blocks).map((f) => f.split('\n')[0])).toEqual([
        '*Category*',
        '*Status*',
        '*Notice ID*',
        '*Posted*',
      ]);
    }
  });

  it('clips the notice text to the section limit and says so', () => {
    const long = 'Meter 40001 & lateral <cut>. '.repeat(400);
    const m = accepted([noticeAlert({ notice: long })]);
    const body = byType(m.blocks, 'section').find(
      (b) => (b.text as { type: string })?.type === 'plain_text',
    );
    const text = (body!.text as { text: string }).text;
    expect(text.length).toBeLessThanOrEqual(3000);
    expect(text.endsWith('…')).toBe(true);
    expect(text).not.toMatch(/&[a-z]{0,3}…$/);
    expect(allTexts(m.blocks).join('\n')).toContain('Text shortened to 3,000 characters');
  });

  it('keeps the header within 150 characters on one line', () => {
    const m = accepted([noticeAlert({ type: `Force\r\nMajeure ${'x'.repeat(300)}` })]);
    const h = headerText(m.blocks);
    expect(h.length).toBeLessThanOrEqual(150);
    expect(h).not.toMatch(/[\r\n]/);
    expect(h.startsWith('Transco: Force Majeure x')).toBe(true);
  });

  it('marks an update and names what changed', () => {
    const m = accepted([updatedAlert()]);
    expect(headerText(m.blocks)).toBe('Transco: Updated Capacity Constraint');
    expect(allTexts(m.blocks)).toContain('Changed: status, subject');
  });
});

describe('a deadline reminder', () => {
  const NOW = '2026-11-20T18:30:00Z';

  it('says what is due, how long is left at the send time, and when, with the notice’s facts', () => {
    const m = renderSlack([deadlineAlert()], NOW);
    expect(checkMessage(m.text, m.blocks)).toBeUndefined();
    expect(headerText(m.blocks)).toBe('\u23f0 Transco: Response due in 1 h 30 min');
    const due = Date.parse('2026-11-20T20:00:00Z') / 1000;
    const fields = fieldTexts(m.blocks);
    expect(fields[0]).toBe(
      `*Due*\n<!date^${due}^{date_short_pretty} {time}|Fri, Nov 20, 2026, 3:00 PM EST>`,
    );
    expect(fields).toContain('*Type*\nOperational Flow Order');
    expect(m.text).toBe('[Transco] Response due in 1 h 30 min: Capacity Constraint - Station 165');
  });

  it('names its offset when rendered without a send time, and says when it is late', () => {
    const alert = deadlineAlert();
    expect(headerText(accepted([alert]).blocks)).toBe('\u23f0 Transco: Response due in 2h');
    alert.payload.deadline!.late = true;
    expect(headerText(renderSlack([alert], NOW).blocks)).toBe(
      '\u23f0 Transco: Response due in 1 h 30 min (late)',
    );
  });
});

describe('a capacity alert', () => {
  const tableOf = (blocks: Block[]) => allTexts(blocks).find((t) => t.includes('```'))!;

  it('says where, which cycle and gas day in its header, then one table', () => {
    const m = accepted([
      capacityAlert([
        location(),
        location({ location: 'STATION 90', identifier: '1009', oac: 12_000 }),
      ]),
    ]);
    expect(headerText(m.blocks)).toBe(
      '\ud83d\udd3b Transco: Low OAC at 2 locations — timely cycle, gas day 2026-11-21',
    );
    expect(m.text).toBe('[Transco] Low OAC at 2 locations — timely cycle, gas day 2026-11-21');
    const table = tableOf(m.blocks);
    expect(table).toMatch(/^OAC below the threshold at 2 locations:\n```\n/);
    expect(table).toContain('Threshold');
    expect(table).toMatch(/STATION 85 \(1001234\)\s+D\s+30,000\s+800,000\s+50,000/);
    expect(table).toMatch(/STATION 90 \(1009\)\s+D\s+12,000\s+800,000\s+50,000/);
    expect(table).not.toContain('Alert');
  });

  it('shows the recovery level once resolved, and percentages for percent rules', () => {
    const alert = capacityAlert([location({ oac: 100_000 })], 'resolved');
    const [l] = alert.payload.capacity!.locations;
    Object.assign(l!, { unit: 'percent', threshold: 10, clear_above: 11 });
    const m = accepted([alert]);
    expect(headerText(m.blocks)).toBe(
      '\u2705 Transco: OAC recovered at STATION 85 — timely cycle, gas day 2026-11-21',
    );
    const table = tableOf(m.blocks);
    expect(table).toContain('Clear above');
    expect(table).toContain('100,000 (12.5%)');
    expect(table).toContain('11% of OPC');
  });

  it('marks the locations that are repeats of an alert still firing', () => {
    const alert = capacityAlert([location(), location({ location: 'STATION 90', oac: 1 })]);
    Object.assign(alert.payload.capacity!.locations[1]!, { repeat: true });
    const table = tableOf(accepted([alert]).blocks);
    expect(table).toMatch(/Threshold\s+Alert\n/);
    expect(table).toMatch(/STATION 85 .*50,000\s+new\n/);
    expect(table).toMatch(/STATION 90 .*50,000\s+repeat\n/);
  });

  it('fits 300 locations into one message with one table and counts the rest', () => {
    const many = Array.from({ length: 300 }, (_, i) =>
      location({ id: i, location: `METER ${i} <&>`, identifier: String(40_000 + i) }),
    );
    const m = accepted([capacityAlert(many)]);
    expect(headerText(m.blocks)).toMatch(/Low OAC at 300 locations — /);
    const tables = allTexts(m.blocks).filter((t) => t.includes('```'));
    expect(tables).toHaveLength(1);
    const table = tables[0]!;
    expect(table.length).toBeLessThanOrEqual(3000);
    const hidden = Number(/…and (\d+) more locations$/.exec(table)![1]);
    const rows = table.split('\n').filter((l) => l.startsWith('METER'));
    expect(rows.length + hidden).toBe(300);
    expect(rows.length).toBeGreaterThan(30);
    expect(table).toContain('METER 0 &lt;&amp;&gt;');
  });

  it('merges the tables of two rules for one pipeline, cycle, gas day and state', () => {
    const other = capacityAlert([location({ location: 'STATION 86', identifier: '1001235' })]);
    other.payload = { ...other.payload, rule: 'station-86-watch' };
    other.key = 'station-86-watch|capacity:x|slack:#gas';
    const m = accepted([capacityAlert(), other]);
    expect(headerText(m.blocks)).toMatch(/Low OAC at 2 locations — timely cycle/);
    expect(allTexts(m.blocks).filter((t) => t.includes('```'))).toHaveLength(1);
    expect(allTexts(m.blocks).at(-1)).toBe('pipewatch · rules transco-low-oac, station-86-watch');
  });
});

/** A schema-drift alert, as the operations decisions build it. */
function operationsAlert(): Alert {
  return {
    key: 'pipewatch-operations|schema-drift:notices:abc|slack:#ops',
    payload: {
      version: 1,
      kind: 'operations',
      state: 'schema-drift',
      rule: 'pipewatch-operations',
      pipeline: { slug: 'api', name: 'Pipeline Information API' },
      zone: 'UTC',
      operations: {
        event: 'schema-drift',
        summary: "The API's catalog for notices changed <!channel>: check it.",
        table: 'notices',
        previous_hash: 'a'.repeat(64),
        hash: 'b'.repeat(64),
        seen_at: '2026-11-20T15:00:00Z',
      },
    },
  };
}

describe('an operations alert', () => {
  it('says what changed, in which table, and when', () => {
    const m = accepted([operationsAlert()]);
    expect(headerText(m.blocks)).toBe('\u2699\ufe0f Pipeline Information API: schema drift');
    expect(allTexts(m.blocks)).toContain(
      "The API's catalog for notices changed &lt;!channel&gt;: check it.",
    );
    const fields = fieldTexts(m.blocks);
    expect(fields[0]).toBe('*Table*\nnotices');
    expect(fields[1]).toMatch(
      new RegExp(`^\\*Seen\\*\\n<!date\\^${Date.parse('2026-11-20T15:00:00Z') / 1000}\\^`),
    );
    expect(fields[3]).toBe('*New hash*\nbbbbbbbbbbbb');
  });

  it('has its own line in a digest', () => {
    const m = accepted([noticeAlert(), operationsAlert()]);
    const texts = allTexts(m.blocks);
    expect(texts.some((t) => t.startsWith("*Pipeline Information API: The API's catalog"))).toBe(
      true,
    );
  });
});

describe('a digest', () => {
  const ten = (): Alert[] => [
    noticeAlert({ id: 1 }),
    noticeAlert({ id: 2, url: 'javascript:x' }),
    updatedAlert({ id: 3 }),
    deadlineAlert({ id: 4 }),
    capacityAlert([location()]),
    capacityAlert([location({ location: 'STATION 86', identifier: '1001235' })]),
    capacityAlert([location({ location: 'STATION 87' })], 'resolved'),
    ...hostileAlerts().slice(0, 3),
  ];

  it('has one section per alert, linked to the notice, within every limit', () => {
    const alerts = ten();
    expect(alerts).toHaveLength(MAX_DIGEST);
    const m = renderSlack(alerts, '2026-11-20T18:30:00Z');
    expect(checkMessage(m.text, m.blocks)).toBeUndefined();
    // 10 alerts: two capacity alerts of the same cycle and state share one table.
    expect(headerText(m.blocks)).toBe('Transco: 9 alerts');
    expect(m.blocks.length).toBeLessThanOrEqual(50);
    const sections = byType(m.blocks, 'section').map((b) => (b.text as { text: string }).text);
    expect(sections).toHaveLength(9);
    expect(sections[0]).toMatch(
      /^\*<https:\/\/www\.1line\.williams\.com\/xhtml\/notice\.jsf\?id=101\|Capacity Constraint: Station 165>\*\n/,
    );
    expect(sections[1]).toMatch(/^\*Capacity Constraint: /);
    expect(sections[2]).toContain('Updated Capacity Constraint');
    expect(sections[3]).toMatch(/^\*Response due in 1 h 30 min: .*\*\ndue <!date\^/);
    expect(sections[4]).toMatch(
      /^\*Low OAC at 2 locations — timely cycle, gas day 2026-11-21\*\nNext: Timely cycle for gas day 2026-11-21, noms due 2:00 PM EST \(in 30 min\)\n```/,
    );
    expect(sections[4]).toContain('STATION 85');
    expect(sections[4]).toContain('STATION 86');
    expect(sections[5]).toMatch(/^\*OAC recovered at STATION 87 — /);
    for (const s of sections) expect(s.length).toBeLessThanOrEqual(3000);
    expect(m.text.split('\n')[0]).toBe('Transco: 9 alerts');
  });

  it('stays within limits with ten long hostile notices', () => {
    const alerts = Array.from({ length: MAX_DIGEST }, (_, i) => hostileAlerts()[i % 5]!);
    const m = accepted(alerts);
    expect(allTexts(m).every((t) => t.length <= 3000 || t === m.text)).toBe(true);
  });

  it('names each pipeline when they differ', () => {
    const other = noticeAlert({ id: 7 });
    other.payload = { ...other.payload, pipeline: { slug: 'tetco', name: 'Texas Eastern' } };
    const m = accepted([noticeAlert(), other]);
    expect(headerText(m.blocks)).toBe('pipewatch: 2 alerts');
    expect(allTexts(m.blocks).join('\n')).toContain('|Texas Eastern: Capacity Constraint');
  });
});

describe('markSuperseded', () => {
  it('puts a note under the notice’s block, once, however often it is applied', () => {
    const m = renderSlack([noticeAlert({ id: 1 }), noticeAlert({ id: 2 })]);
    const notes = new Map([[2, ':warning: Superseded']]);
    const once = markSuperseded(m, notes);
    const twice = markSuperseded(once, notes);
    expect(twice).toEqual(once);
    const ids = once.blocks.map((b) => b.block_id ?? b.type);
    expect(ids).toEqual(['header', 'notice-1', 'notice-2', 'superseded-2', 'context']);
    expect(checkMessage(once.text, once.blocks)).toBeUndefined();
  });
});
