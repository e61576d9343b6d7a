/**
 * What changed in a notice, as each channel shows it: hostile words in a change stay
 * text on every channel, the notice it supersedes is linked, and a huge change stays a
 * message of bounded size.
 */
import { describe, expect, it } from 'vitest';
import { noticeChanges } from '../../src/alerts/notice-changes.js';
import type { AlertPayload } from '../../src/alerts/payload.js';
import { renderConsole } from '../../src/channels/console/render.js';
import { renderMessage } from '../../src/channels/discord/render.js';
import { renderEmail } from '../../src/channels/email/render.js';
import { renderSlack } from '../../src/channels/slack/render.js';
import type { Alert } from '../../src/channels/types.js';
import { renderWebhook } from '../../src/channels/webhook/render.js';
import { makeNotice } from '../fakes/notice.js';
import { SENT_AT } from './payload-samples.js';

const HOSTILE = '<!channel> @everyone <script>alert(1)</script> *bold* ~strike~';

function updated(over: Partial<AlertPayload> = {}, notice = makeNotice()): Alert {
  const before = makeNotice({ status: 'Initiate', notice: 'Deliveries limited at Station 165.' });
  const after = makeNotice({
    status: `Revised ${HOSTILE}`,
    notice: `Deliveries limited at Station 165. ${HOSTILE}`,
    end_at: '2026-11-23T15:00:00Z',
  });
  return {
    key: 'transco-all|notice:101:v2|x',
    payload: {
      version: 1,
      kind: 'notice',
      state: 'updated',
      rule: 'transco-all',
      pipeline: { slug: 'transco', name: 'Transco' },
      zone: 'America/Chicago',
      notice: { ...after, ...notice, status: after.status, notice: after.notice },
      changed: ['status', 'notice', 'end_at'],
      changes: noticeChanges(before, after),
      ...over,
    },
  };
}

const slackText = (a: Alert) => JSON.stringify(renderSlack([a], SENT_AT).blocks);
const discordText = (a: Alert) => JSON.stringify(renderMessage([a], SENT_AT).embeds);
const email = (a: Alert) => renderEmail([a], { from: 'p <a@example.com>', now: SENT_AT });

describe('what changed, on each channel', () => {
  it('says the values, the time moved and the words, with hostile words kept as text', () => {
    const a = updated();
    const slack = slackText(a);
    expect(slack).toContain('*Status:* Initiate → Revised &lt;!channel&gt;');
    expect(slack).toContain('*Ends:* none → Mon Nov 23, 9 AM CST');
    expect(slack).not.toMatch(/<!channel>|<script>/);
    const discord = discordText(a);
    expect(discord).toContain('"name":"Changed: Status"');
    expect(discord).toContain('@\u200beveryone');
    expect(discord).not.toMatch(/@everyone/);
    const mail = email(a);
    expect(mail.text).toContain('Status:       Initiate → Revised <!channel> @everyone');
    expect(mail.text).toContain('Text:         … limited at Station 165. {+<!channel> @everyone');
    expect(mail.html).toContain(
      '<ins style="background:#dafbe1;text-decoration:none">&lt;!channel&gt;',
    );
    expect(mail.html).not.toContain('<script>');
    const printed = renderConsole(a.payload, 'console', SENT_AT);
    expect(printed).toContain('(changed: Status, Ends, Text)');
    expect(printed).toContain('    Ends: none → Mon Nov 23, 9 AM CST');
  });

  it('links the notice it supersedes, escaped, on every channel and in the webhook body', () => {
    const supersedes = {
      id: 8,
      identifier: '26-0412',
      subject: `Old constraint ${HOSTILE}`,
      url: 'https://example.com/n/8?a=1&b=(2)',
    };
    const a = updated({ state: 'new', changed: undefined, supersedes });
    expect(slackText(a)).toContain(
      '*Supersedes:* <https://example.com/n/8?a=1&amp;b=(2)|Notice 26-0412: Old constraint &lt;!channel&gt;',
    );
    expect(discordText(a)).toContain('(https://example.com/n/8?a=1&b=%282%29)');
    expect(email(a).html).toContain('<a href="https://example.com/n/8?a=1&amp;b=(2)"');
    expect(renderConsole(a.payload, 'console')).toContain(
      '    Supersedes notice 26-0412: Old constraint <!channel>',
    );
    const body = JSON.parse(renderWebhook(a.payload, SENT_AT));
    expect(body.supersedes).toEqual(supersedes);
    expect(body.changes.map((c: { label: string }) => c.label)).toEqual(['Status', 'Ends', 'Text']);
  });

  it('a 200 KB change makes a message of bounded size', () => {
    const huge = Array.from({ length: 40_000 }, (_, i) => `w${(i * 7) % 9973}`).join(' ');
    const before = makeNotice({ notice: 'Short.' });
    const after = makeNotice({ notice: `Short. ${huge}`, subject: 'S'.repeat(200_000) });
    const a = updated({ changes: noticeChanges(before, after) });
    const change = renderConsole(a.payload, 'console')
      .split('\n')
      .filter((l) => /^ {4}(Text|Subject):/.test(l));
    expect(change).toHaveLength(2);
    for (const line of change) expect(line.length).toBeLessThan(800);
    expect(JSON.stringify(a.payload.changes).length).toBeLessThan(2_500);
  });

  it('an update queued before alerts carried changes still names the fields', () => {
    const a = updated({ changes: undefined });
    expect(renderConsole(a.payload, 'console')).toContain('(changed: status, notice, end_at)');
    expect(slackText(a)).toContain('Changed: status, notice, end');
    expect(JSON.parse(renderWebhook(a.payload, SENT_AT)).changes).toEqual([]);
  });
});
