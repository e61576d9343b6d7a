import { describe, expect, it } from 'vitest';
import { parseChatCommand, VERBS } from '../../src/chat/grammar.js';
import { helpReply, usage } from '../../src/chat/usage.js';

const STORE = {
  pipelines: ['transco', 'texas-eastern'],
  types: ['Capacity Constraint', 'Planned Maintenance'],
  categories: [],
  statuses: [],
};

describe('usage', () => {
  it('is short lines, for a phone', () => {
    for (const text of [usage(), ...VERBS.map((v) => usage(v))]) {
      for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(62);
    }
  });

  it('names every command, and gives an example of each that the grammar takes', () => {
    const all = usage();
    for (const verb of VERBS) {
      expect(all).toMatch(new RegExp(`^${verb}\\b`, 'm'));
      const examples = usage(verb)
        .split('\n')
        .filter((l) => l.startsWith('  /pipewatch '));
      expect(examples).toHaveLength(1);
      expect(all).toContain(examples[0]);
      const parsed = parseChatCommand(examples[0]!.replace('  /pipewatch ', ''), STORE);
      expect(parsed, examples[0]).toMatchObject({ ok: true, command: { verb } });
    }
  });

  it('answers help with the usage asked for, only to the caller', () => {
    expect(helpReply()).toEqual({
      private: true,
      text: 'How to write /pipewatch commands',
      sections: [{ kind: 'code', text: usage() }],
    });
    expect(helpReply('mute').sections).toEqual([{ kind: 'code', text: usage('mute') }]);
    expect(usage('mute')).toMatch(
      /^mute \[PIPELINE\] \[type:T,…\].*\n +for DURATION \| until TIME/,
    );
  });
});
