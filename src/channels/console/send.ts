/**
 * The console channel: each alert as a readable block on standard output, saying how
 * long is left before a reminder's deadline at the moment it is printed.
 */
import { targetKey } from '../../domain/targets.js';
import type { Channel } from '../types.js';
import { renderConsole } from './render.js';

/** The console channel, printing to `print`. */
export function createConsoleChannel(print: (text: string) => void): Channel<'console'> {
  return {
    kind: 'console',
    maxDigest: 1,
    async send(target, alerts, ctx) {
      for (const a of alerts) print(renderConsole(a.payload, targetKey(target), ctx.now));
      return { detail: `ok printed ${alerts.length}` };
    },
  };
}
