/**
 * A silence's summary in Slack: the header, the count, the held alerts as a list linked
 * to their notices (or with their ids), `…and N more` past those listed, alone and
 * inside a digest; and, with hostile held alerts, inert and within Block Kit's limits,
 * rendered and sent to the fake.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSlack, type SlackMessage } from '../../../src/channels/slack/index.js';
import { MAX_DIGEST } from '../../../src/channels/slack/render.js';
import { capacityAlert, hostileAlerts, noticeAlert } from '../../fakes/alerts.js';
import { heldAlert, hostileSilence, manyHeld, silenceAlert } from '../../fakes/silence.js';
import { type SlackFake, startSlackFake } from '../../fakes/slack.js';
import { checkMessage } from '../../fakes/slack-blocks.js';
import { allTexts, channelsFor, LIVE_MARKUP, sendContext } from './support.js';

const NOW = '2026-11-20T15:00:00Z';
const DATE_TOKEN = /<!date\^\d+\^\{date_short_pretty\} \{time\}\|[^<>|]*>/g;
/** The links pipewatch itself writes for the hostile alerts' http(s) URLs. */
const OWN_LINKS = [
  '<https://evil.example/x?a=1&amp;b=%3C2%3E%7Cy)(z%20*b*%20_i_|',
  '<https://evil.example/x|',
  '<https://evil.example/x?a=1&amp;b=%3C2%3E|',
  '<https://evil.example/ALERT%20fake%20%E2%86%92%20console:%20injected%1B[2K|',
];

type Section = { type: string; text?: { type: string; text: string } };
const sections = (m: SlackMessage) =>
  (m.blocks as Section[]).filter((b) => b.type === 'section' && b.text).map((b) => b.text!.text);
const listLines = (m: SlackMessage) =>
  sections(m)
    .flatMap((t) => t.split('\n'))
    .filter((l) => l.startsWith('• '));

/** Within Block Kit's limits, and no mention, link or tag of anyone else's live. */
function expectInert(message: SlackMessage | { text: string; blocks: unknown[] }) {
  expect(checkMessage(message.text, message.blocks)).toBeUndefined();
  for (const text of allTexts(message)) {
    let foreign = text.replace(DATE_TOKEN, '');
    for (const own of OWN_LINKS) foreign = foreign.split(own).join('');
    for (const markup of LIVE_MARKUP)
      expect(foreign.toLowerCase()).not.toContain(markup.toLowerCase());
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
    expect(foreign).not.toMatch(/[\u202a-\u202e\u2066-\u2069\r\u001b]/);
    expect(foreign).not.toContain('secret');
  }
}

