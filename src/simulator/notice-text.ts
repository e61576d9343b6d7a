/**
 * Subjects and HTML bodies of generated notices, modelled on real postings: a header
 * block, the operational message, a table where pipelines use one, and the response line.
 */
import { escapeHtml } from '../lib/escape-html.js';
import { zoneFormat } from '../lib/zone-format.js';
import type { NoticeKind, Phase } from './notice-labels.js';
import type { SimPipeline } from './pipelines.js';
import type { Random } from './random.js';

/** What the templates need to write one notice of a chain. */
export interface TextContext {
  pipeline: SimPipeline;
  kind: NoticeKind;
  phase: Phase;
  place: string;
  identifier: string;
  /** The identifier a superseding or terminating notice names; may be "0" or "". */
  prior?: string;
  effectiveAt: number;
  endAt: number | null;
  responseAt: number | null;
  rng: Random;
}

const SYSTEMS: Record<string, string> = {
  transco: '1Line',
  northwest: '1Line',
  'texas-eastern': 'LINK',
  algonquin: 'LINK',
  'east-tennessee': 'LINK',
  tennessee: 'DART',
  ngpl: 'DART',
  'southern-natural': 'DART',
  'el-paso': 'DART',
};

const CAUSES = [
  'a compressor unit failure',
  'a pipeline rupture discovered during patrol',
  'an unplanned outage of the station control system',
  'damage caused by third-party excavation',
  'a hurricane-related power loss',
];

const SHIPPERS = [
  'Atmos Energy Corp.',
  'Constellation Energy Generation',
  'PSE&G',
  'BP Energy Co.',
];

/** The subject a chain starts with. */
export function baseSubject(kind: NoticeKind, place: string, rng: Random): string {
  const station = /(\d+)/.exec(place)?.[1] ?? String(rng.int(100, 560));
  switch (kind) {
    case 'ofo':
      return rng.pick([
        'Operational Flow Order - Imbalance',
        `Operational Flow Order - ${place}`,
        `OFO - Critical Day Declared for ${place}`,
      ]);
    case 'force-majeure':
      return rng.pick([`Force Majeure - ${place}`, `Force Majeure - ${place} Compressor Failure`]);
    case 'constraint':
      return rng.pick(['Capacity Constraint', `Capacity Constraint - ${place}`]);
    case 'maintenance':
      return rng.pick([
        `Planned Maintenance - Compressor Station ${station}`,
        `Pipeline Maintenance - ${place}`,
        `${place} Pigging Run`,
        `Plnd Outage - ${place}`,
      ]);
    case 'curtailment':
      return rng.pick([
        `Curtailment of Interruptible Services - ${place}`,
        `Curtailment - Secondary Firm Nominations at ${place}`,
      ]);
    case 'capacity-release':
      return `Capacity Release - Offer ${rng.int(10_000, 99_999)}`;
    case 'system-status':
      return `${rng.pick(['Customer Activities Website', 'EBB', 'Nominations System'])} Outage`;
    case 'gas-quality':
      return rng.pick([`Gas Quality - High Heating Value at ${place}`, 'Gas Quality - Dew Point']);
    case 'operational-alert':
      return rng.pick([
        `Operational Alert - ${place}`,
        'Weather Alert - Cold Temperatures Expected',
        'Sched Alert - Nomination Deadline Reminder',
        'High Linepack Alert',
      ]);
    case 'critical-period':
      return rng.pick([`Critical Period Declared - ${place}`, 'Critical Day 1 - System Wide']);
    case 'other':
      return rng.pick([
        'Holiday Nomination Schedule',
        'Fuel Retention Rates Effective Next Month',
        'Customer Meeting Announcement',
        'Updated Gas Control Phone List',
      ]);
  }
}

/** The subject of one notice in a chain, derived from the chain's first subject. */
export function phaseSubject(base: string, ctx: TextContext): string {
  const { kind, phase, rng } = ctx;
  switch (phase) {
    case 'initiate':
      return base;
    case 'supersede':
      return rng.pick([`REVISED: ${base}`, `${base} - Update`, base, `UPDATED: ${base}`]);
    case 'update':
      return rng.chance(0.5) ? base : `${base} (Updated)`;
    case 'complete':
      return `COMPLETED: ${base}`;
    case 'terminate':
      if (kind === 'maintenance') return `COMPLETED: ${base}`;
      return ['other', 'system-status', 'capacity-release'].includes(kind)
        ? `TERMINATED: ${base}`
        : `LIFTED: ${base}`;
  }
}

const pageFormat = zoneFormat({
  year: 'numeric',
  month: 'long',
  day: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  timeZoneName: 'short',
});

