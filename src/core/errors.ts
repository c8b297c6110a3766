// The error catalogue, its one entry point: the exit statuses of docs/definitions.md#command-line,
// the base class every error whipbench throws on purpose extends (a stable `code` and the exit
// status it maps to), every class of the catalogue (errors/catalogue.ts; docs/conventions.md
// lists code, class and exit status), the viewer and publisher error kinds of
// docs/definitions.md#error-kinds, and the one place that turns a thrown value into the line the
// command prints and the status it exits with.

import { EXIT_ERROR, type ExitStatus, WhipbenchError } from "./errors/base.ts";
import { UsageError } from "./errors/catalogue.ts";

export {
  EXIT_ERROR,
  EXIT_NO_VERDICT,
  EXIT_OK,
  EXIT_THRESHOLD_FAILED,
  EXIT_USAGE,
  type ExitStatus,
  verdictStatus,
  WhipbenchError,
} from "./errors/base.ts";
export {
  AgentError,
  CapacityError,
  ChurnError,
  ClipError,
  ClockPeerError,
  CohortError,
  type HttpErrorKind,
  HttpExchangeError,
  IceGatheringError,
  JsonSyntaxError,
  MatrixError,
  MatrixServerError,
  PromParseError,
  PublisherError,
  RelayOfferError,
  RunError,
  ScenarioError,
  SendLogPeerError,
  ThresholdError,
  UsageError,
  WeriftInternalsError,
} from "./errors/catalogue.ts";
export {
  isViewerErrorKind,
  PUBLISHER_ERROR_KINDS,
  type PublisherErrorKind,
  VIEWER_ERROR_KINDS,
  type ViewerErrorKind,
} from "./errors/kinds.ts";

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

// --- classes added by other branches go below ---
