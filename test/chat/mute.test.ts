/**
 * `mute` with matchers on the notice's fields and a window of its own: `type:` as whole
 * words (as a subscription reads it), `from`/`until` as instants with their zone, within
 * a mute's bounds; what it stores holds back what it says, and nothing before its start.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { alertLabels } from '../../src/alerts/silence-matchers.js';
import { silenceMatches } from '../../src/alerts/silences.js';
import type { ChatCaller } from '../../src/chat/types.js';
import type { Target } from '../../src/domain/targets.js';
import type { Store } from '../../src/store/index.js';
import { makeNotice } from '../fakes/notice.js';
import { CORE_NOW, type CoreUnderTest, startChatCore } from '../support/chat-core.js';

const NOW = CORE_NOW;
let started: CoreUnderTest | undefined;
let store: Store;
afterEach(() => started?.close());

function setup() {
  started = startChatCore({ admins: [] });
  store = started.store;
  store.notices.upsert(makeNotice({ id: 1, type: 'Planned Maintenance' }), NOW, false);
  store.notices.upsert(makeNotice({ id: 2, type: 'Capacity Constraint' }), NOW, false);
  return started.core;
}

const alice: ChatCaller = {
  platform: 'slack',
  channel: 'C0GAS',
  channelName: 'gas',
  user: 'U0ALICE',
};
const GAS: Target = { kind: 'slack', channel: 'C0GAS' };
const notice = (type: string) => ({ type, category: 'Critical', status: 'Initiate' });

describe('mute with type: and a window', () => {
  it('mute transco type:maintenance for 4h holds back maintenance notices only, as whole words', async () => {
    const chat = setup();
    const said = (await chat.command(alice, 'mute transco type:maintenance for 4h')).reply;
    expect(said.private).toBe(false);
    expect(said.text).toMatch(
      /^U0ALICE muted transco type:maintenance here for 4h, until \S+ \(silence #1\)/,
    );
    const [s] = store.silences.active(NOW);
    const holds = (type: string | undefined, pipeline = 'transco') =>
      silenceMatches(
        s!,
        alertLabels('sub-1', pipeline, GAS, type === undefined ? undefined : notice(type)),
      );
    expect(holds('Planned Maintenance')).toBe(true);
    expect(holds('MAINTENANCE')).toBe(true);
    expect(holds('Planned Maintenance', 'tgp')).toBe(false);
    expect(holds('Capacity Constraint')).toBe(false);
    expect(holds('Maintenance-Window')).toBe(false);
    expect(holds('Premaintenance')).toBe(false);
    // A capacity alert has no type: a type: mute does not hold it.
    expect(holds(undefined)).toBe(false);
  });

  it('takes several values and several fields, each field required', async () => {
    const chat = setup();
    await chat.command(alice, 'mute type:maintenance,"capacity constraint" status:initiate for 1h');
    const [s] = store.silences.active(NOW);
    const holds = (type: string, status: string) =>
      silenceMatches(s!, alertLabels('r', 'transco', GAS, { type, category: 'x', status }));
    expect(holds('Planned Maintenance', 'Initiate')).toBe(true);
    expect(holds('Capacity Constraint', 'INITIATE')).toBe(true);
    expect(holds('Capacity Constraint', 'Terminate')).toBe(false);
  });

  it('mute … from TIME until TIME starts later, holding nothing before', async () => {
    const chat = setup();
    const said = (
      await chat.command(
        alice,
        'mute transco from 2026-11-21T09:00-06:00 until 2026-11-21T13:00-06:00',
      )
    ).reply;
    expect(said.text).toMatch(
      /muted transco here from 2026-11-21T15:00:00Z until 2026-11-21T19:00:00Z \(4h; nothing is held back before then\) \(silence #1\)/,
    );
    expect(store.silences.active(NOW)).toEqual([]);
    expect(store.silences.active('2026-11-21T15:00:00Z').map((s) => s.id)).toEqual([1]);
    const later = (await chat.command(alice, 'mute from 2026-11-21T15:00Z for 2h')).reply;
    expect(later.text).toMatch(/until 2026-11-21T17:00:00Z \(2h;/);
  });

  it('says in the answer when the mute matches nothing stored in the last 30 days, and stores it', async () => {
    const chat = setup();
    expect(
      (await chat.command(alice, 'mute transco type:maintenance for 1h')).reply.text,
    ).not.toMatch(/Warning/);
    const typo = (await chat.command(alice, 'mute tgp type:maintenance for 1h')).reply.text;
    expect(typo).toMatch(/^U0ALICE muted tgp type:maintenance here for 1h/);
    expect(typo).toMatch(
      /\nWarning: pipeline=tgp type=~"\(\?:\.\*.*" matches no notice or capacity stored in the last 30d; check for a typo: the silence holds back only what matches it\.$/,
    );
    expect(store.silences.list()).toHaveLength(2);
  });

  const refusals: Array<[string, string, RegExp]> = [
    [
      'a time without its zone',
      'mute transco from 2026-11-21T09:00 for 1h',
      /from: '2026-11-21T09:00' is not a time with its zone/,
    ],
    [
      'words for a time',
      'mute transco until tomorrow',
      /until: 'tomorrow' is not a time with its zone/,
    ],
    [
      'both for and until',
      'mute transco for 1h until 2026-11-21T13:00Z',
      /mute takes for DURATION or until TIME, not both/,
    ],
    [
      'a start in the past',
      'mute transco from 2026-11-19T09:00Z for 1h',
      /Not muted: from 2026-11-19T09:00:00Z is in the past/,
    ],
    [
      'an end before the start',
      'mute transco from 2026-11-21T09:00Z until 2026-11-21T08:00Z',
      /would end at 2026-11-21T08:00:00Z, before it starts/,
    ],
    [
      'longer than 30 days',
      'mute transco until 2027-01-30T00:00Z',
      /a mute lasts from 1m to 30d, and this one would last/,
    ],
    [
      'a start more than 30 days ahead',
      'mute transco from 2027-01-30T00:00Z for 1h',
      /is more than 30d ahead/,
    ],
    [
      'a type no notice has, with the one meant',
      'mute transco type:maintenence for 1h',
      /unknown notice type 'maintenence' — did you mean 'maintenance'\?/,
    ],
  ];
  for (const [what, text, message] of refusals) {
    it(`refuses ${what}, storing nothing`, async () => {
      const chat = setup();
      const said = (await chat.command(alice, text)).reply;
      expect(said.private).toBe(true);
      expect(said.text + JSON.stringify(said.sections)).toMatch(message);
      expect(store.silences.list()).toEqual([]);
    });
  }
});