/** A datetime as the pipeline's own page would print it, in its zone. */
export function localText(ms: number, zone: string): string {
  return pageFormat(zone).format(new Date(ms));
}

function table(rows: string[][], header: string[]): string {
  const th = header.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const trs = rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`);
  return `<table border="1" cellpadding="3" cellspacing="0"><tr>${th}</tr>${trs.join('')}</table>`;
}

const dth = (n: number) => `${n.toLocaleString('en-US')} Dth/d`;

function leadParagraphs(ctx: TextContext, when: (ms: number) => string): string[] {
  const { kind, phase, place, rng, pipeline } = ctx;
  const p = escapeHtml(place);
  const name = escapeHtml(pipeline.name);
  const eff = when(ctx.effectiveAt);
  if (phase === 'terminate' || phase === 'complete') {
    return [
      `<p>The conditions described in the prior notice at ${p} have ended effective ${eff}.` +
        ' All services are restored to normal levels.</p>',
    ];
  }
  switch (kind) {
    case 'ofo':
      return [
        `<p>Due to ${rng.pick(['high linepack', 'low linepack', 'forecast cold weather'])}, ${name}` +
          ` is issuing an <b>Operational Flow Order</b> effective ${eff} for ${p}.</p>`,
        `<p>Shippers must keep daily receipts and deliveries within <b>${rng.int(2, 10)}%</b>` +
          ` tolerance. Non-compliance charges of $${rng.int(5, 25)}.00/Dth apply.</p>`,
      ];
    case 'force-majeure':
      return [
        `<p>${name} has experienced ${rng.pick(CAUSES)} at ${p} and declares Force Majeure` +
          ` effective ${eff}.</p>`,
        `<p>Capacity through ${p} is reduced by approximately ${dth(rng.int(5, 60) * 10_000)}.</p>`,
      ];
    case 'constraint':
    case 'curtailment': {
      const rows = [
        place,
        ...pipeline.places.filter((x) => x !== place).slice(0, rng.int(1, 3)),
      ].map((loc) => [
        loc,
        rng.pick(['IT', 'AOT', 'Secondary Out-of-Path', 'Secondary In-Path']),
        `${rng.int(0, 100)}%`,
      ]);
      return [
        `<p>${name} anticipates a capacity constraint for gas day beginning ${eff}.` +
          ' Nominations through the following points will be scheduled as shown:</p>',
        table(rows, ['Location', 'Service Cut', 'Scheduled']),
      ];
    }
    case 'maintenance':
      return [
        `<p>${name} will perform maintenance at ${p} beginning ${eff}.</p>`,
        table(
          [[place, 'Compressor outage', dth(rng.int(2, 40) * 10_000)]],
          ['Location', 'Work', 'Capacity Impact'],
        ),
      ];
    case 'capacity-release':
      return [
        `<p>Releasing Shipper: ${escapeHtml(rng.pick(SHIPPERS))}. Offer of` +
          ` ${dth(rng.int(1, 50) * 1_000)} from ${p}, term beginning ${eff}.</p>`,
      ];
    case 'system-status':
      return [
        `<p>${escapeHtml(SYSTEMS[pipeline.slug] ?? 'The customer activities website')} will be` +
          ` unavailable beginning ${eff} for a scheduled upgrade.<br>Please submit` +
          ' nominations before the outage.</p>',
      ];
    default:
      return [
        `<p>${name} advises shippers regarding ${p} effective ${eff}.` +
          ' Please review your nominations &amp; balances accordingly.</p>',
      ];
  }
}

/** The HTML body of a notice. */
export function noticeHtml(ctx: TextContext, subject: string): string {
  const zone = ctx.pipeline.timezone;
  const when = (ms: number) => escapeHtml(localText(ms, zone));
  const parts = [
    `<p><b>${escapeHtml(ctx.pipeline.name)}</b><br>Notice ID: ${escapeHtml(ctx.identifier)}` +
      `<br>Subject: ${escapeHtml(subject)}</p>`,
  ];
  if (ctx.prior !== undefined) {
    const verb = ctx.phase === 'terminate' ? 'terminates' : 'supersedes';
    parts.push(`<p>This notice ${verb} Notice ID ${escapeHtml(ctx.prior)}.</p>`);
  }
  parts.push(...leadParagraphs(ctx, when));
  if (ctx.endAt !== null) parts.push(`<p>Expected end: ${when(ctx.endAt)}.</p>`);
  parts.push(
    ctx.responseAt === null
      ? '<p>No response required.</p>'
      : `<p><b>Response required by ${when(ctx.responseAt)}.</b></p>`,
    '<p>Questions? Contact Gas Control &amp; Scheduling at (713) 215-2000.</p>',
  );
  return parts.join('\n');
}
