/**
 * The console channel: each alert as a readable block on standard output. The demo also
 * uses it as a stand-in for channels that are not configured, showing the real target.
 */
import type { TargetKind } from '../../rules/types.js';
import { targetKey } from '../../rules/types.js';
import type { Channel } from '../types.js';
import { renderConsole } from './render.js';

/** A channel that prints to `print` instead of sending; `note` follows the target shown. */
export function createPrintingChannel<K extends TargetKind>(
  kind: K,
  print: (text: string) => void,
  note = '',
): Channel<K> {
  return {
    kind,
    maxDigest: 1,
    async send(target, alerts) {
      for (const a of alerts) print(renderConsole(a.payload, `${targetKey(target)}${note}`));
      return { detail: `ok printed ${alerts.length}` };
    },
  };
}

/** The console channel. */
export function createConsoleChannel(print: (text: string) => void): Channel<'console'> {
  return createPrintingChannel('console', print);
}
