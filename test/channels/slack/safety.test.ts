/**
 * Hostile notices (mentions, markup, HTML, CR/LF, mrkdwn, bidi overrides, very long text)
 * rendered and sent: each is accepted by Slack and arrives inert and within limits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSlack, type SlackMessage } from '../../../src/channels/slack/index.js';
import { hostileAlerts } from '../../fakes/alerts.js';
import { type SlackFake, startSlackFake } from '../../fakes/slack.js';
import { checkMessage } from '../../fakes/slack-blocks.js';
import { allTexts, channelsFor, LIVE_MARKUP, sendContext } from './support.js';

const DATE_TOKEN = /<!date\^\d+\^\{date_short_pretty\} \{time\}\|[^<>|]*>/g;
/** The link pipewatch itself writes to the hostile notices' URL. */
const OWN_LINK = '<https://evil.example/x?a=1&amp;b=%3C2%3E|';

/** Texts with pipewatch's own date tokens and links taken out. */
function foreign(message: unknown): string[] {
  return allTexts(message).map((t) => t.replace(DATE_TOKEN, '').split(OWN_LINK).join(''));
}

function expectInert(message: SlackMessage | { text: string; blocks: unknown[] }) {
  expect(checkMessage(message.text, message.blocks)).toBeUndefined();
  for (const text of foreign(message)) {
    for (const markup of LIVE_MARKUP)
      expect(text.toLowerCase()).not.toContain(markup.toLowerCase());
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069\r]/);
  }
  for (const b of message.blocks as Array<{
    type: string;
    text?: { type: string; text: string };
  }>) {
    if (b.type !== 'header') continue;
    expect(b.text!.type).toBe('plain_text');
    expect(b.text!.text.length).toBeLessThanOrEqual(150);
    expect(b.text!.text).not.toMatch(/\n/);
  }
}

describe('hostile notices', () => {
  it.each(hostileAlerts().map((a, i) => [i, a] as const))('#%i renders inert', (_i, alert) => {
    expectInert(renderSlack([alert]));
  });

  it('escapes mentions and markup, and neutralises mrkdwn formatting', () => {
    const [script, mention, markdown, unicode] = hostileAlerts().map((a) =>
      allTexts(renderSlack([a])),
    );
    expect(script).toContain('*Maintenance Update &lt;script&gt;alert(1)&lt;/script&gt;*');
    expect(mention).toContain('*@everyone Critical period declared &lt;!channel&gt;*');
    expect(mention!.join('\n')).toContain('&lt;@U123ABC&gt; &lt;!channel&gt; &lt;!here&gt;');
    expect(markdown).toContain(
      '*\u2217URGENT\u2217 \u02cdGas Control\u02cd \u223ccancelled\u223c \u02cbOFO\u02cb*',
    );
    expect(markdown!.join('\n')).toContain('&lt;https://evil.example|Gas Control&gt;');
    expect(unicode!.join('\n')).toContain('evil second line');
  });

  it('gives the button a normalised URL', () => {
    const m = renderSlack([hostileAlerts()[0]!]);
    const actions = m.blocks.find((b) => b.type === 'actions') as {
      elements: Array<{ url: string }>;
    };
    expect(actions.elements[0]!.url).toBe('https://evil.example/x?a=1&b=%3C2%3E');
  });

  it('renders a digest of all of them inert', () => {
    expectInert(renderSlack(hostileAlerts()));
  });
});

describe('hostile notices sent to Slack', () => {
  let fake: SlackFake;
  beforeAll(async () => {
    fake = await startSlackFake({ rate: { perSecond: 100, burst: 20 } });
  });
  afterAll(() => fake.close());

  it('are all accepted and arrive inert', async () => {
    const { slack, slack_dm } = channelsFor(fake);
    const ctx = sendContext();
    for (const alert of hostileAlerts()) {
      await slack.send({ kind: 'slack', channel: '#gas' }, [alert], ctx);
      await slack_dm.send({ kind: 'slack_dm', user: 'U0ALICE' }, [alert], ctx);
    }
    await slack.send({ kind: 'slack', channel: 'C0OPS' }, hostileAlerts(), ctx);
    expect(fake.posts).toHaveLength(hostileAlerts().length * 2 + 1);
    for (const post of fake.posts) expectInert(post);
    await slack.close?.();
  });
});
