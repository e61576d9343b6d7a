/**
 * Hot reload of the rules directory: after changes settle, the whole directory is
 * validated again. A valid set replaces the rules in force; an invalid one is rejected
 * with every problem, and the caller keeps the rules it had, so a half-saved file never
 * silences alerts.
 */
import { type FSWatcher, watch } from 'node:fs';
import type { Logger } from '../lib/logger.js';
import { loadRules } from './loader.js';
import type { Rule, RuleProblem } from './types.js';

export interface RuleWatchOptions {
  /** The directory holds a valid set of rules that differs from the last one reported. */
  onChange(rules: Rule[]): void | Promise<void>;
  /** The directory changed into an invalid state; the previous rules should stay in force. */
  onRejected(problems: RuleProblem[]): void;
  logger: Pick<Logger, 'debug' | 'warn' | 'error'>;
  /** Quiet time after the last file event before reloading; editors write in bursts. */
  debounceMs?: number;
  /** Positions in problems are relative to this directory; default the process's. */
  cwd?: string;
}

/** A running watch; `close` stops it, and a reload pending at that moment is dropped. */
export interface RuleWatcher {
  close(): void;
}

/** Default quiet time before a reload. */
export const RULES_DEBOUNCE_MS = 300;

/**
 * Watches `dir` (with `fs.watch`, so atomic saves and symlink swaps are seen too). When the
 * directory cannot be watched, this logs a warning and returns a watcher that does nothing:
 * the rules in force stay, and changes need a restart.
 */
export function watchRules(dir: string, options: RuleWatchOptions): RuleWatcher {
  const { logger } = options;
  const debounceMs = options.debounceMs ?? RULES_DEBOUNCE_MS;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  /** What was last reported, so that a save that changes nothing reports nothing. */
  let last: string | undefined;

  const reload = () => {
    timer = undefined;
    if (closed) return;
    const loaded = loadRules(dir, options.cwd === undefined ? {} : { cwd: options.cwd });
    const valid = loaded.problems.length === 0;
    const outcome = JSON.stringify(valid ? { rules: loaded.rules } : { problems: loaded.problems });
    if (outcome === last) {
      logger.debug({ dir }, 'rule files touched, nothing changed');
      return;
    }
    last = outcome;
    const failed = (error: unknown) =>
      logger.error({ err: error, dir }, 'applying reloaded rules failed');
    try {
      if (valid) Promise.resolve(options.onChange(loaded.rules)).catch(failed);
      else options.onRejected(loaded.problems);
    } catch (error) {
      failed(error);
    }
  };

  let watcher: FSWatcher;
  try {
    watcher = watch(dir, { persistent: false }, () => {
      if (closed) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(reload, debounceMs);
    });
  } catch (error) {
    logger.warn({ err: error, dir }, 'cannot watch the rules directory: changes need a restart');
    return { close() {} };
  }
  watcher.on('error', (error) => {
    logger.warn({ err: error, dir }, 'watching the rules directory failed: changes need a restart');
  });
  return {
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      watcher.close();
    },
  };
}
