import { describe, expect, it } from 'vitest';
import { type ChatProblem, parseChatCommand } from '../../src/chat/grammar.js';
import { problemReply } from '../../src/chat/problems.js';
import { usage } from '../../src/chat/usage.js';

const STORE = { pipelines: ['transco', 'tgp'], types: [], categories: [], statuses: [] };

function reply(text: string) {
  const parsed = parseChatCommand(text, STORE);
  if (parsed.ok) throw new Error('accepted');
  return problemReply(text, parsed.problems, parsed.verb);
}

describe('problemReply', () => {
  it('shows the command with a caret under the first wrong word, each problem, and the usage', () => {
    expect(reply('subscribe transco trnsco typ:x')).toEqual({
      private: true,
      text: "/pipewatch: unknown pipeline 'trnsco' — did you mean 'transco'?",
      sections: [
        {
          kind: 'code',
          text: [
            '/pipewatch subscribe transco trnsco typ:x',
            '                             ^^^^^^',
          ].join('\n'),
        },
        {
          kind: 'text',
          text: [
            "• unknown pipeline 'trnsco' — did you mean 'transco'?",
            '• unknown option typ: — did you mean type:?',
          ].join('\n'),
        },
        { kind: 'code', text: usage('subscribe') },
      ],
    });
  });

  it('answers an unknown verb with every command', () => {
    const r = reply('subscirbe transco');
    expect(r.sections.at(-1)).toEqual({ kind: 'code', text: usage() });
    expect(r.sections[0]).toEqual({
      kind: 'code',
      text: '/pipewatch subscirbe transco\n           ^^^^^^^^^',
    });
  });

  it('answers help on an unknown command with every command', () => {
    expect(reply('help subscirbe').sections.at(-1)).toEqual({ kind: 'code', text: usage() });
  });

  it('points past the end at what is missing', () => {
    expect(reply('mute transco').sections[0]).toEqual({
      kind: 'code',
      text: '/pipewatch mute transco\n                        ^',
    });
  });

  it('keeps the caret under its word after wide characters, tabs and line breaks', () => {
    expect(reply('oac\ttransco "🔥 85"\nbelow:x').sections[0]).toEqual({
      kind: 'code',
      text: '/pipewatch oac transco "🔥 85" below:x\n                                     ^',
    });
  });

  it('shows a long command around its first wrong word', () => {
    const text = `subscribe transco text:"${'a'.repeat(100)}" typ:x`;
    const [line, carets] = (reply(text).sections[0] as { text: string }).text.split('\n');
    expect(line).toBe(`/pipewatch …${'a'.repeat(53)}" typ:x`);
    expect(carets).toBe(`${' '.repeat(line!.indexOf('typ:x'))}^^^^^`);
  });

  it('shows the start of a command too long to read, and lists at most ten problems', () => {
    const problems: ChatProblem[] = Array.from({ length: 12 }, (_, i) => ({
      message: `problem ${i + 1}`,
      word: '',
      column: 1,
    }));
    const r = problemReply('x'.repeat(3_000), problems);
    expect(r.sections[0]).toEqual({
      kind: 'code',
      text: `/pipewatch ${'x'.repeat(60)}…\n           ^`,
    });
    expect((r.sections[1] as { text: string }).text.split('\n')).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `• problem ${i + 1}`),
      '• and 2 more',
    ]);
  });
});
