/**
 * A logger whose lines a test reads back: what the code under test says about a failure
 * is part of its behaviour (and so is what it must never say, like a secret).
 */
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/lib/logger.js';

/** A logger at trace level writing JSON lines into `lines`, one chunk each. */
export function capturedLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ level: 'trace', pretty: false, destination }), lines };
}
