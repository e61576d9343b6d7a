/**
 * How each pipeline labels its notices. The same NAESB notion arrives as "Force Majeure",
 * "FORCE MAJEURE" or "Force Maj", with statuses in any case or none at all, and clients
 * must cope with all of them.
 */
import type { NoticeStyle } from './pipelines.js';
import type { Random } from './random.js';

/** What a notice is about, before a pipeline's labelling. */
export type NoticeKind =
  | 'ofo'
  | 'force-majeure'
  | 'constraint'
  | 'maintenance'
  | 'curtailment'
  | 'capacity-release'
  | 'system-status'
  | 'gas-quality'
  | 'operational-alert'
  | 'critical-period'
  | 'other';

/** Where a notice stands in its chain. */
export type Phase = 'initiate' | 'supersede' | 'update' | 'terminate' | 'complete';

/** How often each kind starts a chain; constraints and maintenance dominate real boards. */
export const KIND_WEIGHTS: Readonly<Record<NoticeKind, number>> = {
  constraint: 24,
  maintenance: 20,
  'operational-alert': 10,
  ofo: 7,
  'capacity-release': 8,
  'force-majeure': 4,
  curtailment: 5,
  'system-status': 5,
  'gas-quality': 4,
  'critical-period': 4,
  other: 9,
};

const NAESB: Record<NoticeKind, readonly string[]> = {
  ofo: ['Operational Flow Order'],
  'force-majeure': ['Force Majeure'],
  constraint: ['Capacity Constraint'],
  maintenance: ['Maintenance'],
  curtailment: ['Curtailment'],
  'capacity-release': ['Capacity Release'],
  'system-status': ['Computer System Status'],
  'gas-quality': ['Gas Quality'],
  'operational-alert': ['Operational Alert'],
  'critical-period': ['Operational Alert'],
  other: ['Other', 'Customer Services Update', 'Cash Out', 'Imbalance Trading'],
};

const ABBREV: Record<NoticeKind, readonly string[]> = {
  ofo: ['OFO'],
  'force-majeure': ['Force Maj'],
  constraint: ['Constraint'],
  maintenance: ['Plnd Outage', 'Maint'],
  curtailment: ['Curtailment'],
  'capacity-release': ['Capacity Release'],
  'system-status': ['Computer System Status'],
  'gas-quality': ['Gas Quality'],
  'operational-alert': ['Sched Alert'],
  'critical-period': ['Critical period'],
  other: ['Other', 'Rates - Chgs', 'Emergency Deviations', 'Phone List'],
};

const MIXED: Partial<Record<NoticeKind, readonly string[]>> = {
  ofo: ['Operational Flow Order (OFO)'],
  constraint: ['Capacity Constraint', 'Capacity Constraint; Maintenance'],
  maintenance: ['Maintenance', 'Maintenance; Capacity Constraint'],
  'critical-period': ['Critical period'],
  'operational-alert': ['Operational Alert', 'Intraday Bump'],
};

/** The `type` label a pipeline with this style shows for a kind. */
export function typeLabel(kind: NoticeKind, style: NoticeStyle, rng: Random): string {
  switch (style) {
    case 'naesb':
      return rng.pick(NAESB[kind]);
    case 'upper':
      return rng.pick(kind === 'ofo' ? ['OFO'] : NAESB[kind]).toUpperCase();
    case 'abbrev':
      return rng.pick(ABBREV[kind]);
    case 'mixed':
      return rng.pick(MIXED[kind] ?? NAESB[kind]);
  }
}

/** Whether a notice of this kind is critical: it affects scheduling or scheduled flow. */
export function isCritical(kind: NoticeKind, rng: Random): boolean {
  switch (kind) {
    case 'ofo':
    case 'force-majeure':
    case 'constraint':
    case 'curtailment':
    case 'critical-period':
      return true;
    case 'operational-alert':
      return rng.chance(0.7);
    case 'maintenance':
      return rng.chance(0.5);
    case 'gas-quality':
      return rng.chance(0.4);
    default:
      return rng.chance(0.05);
  }
}

/** The `category` text for criticality in a pipeline's style. */
export function categoryLabel(critical: boolean, style: NoticeStyle, rng: Random): string {
  switch (style) {
    case 'naesb':
      return critical ? 'Critical' : 'Non-Critical';
    case 'upper':
      return critical ? 'CRITICAL' : 'NON-CRITICAL';
    case 'abbrev':
      return critical ? 'critical' : 'non-critical';
    case 'mixed':
      return critical
        ? rng.pick(['Critical', 'CRITICAL'])
        : rng.pick(['Non-Critical', 'Noncritical']);
  }
}

const PHASE_WORD: Record<Phase, string> = {
  initiate: 'Initiate',
  supersede: 'Supersede',
  update: 'Update',
  terminate: 'Terminate',
  complete: 'Complete',
};

/** The `status` text, which some pipelines leave empty. */
export function statusLabel(phase: Phase, style: NoticeStyle, rng: Random): string {
  const word = PHASE_WORD[phase];
  switch (style) {
    case 'naesb':
      return word;
    case 'upper':
      return word.toUpperCase();
    case 'abbrev':
      return '';
    case 'mixed':
      return rng.chance(0.75) ? word : word.toUpperCase();
  }
}
