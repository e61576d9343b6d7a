/**
 * Summaries of silences for channel tests: a plain one, one that held more than it
 * lists, and a hostile one whose every text (held alerts' titles with script tags, chat
 * mentions, markdown, bidi overrides, CR/LF and 10,000 characters; hostile links; the
 * matchers someone typed) must arrive inert and within limits.
 */
import type { AlertPayload, HeldAlert, SilenceSummary } from '../../src/alerts/payload.js';
import type { Alert } from '../../src/channels/types.js';
import { toUtcIso } from '../../src/lib/time.js';
import { HOSTILE_BODIES } from '../../src/simulator/anchors.js';
import type { NewSilence } from '../../src/store/silences.js';
import { listMatchers } from '../support/silence-matchers.js';

/** `minutes` before 15:00 UTC on the samples' day. */
const minutesBefore = (minutes: number) =>
  toUtcIso(new Date(Date.parse('2026-11-20T15:00:00Z') - minutes * 60_000));

/** A silence of Transco's alerts to Slack channel C0GAS, from 14:00 to 16:00 UTC on the samples' day. */
export function transcoChannelSilence(over: Partial<NewSilence> = {}): NewSilence {
  return {
    matchers: listMatchers({ pipelines: ['transco'], targets: ['slack:C0GAS'] }),
    starts_at: '2026-11-20T14:00:00Z',
    ends_at: '2026-11-20T16:00:00Z',
    created_by: 'U0ALICE',
    comment: null,
    created_at: '2026-11-20T14:00:00Z',
    ...over,
  };
}

/** A held alert: a new Transco notice with its link, held at 15:00 UTC. */
export function heldAlert(over: Partial<HeldAlert> = {}): HeldAlert {
  return {
    rule: 'transco-constraints',
    kind: 'notice',
    state: 'new',
    pipeline: 'transco',
    title: 'Notice 26-0412: Capacity Constraint - Station 165',
    notice_id: 101,
    url: 'https://www.1line.williams.com/xhtml/notice.jsf?id=101',
    at: '2026-11-20T15:00:00Z',
    ...over,
  };
}

/** The summary silence 12 of Transco sends, with `alerts` (by default one) and `held` of them. */
export function silenceAlert(
  over: Partial<SilenceSummary> = {},
  payload: Partial<AlertPayload> = {},
): Alert {
  const alerts = over.alerts ?? [heldAlert()];
  return {
    key: `silence-${over.id ?? 12}|silence:${over.id ?? 12}|any`,
    payload: {
      version: 1,
      kind: 'silence',
      state: 'ended',
      rule: `silence-${over.id ?? 12}`,
      pipeline: { slug: 'transco', name: 'Transco' },
      zone: 'UTC',
      silence: {
        id: 12,
        matchers: 'pipeline=transco target=slack:C0GAS',
        started_at: '2026-11-20T11:00:00Z',
        ended_at: '2026-11-20T15:00:00Z',
        ended_by: 'expired',
        held: alerts.length,
        ...over,
        alerts,
      },
      ...payload,
    },
  };
}

/** `count` held alerts, newest first, a minute apart, ids from 1000 down. */
export function manyHeld(count: number, over: Partial<HeldAlert> = {}): HeldAlert[] {
  return Array.from({ length: count }, (_, i) =>
    heldAlert({
      notice_id: 1000 - i,
      title: `Notice 26-${1000 - i}: Capacity Constraint - Segment ${i}`,
      url: `https://www.1line.williams.com/xhtml/notice.jsf?id=${1000 - i}`,
      at: minutesBefore(i),
      ...over,
    }),
  );
}

/** Every trick at once, then 10,000 characters: what no held alert's title may do. */
export const HOSTILE_TITLE =
  '<script>alert(1)</script> @everyone @here <!channel> <!here> <@U123ABC> <@&123456789> ' +
  '*URGENT* _Gas Control_ ~cancelled~ `OFO` ```block``` [click here](https://evil.example/phish) ' +
  '<https://evil.example|Gas Control> \u202eevil\u202c\r\nALERT fake → console: injected\u001b[2K ' +
  'x'.repeat(10_000);

/** Links no message may carry as they are. */
const HOSTILE_URLS = [
  'https://evil.example/x?a=1&b=<2>|y)(z *b* _i_',
  'javascript:alert(1)',
  'https://user:secret@evil.example/x',
  `https://evil.example/${'a'.repeat(3000)}`,
  null,
  'https://evil.example/\r\nALERT fake → console: injected\u001b[2K',
];

/**
 * A summary of 20 hostile held alerts of 25: the long title, then each hostile notice
 * subject, with hostile links, rules and pipelines, and matchers as someone might type
 * them into a chat command.
 */
export function hostileSilence(): Alert {
  const titles = [HOSTILE_TITLE, ...HOSTILE_BODIES.map((b) => b.subject)];
  const alerts = Array.from({ length: 20 }, (_, i) =>
    heldAlert({
      title: `${titles[i % titles.length]} ${i}`,
      url: HOSTILE_URLS[i % HOSTILE_URLS.length]!,
      rule: i % 3 === 0 ? '<!channel> *rule*' : 'transco-constraints',
      pipeline: i % 4 === 0 ? '@everyone <!here>\r\nALERT fake → console' : 'transco',
      notice_id: i % 2 === 0 ? null : 900 + i,
      at: minutesBefore(i),
    }),
  );
  return silenceAlert({
    held: 25,
    alerts,
    matchers: `pipeline=<!channel> target=@everyone *x* <script>alert(1)</script>\r\n${'m'.repeat(5000)}`,
  });
}