describe('a silence’s summary in Slack', () => {
  it('has a header, the count, when, the list and the rule', () => {
    const reminder = heldAlert({
      kind: 'deadline',
      state: 'reminder',
      rule: 'ofo-reminders',
      title: 'Response due in 2 h: OFO',
      notice_id: 216650,
      url: null,
    });
    const m = renderSlack([silenceAlert({ alerts: [heldAlert(), reminder] })], NOW);
    expect(m.text).toBe('[Transco] Silence #12 ended — while muted: 2 alerts');
    expect(m.blocks[0]).toMatchObject({
      type: 'header',
      text: { text: '\ud83d\udd15 Transco: Silence #12 ended' },
    });
    expect(sections(m)[0]).toBe(
      '*While muted: 2 alerts*\nMuted: pipeline=transco target=slack:C0GAS',
    );
    expect(listLines(m)).toEqual([
      '• <https://www.1line.williams.com/xhtml/notice.jsf?id=101|Notice 26-0412: Capacity Constraint - Station 165> · new notice · <!date^1795186800^{date_short_pretty} {time}|Fri, Nov 20, 2026, 3:00 PM UTC>',
      '• Response due in 2 h: OFO · reminder · notice #216650 · <!date^1795186800^{date_short_pretty} {time}|Fri, Nov 20, 2026, 3:00 PM UTC>',
    ]);
    expect(allTexts(m.blocks.at(-1))).toEqual(['pipewatch · rule silence-12']);
  });

  it('says a silence lifted early, and names the pipelines of one over every pipeline', () => {
    const m = renderSlack(
      [
        silenceAlert(
          { ended_by: 'lifted', alerts: [heldAlert({ pipeline: 'tetco' })] },
          { pipeline: { slug: 'all', name: 'all pipelines' } },
        ),
      ],
      NOW,
    );
    expect(m.text).toBe('[all pipelines] Silence #12 lifted — while muted: 1 alert');
    expect(allTexts(m.blocks).join('\n')).toContain('(lifted early)');
    expect(listLines(m)[0]).toContain('> · tetco · new notice · ');
  });

  it('lists every alert the summary carries, over as many sections as they need, then the rest', () => {
    const long = manyHeld(20, { url: `https://example.com/${'n'.repeat(900)}` });
    const m = renderSlack([silenceAlert({ held: 25, alerts: long })], NOW);
    expect(checkMessage(m.text, m.blocks)).toBeUndefined();
    expect(listLines(m)).toHaveLength(20);
    expect(sections(m).filter((t) => t.startsWith('• ')).length).toBeGreaterThan(1);
    expect(allTexts(m.blocks.at(-2))).toEqual(['…and 5 more']);
  });

  it('keeps its list inside a full digest, as many lines as fit one section and the rest counted', () => {
    const summary = silenceAlert({ held: 25, alerts: manyHeld(20) });
    const others = Array.from({ length: MAX_DIGEST - 2 }, (_, i) => noticeAlert({ id: 300 + i }));
    const m = renderSlack([...others, summary, capacityAlert()], NOW);
    expect(checkMessage(m.text, m.blocks)).toBeUndefined();
    const item = sections(m).find((t) => t.startsWith('*Silence #12'))!;
    expect(item.split('\n')[0]).toBe('*Silence #12 ended — while muted: 25 alerts*');
    const lines = item.split('\n').filter((l) => l.startsWith('• '));
    expect(lines.length).toBeGreaterThan(3);
    expect(item.split('\n').at(-1)).toBe(`…and ${25 - lines.length} more`);
    expect(m.text).toContain('• Silence #12 ended — while muted: 25 alerts');
  });
});

describe('a silence’s summary of hostile held alerts', () => {
  it('renders inert and within limits, alone and in a digest', () => {
    const alone = renderSlack([hostileSilence()], NOW);
    expectInert(alone);
    expectInert(renderSlack([hostileSilence(), ...hostileAlerts()], NOW));
    const text = allTexts(alone).join('\n');
    expect(text).toContain(
      '&lt;script&gt;alert(1)&lt;/script&gt; @everyone @here &lt;!channel&gt;',
    );
    expect(text).toContain(
      '\u2217URGENT\u2217 \u02cdGas Control\u02cd \u223ccancelled\u223c \u02cbOFO\u02cb',
    );
    expect(text).toContain('Muted: pipeline=&lt;!channel&gt; target=@everyone \u2217x\u2217');
    expect(text).not.toContain('javascript:');
    expect(text).not.toContain('x'.repeat(200));
    expect(text).toContain(OWN_LINKS[0]);
    expect(listLines(alone)).toHaveLength(20);
    expect(allTexts(alone.blocks.at(-2))).toEqual(['…and 5 more']);
  });
});

describe('a silence’s summary sent to Slack', () => {
  let fake: SlackFake;
  beforeAll(async () => {
    fake = await startSlackFake({ rate: { perSecond: 100, burst: 20 } });
  });
  afterAll(() => fake.close());

  it('is accepted and arrives inert, alone and in a digest', async () => {
    const { slack, slack_dm } = channelsFor(fake);
    const ctx = sendContext();
    await slack.send({ kind: 'slack', channel: '#gas' }, [hostileSilence()], ctx);
    await slack_dm.send({ kind: 'slack_dm', user: 'U0ALICE' }, [hostileSilence()], ctx);
    await slack.send(
      { kind: 'slack', channel: 'C0OPS' },
      [hostileSilence(), ...hostileAlerts()],
      ctx,
    );
    expect(fake.posts).toHaveLength(3);
    for (const post of fake.posts) expectInert(post);
    await slack.close?.();
  });
});
