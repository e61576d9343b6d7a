/**
 * What the chat apps answer, byte for byte, on Slack and on Discord: replies with
 * pipewatch's own hints (`unmute 12`, shown as code), with what someone typed (shown as
 * typed, whatever markup it holds), lists and fixed-width text, against the files under
 * `test/fixtures/replies/<platform>/<name>.json`. After a deliberate change, rewrite them
 * with
 *   UPDATE_FIXTURES=1 npx vitest run test/frontends/reply-fixtures.test.ts
 * and read the diff before committing it.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hint } from '../../src/chat/hints.js';
import type { ChatReply } from '../../src/chat/types.js';
import { replyData } from '../../src/frontends/discord/reply-messages.js';
import { replyMessage } from '../../src/frontends/slack/reply-blocks.js';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/replies');
const UPDATE = process.env.UPDATE_FIXTURES === '1';

/** A problem quoting what someone typed, markup and mentions included, with two hints. */
const TYPED = `unknown command '\`@everyone\` *now* _x_ ~y~ <!here>' — did you mean ${hint('subscribe')}? ${hint('help')} lists them.`;

const REPLIES: Record<string, ChatReply> = {
  muted: {
    private: false,
    text: `<@U0ALICE> muted transco here for 4 h, until 6:00 PM CST (silence #12). What it holds back is summed up when it ends; ${hint('unmute 12')} ends it now.`,
    sections: [],
  },
  'list-empty': {
    private: true,
    text: '0 subscriptions here, 0 reminders of yours, 0 silences in force.',
    sections: [
      {
        kind: 'list',
        title: 'Subscriptions here',
        items: [],
        empty: `None yet: ${hint('subscribe PIPELINES type:…')} makes one.`,
      },
      {
        kind: 'list',
        title: 'Your reminders',
        items: [{ id: 3, text: 'transco before 24h,2h' }],
        empty: `None: ${hint('remind PIPELINES before:24h,2h')} makes one.`,
      },
    ],
  },
  'typed-markup': {
    private: true,
    text: TYPED,
    sections: [
      { kind: 'text', text: TYPED },
      { kind: 'code', text: 'subscribe PIPELINES [type:TYPE]\n  `quoted`' },
    ],
  },
};

const PLATFORMS = {
  slack: (r: ChatReply) => replyMessage(r),
  discord: (r: ChatReply) => replyData(r),
};

for (const [platform, render] of Object.entries(PLATFORMS)) {
  describe(`the ${platform} app answers, byte for byte`, () => {
    for (const [name, reply] of Object.entries(REPLIES)) {
      it(name, () => {
        const actual = `${JSON.stringify(render(reply), null, 2)}\n`;
        const file = join(FIXTURES, platform, `${name}.json`);
        if (UPDATE) {
          mkdirSync(join(FIXTURES, platform), { recursive: true });
          writeFileSync(file, actual);
          return;
        }
        expect(existsSync(file), `${file} is missing: run with UPDATE_FIXTURES=1`).toBe(true);
        expect(actual).toBe(readFileSync(file, 'utf8'));
      });
    }
  });
}

describe('hints in replies', () => {
  it('are code on both platforms, and what someone typed is not', () => {
    const slack = JSON.stringify(replyMessage(REPLIES['typed-markup']!));
    expect(slack).toContain('`subscribe`');
    expect(slack).not.toContain('`@everyone`');
    const discord = replyData(REPLIES['typed-markup']!).content;
    expect(discord).toContain('`subscribe`');
    expect(discord).toContain('\\`@\u200beveryone\\`');
    expect(discord).not.toMatch(/[\uE000\uE001]/);
  });
});
