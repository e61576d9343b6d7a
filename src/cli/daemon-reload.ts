/**
 * Rule changes while the daemon runs: a valid rules directory replaces the rules in
 * force unless it sends to a channel without credentials; anything else is logged with
 * every problem, and the previous rules keep alerting.
 */
import type { AlertEngine } from '../alerts/engine.js';
import type { Channels } from '../delivery/channels.js';
import type { Logger } from '../lib/logger.js';
import { formatProblem, type RuleProblem } from '../rules/types.js';
import { type RuleWatcher, watchRules } from '../rules/watch.js';
import { unconfiguredTargets } from './daemon-checks.js';

/** What a reload needs of the running daemon. */
export interface RuleReloadDeps {
  rulesDir: string;
  cwd: string;
  logger: Logger;
  engine: AlertEngine;
  channels: Channels;
  /** Alerts for unconfigured channels are printed (the demo), so any target is accepted. */
  standIn: boolean;
}

/** Watches the rules directory and puts each accepted change in force; `close` stops it. */
export function reloadRulesOnChange(deps: RuleReloadDeps): RuleWatcher {
  const { logger, engine } = deps;
  const rejected = (problems: RuleProblem[]) =>
    logger.error(
      { problems: problems.map(formatProblem) },
      `rule change rejected, the previous rules stay in force:\n${problems.map(formatProblem).join('\n')}`,
    );
  return watchRules(deps.rulesDir, {
    cwd: deps.cwd,
    logger,
    onChange: async (rules) => {
      const missing = deps.standIn ? [] : unconfiguredTargets(rules, deps.channels);
      if (missing.length > 0) {
        rejected(missing);
        return;
      }
      await engine.setRules(rules);
      logger.info({ rules: rules.length }, `rules reloaded: ${rules.length} in force`);
      await engine.checkPipelines();
      await engine.checkLocations();
    },
    onRejected: rejected,
  });
}
