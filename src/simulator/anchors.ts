/**
 * Fixed notices present in every generated history: upcoming response deadlines for
 * reminder demos, and hostile bodies (script tags, chat mentions, markdown, huge and odd
 * text) that every renderer of notice text has to defend against.
 */
import type { NoticeKind } from './notice-labels.js';
import { DAY, HOUR } from './sim-time.js';

/** Text that replaces a generated notice's subject and body. */
export interface HostileBody {
  subject: string;
  html: string;
  /** Plain text; derived from the HTML when absent. */
  notice?: string;
}

const LONG_ROWS = Array.from(
  { length: 320 },
  (_, i) =>
    `<tr><td>${String(40_000 + i * 7)}</td><td>METER STATION ${i + 1} &amp; LATERAL</td>` +
    `<td>${(i * 1_337) % 90_000}</td><td>Secondary out-of-path nominations cut</td></tr>`,
).join('');

/** Bodies that break naive formatting, escaping or chat mention handling. */
export const HOSTILE_BODIES: readonly HostileBody[] = [
  {
    subject: 'Maintenance Update <script>alert(1)</script>',
    html:
      '<p>Maintenance update.</p><script>alert(1)</script>' +
      '<p><img src=x onerror="alert(2)"> See <a href="javascript:alert(3)">details</a>.</p>',
    notice:
      'Maintenance update. <script>alert(1)</script> See <img src=x onerror=alert(2)> details.',
  },
  {
    subject: '@everyone Critical period declared <!channel>',
    html:
      '<p>@everyone @here &lt;@U123ABC&gt; &lt;!channel&gt; &lt;!here&gt; &lt;@&amp;123456789&gt;' +
      ' please read this notice immediately.</p>',
  },
  {
    subject: '*URGENT* _Gas Control_ ~cancelled~ `OFO`',
    html:
      '<p>**bold** *bold* _x_ ~y~ `code` ```block``` [click here](https://evil.example/phish)' +
      '</p><p>&gt; quoted line<br># heading<br>| a | b |<br>&lt;https://evil.example|Gas Control&gt;</p>',
  },
  {
    subject:
      'Zone 3 \u2013 \u201cNon\u2011firm\u201d \u2705 \ud83d\udd25 \u202eevil\u202c\r\nsecond line',
    html:
      '<p>Ca\u00f1on \u00d1and\u00fa \u2014 zero\u200bwidth, joiner\u200d, BOM\ufeff, tab\there,' +
      ' RTL \u202egnp.exe\u202c, emoji \ud83d\udc4d\ud83c\udffd &#128293; &#x2603; &bogus;</p>',
  },
];

/** A long body: the notice text is well over 10,000 characters. */
export const LONG_BODY: HostileBody = {
  subject: 'Capacity Constraint - Scheduled Reductions at All Receipt Meters',
  html:
    '<p>The following receipt meters will be scheduled at reduced levels.</p>' +
    `<table border="1"><tr><th>Meter</th><th>Name</th><th>Scheduled</th><th>Note</th></tr>${LONG_ROWS}</table>`,
};

/** A fixed notice: a generated notice of a kind, posted a set time before the start. */
export interface Anchor {
  slug: string;
  before: number;
  kind: NoticeKind;
  critical: boolean;
  /** Response deadline relative to the posting time. */
  responseIn?: number;
  endAt?: string;
  body?: HostileBody;
}

/** The anchors, each placed a fixed time before the simulator's start. */
export const ANCHORS: readonly Anchor[] = [
  {
    slug: 'transco',
    before: 5 * HOUR,
    kind: 'ofo',
    critical: true,
    responseIn: 20 * HOUR,
    endAt: '2049-12-31 23:59:00',
  },
  {
    slug: 'texas-eastern',
    before: 3 * HOUR,
    kind: 'capacity-release',
    critical: false,
    responseIn: 29 * HOUR,
  },
  {
    slug: 'tennessee',
    before: 30 * HOUR,
    kind: 'maintenance',
    critical: true,
    body: HOSTILE_BODIES[0],
  },
  {
    slug: 'columbia',
    before: 2 * DAY,
    kind: 'critical-period',
    critical: true,
    body: HOSTILE_BODIES[1],
  },
  { slug: 'ngpl', before: 3 * DAY, kind: 'ofo', critical: true, body: HOSTILE_BODIES[2] },
  { slug: 'anr', before: 4 * DAY, kind: 'constraint', critical: true, body: LONG_BODY },
  {
    slug: 'southern-natural',
    before: 6 * DAY,
    kind: 'operational-alert',
    critical: false,
    body: HOSTILE_BODIES[3],
    endAt: '9000-12-31 00:00:00',
  },
];
