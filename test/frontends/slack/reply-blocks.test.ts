/**
 * The chat core's replies as Slack blocks: what someone typed never arrives live, lists
 * carry their Remove buttons, code stays preformatted, and whatever the reply, the
 * message and the home view stay within Block Kit's limits. And the command text the
 * core reads: Slack's escaping undone.
 */
import { describe, expect, it } from 'vitest';
import { decodeAction } from '../../../src/channels/slack/actions.js';
import type { ChatReply } from '../../../src/chat/types.js';
import { commandText } from '../../../src/frontends/slack/command-text.js';
import { homeView, replyMessage } from '../../../src/frontends/slack/reply-blocks.js';
import { allTexts, LIVE_MARKUP } from '../../channels/slack/support.js';
import { checkMessage } from '../../fakes/slack-blocks.js';
import { viewProblems } from '../../fakes/slack-methods.js';

type Json = Record<string, unknown>;

const hostile = '<!channel> *urgent* <http://evil.example|click> & <@U0BOB> `x` ~y~ _z_';

describe('replyMessage', () => {
  it('makes every text inert: no mention, link or format arrives live', () => {
    const reply: ChatReply = {
      private: true,
      text: hostile,
      sections: [
        { kind: 'text', text: `${hostile}\n> quoted` },
        { kind: 'list', title: hostile, items: [{ id: 1, text: hostile }] },
        { kind: 'code', text: `${hostile}\n\`\`\`closing` },
      ],
    };
    const message = replyMessage(reply);
    for (const text of allTexts(message)) {
      for (const markup of LIVE_MARKUP) expect(text).not.toContain(markup);
    }
    expect(message.text).toBe(
      '&lt;!channel&gt; ∗urgent∗ &lt;http://evil.example|click&gt; &amp; &lt;@U0BOB&gt; ˋxˋ ∼y∼ ˍzˍ',
    );
    expect(checkMessage(message.text, message.blocks)).toBeUndefined();
  });

  it('gives a list item with a Remove button a section of its own, its action in the value', () => {
    const message = replyMessage({
      private: true,
      text: 'list',
      sections: [
        {
          kind: 'list',
          title: 'Subscriptions',
          items: [
            {
              id: 12,
              text: 'transco type:constraint',
              remove: { kind: 'remove', what: 'subscription', id: 12 },
            },
            { id: 13, text: 'tetco' },
            { id: 14, text: 'anr' },
          ],
        },
      ],
    });
    const blocks = message.blocks as unknown as Json[];
    expect(blocks).toHaveLength(3);
    expect(blocks[1]).toMatchObject({ text: { text: '#12 transco type:constraint' } });
    const button = blocks[1]!.accessory as { action_id: string; value: string };
    expect(decodeAction(button.action_id, button.value)).toEqual({
      kind: 'remove',
      what: 'subscription',
      id: 12,
    });
    expect(blocks[2]).toMatchObject({ text: { text: '• #13 tetco\n• #14 anr' } });
  });

  it('says so when a list is empty', () => {
    const message = replyMessage({
      private: true,
      text: 'list',
      sections: [{ kind: 'list', title: 'Silences', items: [], empty: 'No silences.' }],
    });
    expect(JSON.stringify(message.blocks)).toContain('_No silences._');
  });

  it('keeps code preformatted, its backticks unable to close the block', () => {
    const message = replyMessage({
      private: true,
      text: 'usage',
      sections: [{ kind: 'code', text: 'subscribe PIPELINES [type:T]\n```\n<x>' }],
    });
    expect((message.blocks[0] as unknown as Json).text).toMatchObject({
      text: '```\nsubscribe PIPELINES [type:T]\nˋˋˋ\n&lt;x&gt;\n```',
    });
  });

  it('splits long text over sections and counts what does not fit in 50 blocks', () => {
    const line = 'x'.repeat(1000);
    const long = Array.from({ length: 200 }, () => line).join('\n');
    const message = replyMessage({
      private: true,
      text: 'long',
      sections: [{ kind: 'text', text: long }],
    });
    expect(message.blocks).toHaveLength(50);
    expect(checkMessage(message.text, message.blocks)).toBeUndefined();
    const last = message.blocks[49] as unknown as Json;
    expect(last.type).toBe('context');
    expect(JSON.stringify(last)).toContain('…and 51 more not shown.');
  });

  it('shows the one-line text when there are no sections', () => {
    const message = replyMessage({ private: true, text: 'Done.', sections: [] });
    expect(message.blocks).toEqual([
      { type: 'section', text: { type: 'mrkdwn', text: 'Done.', verbatim: true } },
    ]);
  });
});

describe('homeView', () => {
  it('is a home view of at most 100 blocks under a header, as views.publish takes it', () => {
    const items = Array.from({ length: 150 }, (_, i) => ({
      id: i + 1,
      text: `subscription ${i + 1}`,
      remove: { kind: 'remove' as const, what: 'subscription' as const, id: i + 1 },
    }));
    const view = homeView({
      private: true,
      text: 'home',
      sections: [{ kind: 'list', title: 'Yours', items }],
    });
    expect(view.type).toBe('home');
    expect(view.blocks).toHaveLength(100);
    expect(view.blocks[0]).toMatchObject({ type: 'header' });
    expect(JSON.stringify(view.blocks[99])).toContain('more not shown');
    expect(viewProblems(JSON.parse(JSON.stringify(view)))).toEqual([]);
  });
});

describe('commandText', () => {
  it('undoes entities and turns tokens into what was typed', () => {
    expect(commandText('text:&quot;a &amp;lt; b&quot; &lt;x&gt; &amp;&amp;')).toBe(
      'text:&quot;a &lt; b&quot; <x> &&',
    );
    expect(
      commandText('<#C0GAS|gas> <#C0OPS> <@U0ALICE> <@W0BOB|bob> <!here> <!subteam^S0OPS|@ops>'),
    ).toBe('#gas #C0OPS @U0ALICE @W0BOB @here @ops');
    expect(commandText('<https://x.example/a?b=1&amp;c=2|x.example> <mailto:a@b.c|a@b.c>')).toBe(
      'https://x.example/a?b=1&c=2 mailto:a@b.c',
    );
    expect(commandText('subscribe transco text:"Station 8[0-9] &gt; 50"')).toBe(
      'subscribe transco text:"Station 8[0-9] > 50"',
    );
  });
});
