// The floor of the error catalogue (src/core/errors.ts is its one entry point): the exit statuses
// of docs/definitions.md#command-line, how a finished command picks one, and the base class every
// error whipbench throws on purpose extends (its class's `name`, a stable `code`, an exit status).

export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
/** a bad flag, scenario key or file: one line naming it */
export const EXIT_USAGE = 2;
export const EXIT_NO_VERDICT = 3;
/** a valid run with a failed threshold (k6's convention) */
export const EXIT_THRESHOLD_FAILED = 99;

export type ExitStatus =
  | typeof EXIT_OK
  | typeof EXIT_ERROR
  | typeof EXIT_USAGE
  | typeof EXIT_NO_VERDICT
  | typeof EXIT_THRESHOLD_FAILED;

/**
 * How a command that finished ends: 3 without a verdict (an invalid run, a DNF cell, reports that
 * may not be ranked), else 99 when a threshold or gate failed, else 0.
 */
export function verdictStatus(verdict: boolean, failed: boolean): ExitStatus {
  if (!verdict) return EXIT_NO_VERDICT;
  return failed ? EXIT_THRESHOLD_FAILED : EXIT_OK;
}

/**
 * An error whipbench raises on purpose: its class's `name`, a stable `code` (one per class,
 * docs/conventions.md lists them) and the exit status it ends a command with. The error it was
 * raised from, if any, is its `cause` (`new XError(message, { cause: err })`).
 */
export abstract class WhipbenchError extends Error {
  abstract readonly code: string;
  abstract readonly exitStatus: ExitStatus;
}
