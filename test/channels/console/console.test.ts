import { describe, expect, it } from 'vitest';
import { renderConsole } from '../../../src/channels/console/render.js';
import { createConsoleChannel } from '../../../src/channels/console/send.js';
import {
  capacityAlert,
  deadlineAlert,
  hostileAlerts,
  location,
  memoryThreads,
  noticeAlert,
} from '../../fakes/alerts.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

describe('the console channel', () => {
  it('prints one block per alert: the alert line, then indented details in the pipeline zone', async () => {
    const printed: string[] = [];
    const channel = createConsoleChannel((t) => printed.push(t));
    const delivered = await channel.send({ kind: 'console' }, [noticeAlert()], {
      now: '2026-11-20T15:00:00Z',
      threads: memoryThreads(),
    });
    expect(delivered.detail).toBe('ok printed 1');
    const [first, ...details] = printed[0]!.split('\n');
    expect(first).toBe(
      'ALERT transco-constraints → console: transco new notice #101 [Capacity Constraint] Capacity Constraint - Station 165',
    );
    expect(details[0]).toBe(
      '    Critical · Initiate · Posted Fri, Nov 20, 2026, 9:00 AM EST · Effective Sat, Nov 21, 2026, 9:00 AM EST · Ends Sun, Nov 22, 2026, 9:00 AM EST',
    );
    expect(details).toContain('    https://www.1line.williams.com/xhtml/notice.jsf?id=101');
  });

  it('shows reminders and every location of a capacity alert', () => {
    expect(renderConsole(deadlineAlert().payload, 'slack_dm:U0123')).toMatch(
      /^ALERT ofo-reminders → slack_dm:U0123: transco reminder: response_at 2026-11-20T20:00:00Z in 2h for #101 /,
    );
    const capacity = capacityAlert([
      location(),
      location({ location: 'STATION 90', identifier: '1001290', oac: 0 }),
    ]);
    Object.assign(capacity.payload.capacity!.locations[1]!, { repeat: true });
    const block = renderConsole(capacity.payload, 'email:ops@example.com').split('\n');
    expect(block[0]).toMatch(
      /capacity firing at STATION 85 \(1001234\) \(\+1 more\): OAC 30,000, threshold 50,000/,
    );
    expect(block.slice(1)).toEqual([
      '    STATION 85 (1001234) D: OAC 30,000 of OPC 800,000, threshold 50,000, clears above 60,000',
      '    STATION 90 (1001290) D: OAC 0 of OPC 800,000, threshold 50,000, clears above 60,000 (repeat: still low)',
    ]);
  });

  it('keeps upstream text from faking lines or moving the cursor', () => {
    for (const alert of [
      ...hostileAlerts(),
      noticeAlert({
        subject: 'real\r\nALERT fake → console: injected',
        notice: 'x\u001b[2Ky\nALERT fake',
      }),
    ]) {
      const lines = renderConsole(alert.payload, 'console').split('\n');
      expect(lines.filter((l) => l.startsWith('ALERT'))).toHaveLength(1);
      for (const l of lines) expect(l).not.toMatch(CONTROL);
      expect(lines.length).toBeLessThanOrEqual(8);
    }
  });
});
