/**
 * A storyline for demonstrations: each act posts, through the control operations, what
 * the example rules are about, so that a newcomer sees the three things pipewatch is for
 * within seconds rather than waiting for chance to bring them:
 *
 * - a new critical Transco capacity constraint (a Slack channel subscribed to those);
 * - a Texas Eastern operational flow order that needs a response in 90 minutes (a DM
 *   reminder before `response_at`: its earlier reminders have already passed, so the
 *   nearest one goes out at once);
 * - OAC at Transco's Station 85 falling far below its usual level, and on the next act
 *   recovering (an email when capacity is low, and another when it is back).
 *
 * The capacity values are set on the cycle the API serves as `latest` now and on the next
 * one to post (at its posting time), so whichever cycle pipewatch fetches next carries them.
 */
import {
  addDays,
  type Cycle,
  cyclePostedAt,
  gasDayOf,
  NOMINATION_CYCLES,
} from '../domain/gas-day.js';
import type { SimulatorControl } from './control.js';
import { formatDateTime } from './sim-time.js';

const MINUTE = 60_000;

/** Where the capacity story happens: Transco's Station 85, 855,000 Dth/d of operating capacity. */
export const STORY_LOCATION = { slug: 'transco', identifier: '1000085', name: 'STATION 85' };
const OPC = 855_000;
const LOW_OAC = 31_250;
const RECOVERED_OAC = 142_500;
/** How long the flow order gives shippers to respond. */
export const STORY_RESPONSE_MS = 90 * MINUTE;

const CONSTRAINTS = [
  ['Station 165', 'Zone 5 deliveries', 'Scheduled and unscheduled flows through Station 165'],
  [
    'Station 210',
    'Zone 6 receipts',
    'Interruptible and secondary firm receipts upstream of Station 210',
  ],
  ['Leidy Line', 'Leidy Line receipts', 'Nominations for receipts at Leidy Line points'],
  ['Mobile Bay Lateral', 'Mobile Bay Lateral', 'Flows on the Mobile Bay Lateral'],
] as const;

/** What one act posted, in words, for whoever watches. */
export interface StoryAct {
  number: number;
  constraint: { id: number; subject: string };
  flowOrder: { id: number; subject: string; responseAt: string };
  capacity: { oac: number; low: boolean; cycles: string[] };
}

/** The next cycle to post after `now`, by the NAESB timeline. */
function nextToPost(now: number): { gasDay: string; cycle: Cycle } | undefined {
  const today = gasDayOf(new Date(now));
  return [0, 1, 2]
    .flatMap((d) =>
      NOMINATION_CYCLES.map((cycle) => {
        const gasDay = addDays(today, d);
        return { gasDay, cycle, at: cyclePostedAt(gasDay, cycle).getTime() };
      }),
    )
    .filter((c) => c.at > now)
    .sort((a, b) => a.at - b.at)
    .map(({ gasDay, cycle }) => ({ gasDay, cycle }))[0];
}

/** Plays acts one after another on a simulator; `now` is the simulator's time. */
export class Storyline {
  private acts = 0;

  constructor(
    private readonly control: SimulatorControl,
    private readonly now: () => Date,
  ) {}

  /** Posts the next act and says what it posted. */
  next(): StoryAct {
    const n = this.acts++;
    const now = this.now().getTime();
    const [where, zone, what] = CONSTRAINTS[n % CONSTRAINTS.length];
    const constraint = this.control.addNotice({
      pipeline_slug: 'transco',
      subject: `Capacity Constraint - ${where} - ${zone}`,
      type: 'Capacity Constraint',
      category: 'Critical',
      status: 'Initiate',
      notice:
        `${what} are limited to primary firm for gas day ${gasDayOf(new Date(now + 24 * 60 * MINUTE))} ` +
        'because of high market-area demand. Nominations above the posted capacity will be scheduled to zero.',
      effective_at: formatDateTime(now),
      end_at: formatDateTime(now + 24 * 60 * MINUTE),
      response_at: '',
    });
    const responseAt = formatDateTime(now + STORY_RESPONSE_MS);
    const flowOrder = this.control.addNotice({
      pipeline_slug: 'texas-eastern',
      subject: 'OPERATIONAL FLOW ORDER - IMBALANCE',
      type: 'OPERATIONAL FLOW ORDER',
      category: 'CRITICAL',
      status: 'INITIATE',
      notice:
        'Texas Eastern issues an Operational Flow Order for the Access Area. Shippers with ' +
        'negative imbalances must confirm their balancing plan with Gas Control by the response deadline.',
      effective_at: formatDateTime(now),
      end_at: '',
      response_at: responseAt,
    });
    const low = n % 2 === 0;
    const oac = low ? LOW_OAC : RECOVERED_OAC;
    const latest = this.control.latestCycle(STORY_LOCATION.slug);
    const cycles = [latest, nextToPost(now)].filter((c) => c != null);
    for (const { gasDay, cycle } of cycles) {
      this.control.publishCycle({
        pipeline_slug: STORY_LOCATION.slug,
        cycle,
        gas_day: gasDay,
        on_schedule: true,
        locations: [
          {
            identifier: STORY_LOCATION.identifier,
            opc: OPC,
            tsq: OPC - oac,
            oac,
            reason: low ? 'Unit outage at Compressor Station 85' : '',
          },
        ],
      });
    }
    return {
      number: n + 1,
      constraint: { id: constraint.id, subject: constraint.subject },
      flowOrder: { id: flowOrder.id, subject: flowOrder.subject, responseAt },
      capacity: { oac, low, cycles: cycles.map((c) => `${c.cycle} ${c.gasDay}`) },
    };
  }
}
