// The error catalogue: the exit statuses of docs/definitions.md#command-line, the base class every
// error whipbench throws on purpose extends (a stable `code` and the exit status it maps to), the
// viewer and publisher error kinds of docs/definitions.md#error-kinds as closed unions, and the one
// place that turns a thrown value into the line the command prints and the status it exits with.

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

/** Every error class's stable code, one per class. */
export type ErrorCode =
  | "usage"
  | "run"
  | "scenario"
  | "scenario_json"
  | "thresholds"
  | "cohorts"
  | "clip"
  | "matrix"
  | "prom_text"
  | "http_exchange"
  | "publisher"
  | "werift_internals"
  | "clock_peer"
  | "send_log_peer";

/**
 * An error whipbench raises on purpose: its class's `name`, a stable `code` and the exit status it
 * ends a command with.
 */
export abstract class WhipbenchError extends Error {
  abstract readonly code: ErrorCode;
  abstract readonly exitStatus: ExitStatus;
}

/**
 * A bad flag, scenario file or value: exit 2, one line. `command` replaces the command the line
 * names (`whipbench run --agents: …`) where the message belongs to a mode, not the command.
 */
export class UsageError extends WhipbenchError {
  override readonly name = "UsageError";
  readonly code = "usage";
  readonly exitStatus = EXIT_USAGE;
  readonly command: string | undefined;
  constructor(message: string, command?: string) {
    super(message);
    this.command = command;
  }
}

/**
 * A run that cannot do its work (a --metrics address that cannot listen, an --out that cannot be
 * written): exit 1.
 */
export class RunError extends WhipbenchError {
  override readonly name = "RunError";
  readonly code = "run";
  readonly exitStatus = EXIT_ERROR;
}

/** The viewer kinds of docs/definitions.md#error-kinds, in its order (`http_<status>` as one). */
export const VIEWER_ERROR_KINDS = [
  "not_started",
  "http_<status>",
  "transport",
  "bad_url",
  "bad_answer",
  "webrtc",
  "ice_failed",
  "ice_timeout",
  "no_media",
  "no_keyframe",
  "run_ended",
  "dropped",
  "worker_died",
  "agent_lost",
  "agent_missing",
] as const;

/** Why a viewer failed (docs/definitions.md#error-kinds); `http_404` for a WHEP POST answered 404. */
export type ViewerErrorKind =
  | Exclude<(typeof VIEWER_ERROR_KINDS)[number], "http_<status>">
  | `http_${number}`;

/** The publisher kinds of docs/definitions.md#publisher-figures, in its order. */
export const PUBLISHER_ERROR_KINDS = [
  "webrtc",
  "config",
  "bad_answer",
  "ice_failed",
  "connect_timeout",
  "disconnected",
  "http_status",
  "transport",
  "bad_url",
] as const;

/** Why the WHIP publisher failed (no status code: `http_status`); counted as `publisher_<kind>`. */
export type PublisherErrorKind = (typeof PUBLISHER_ERROR_KINDS)[number];

const VIEWER_KINDS: ReadonlySet<string> = new Set(VIEWER_ERROR_KINDS);

/** A value read off the wire (an agent's record) that is one of the viewer kinds. */
export function isViewerErrorKind(x: unknown): x is ViewerErrorKind {
  if (typeof x !== "string") return false;
  if (/^http_\d{3}$/.test(x)) return true;
  return x !== "http_<status>" && VIEWER_KINDS.has(x);
}

/** The message of a thrown value, whatever was thrown. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The system error code a thrown value carries (`ENOENT`, `EADDRINUSE`), if any. */
export function errnoCode(err: unknown): string | undefined {
  const code = typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
}

/** What a command that ended in an error prints on stderr (one line) and exits with. */
export interface ErrorOutcome {
  line: string;
  exitStatus: ExitStatus;
}

/**
 * The one place an error that ends a command becomes its line and exit status: a WhipbenchError
 * exits with its own status, anything else 1; the line is `whipbench <command>: <message>`.
 */
export function errorOutcome(err: unknown, command: string): ErrorOutcome {
  if (err instanceof WhipbenchError) {
    const named = err instanceof UsageError && err.command !== undefined ? err.command : command;
    return { line: `whipbench ${named}: ${err.message}`, exitStatus: err.exitStatus };
  }
  return { line: `whipbench ${command}: ${errorMessage(err)}`, exitStatus: EXIT_ERROR };
}
