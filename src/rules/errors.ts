/**
 * The failure of rule files that do not hold: the daemon's start-up stops on it with
 * every problem listed, and the command line exits 2 for it, as for any other input of
 * the user's that is wrong.
 */
import { formatProblem, type RuleProblem } from './types.js';

/** The rule files are invalid: start-up stops and lists every problem. */
export class RulesInvalidError extends Error {
  readonly code = 'RULES_INVALID';
  constructor(readonly problems: RuleProblem[]) {
    super(
      `${problems.length} problem${problems.length === 1 ? '' : 's'} in the rule files:\n${problems.map(formatProblem).join('\n')}`,
    );
    this.name = 'RulesInvalidError';
  }
}
