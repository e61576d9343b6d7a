/**
 * Bolt beside the Slack fake: a logger that keeps Bolt's and the WebClient's lines in
 * memory instead of printing them, so a test can read what they complained of.
 */
import { type Logger, LogLevel } from '@slack/bolt';

/** A Bolt logger that keeps every line; `lines` as `level: message`. */
export function boltLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  let level = LogLevel.DEBUG;
  const keep =
    (at: string) =>
    (...msg: unknown[]) => {
      lines.push(
        `${at}: ${msg.map((m) => (m instanceof Error ? m.message : String(m))).join(' ')}`,
      );
    };
  return {
    lines,
    debug: keep('debug'),
    info: keep('info'),
    warn: keep('warn'),
    error: keep('error'),
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => {},
  };
}
