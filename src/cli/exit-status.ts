/**
 * The exit status of the command line for each failure that reaches it, by the failure's
 * `code`: one table, so a new kind of failure gets its status in one place. `0` ok, `1`
 * the command failed (the API, the database), `2` bad usage or configuration (the user's
 * arguments, environment or rule files). A failure whose code is not listed is one
 * pipewatch did not foresee: status 1, and its stack at `LOG_LEVEL=debug`.
 */
import { errorCode } from '../lib/error-text.js';
import type { DatabaseErrorCode } from '../store/database.js';
import { UpstreamErrorCode } from '../upstream/errors.js';

/** Exit statuses. */
export const ExitCode = { Ok: 0, Failed: 1, Usage: 2 } as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** What the command line does for a failure of one code. */
export interface ExitOutcome {
  status: ExitCode;
  /**
   * Nothing is printed: its thrower has already (commander's usage errors, help, version),
   * or there is no one to print to.
   */
  quiet?: true;
  /** A line printed after the failure's own, saying what to check. */
  hint?: string;
}

/**
 * Failure codes and what the command line does for each. `commander.*` stands for every
 * commander code not listed on its own (an unknown option, a missing argument, …).
 */
export const EXIT_OUTCOMES: Readonly<Record<string, ExitOutcome>> = {
  'commander.helpDisplayed': { status: ExitCode.Ok, quiet: true },
  'commander.help': { status: ExitCode.Ok, quiet: true },
  'commander.version': { status: ExitCode.Ok, quiet: true },
  'commander.*': { status: ExitCode.Usage, quiet: true },
  CONFIG_INVALID: { status: ExitCode.Usage },
  RULES_INVALID: { status: ExitCode.Usage },
  BAD_INPUT: { status: ExitCode.Usage },
  DATABASE: { status: ExitCode.Failed },
  // Another replica leads (PostgreSQL): it does the work asked for. (Written out: the
  // store's module would load the SQLite driver for every command.)
  ['not_leader' satisfies DatabaseErrorCode]: {
    status: ExitCode.Failed,
    hint: 'another pipewatch replica leads on this database; see its logs, or stop it first',
  },
  // stdout or stderr gone: closed by its reader (`| head`), which wanted no more, or failed.
  OUTPUT_CLOSED: { status: ExitCode.Ok, quiet: true },
  OUTPUT_FAILED: { status: ExitCode.Failed },
  ...Object.fromEntries(
    Object.values(UpstreamErrorCode).map((code) => [code, { status: ExitCode.Failed }]),
  ),
  [UpstreamErrorCode.Authentication]: {
    status: ExitCode.Failed,
    hint: 'check PIPEWATCH_API_USER and PIPEWATCH_API_KEY',
  },
};

/** The code of a failure, when it carries one as text (Node's DOMException has a number). */
export function failureCode(error: unknown): string | undefined {
  return errorCode(error);
}

/** What to do for a failure with `code`; undefined for one not foreseen. */
export function exitOutcome(code: string | undefined): ExitOutcome | undefined {
  if (code === undefined) return undefined;
  const family = code.includes('.') ? `${code.slice(0, code.indexOf('.'))}.*` : undefined;
  return EXIT_OUTCOMES[code] ?? (family === undefined ? undefined : EXIT_OUTCOMES[family]);
}
