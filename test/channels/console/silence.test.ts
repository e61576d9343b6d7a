/**
 * A silence's summary on the console: one `ALERT` line with the headline and what was
 * muted, then when, then one line per held alert with its link or id, then how many
 * more; hostile held alerts can neither fake a line nor move the cursor.
 */
import { describe, expect, it } from 'vitest';
import { renderConsole } from '../../../src/channels/console/render.js';
import { createConsoleChannel } from '../../../src/channels/console/send.js';
import { memoryThreads } from '../../fakes/alerts.js';
import { heldAlert, hostileSilence, silenceAlert } from '../../fakes/silence.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('a silence’s summary on the console', () => {
  it('prints the headline, when, and each held alert with its link or id', async () => {
    const printed: string[] = [];
    const channel = createConsoleChannel((t) => printed.push(t));
    const capacity = heldAlert({
      rule: 'transco-low-oac',
      kind: 'capacity',
      state: 'firing',
      title: 'OAC below 50,000 Dth at STATION 85',
      notice_id: null,
      url: null,
      at: '2026-11-20T14:00:00Z',
    });
    const summary = silenceAlert({ held: 3, alerts: [heldAlert(), capacity] });
    await channel.send({ kind: 'console' }, [summary], {
      now: '2026-11-20T15:00:00Z',
      threads: memoryThreads(),
    });
    expect(printed[0]!.split('\n')).toEqual([
      'ALERT silence-12 → console: transco Silence #12 ended — while muted: 3 alerts (pipeline=transco target=slack:C0GAS)',
      '    From Fri, Nov 20, 2026, 11:00 AM UTC until Fri, Nov 20, 2026, 3:00 PM UTC (expired)',
      '    Fri, Nov 20, 2026, 3:00 PM UTC · new notice · Notice 26-0412: Capacity Constraint - Station 165 · https://www.1line.williams.com/xhtml/notice.jsf?id=101',
      '    Fri, Nov 20, 2026, 2:00 PM UTC · low OAC · OAC below 50,000 Dth at STATION 85 · rule transco-low-oac',
      '    …and 1 more',
    ]);
  });

  it('keeps hostile held alerts from faking lines or moving the cursor, each line clipped', () => {
    const lines = renderConsole(hostileSilence().payload, 'console').split('\n');
    expect(lines.filter((l) => l.startsWith('ALERT'))).toHaveLength(1);
    expect(lines).toHaveLength(1 + 1 + 20 + 1);
    for (const l of lines) {
      expect(l).not.toMatch(CONTROL);
      expect(l.length).toBeLessThan(700);
    }
    expect(lines.at(-1)).toBe('    …and 5 more');
    expect(lines.join('\n')).not.toContain('javascript:');
  });
});
