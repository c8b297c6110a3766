// The classes of the error catalogue (src/core/errors.ts re-exports them; docs/conventions.md
// lists each code, class and exit status): every error a user can reach is one of these, with a
// stable code, the exit status of docs/definitions.md#command-line it ends a command with, and
// the error it was raised from as its `cause`. Messages are the text the user sees.

import { EXIT_ERROR, EXIT_USAGE, WhipbenchError } from "./base.ts";
import type { PublisherErrorKind } from "./kinds.ts";

/**
 * A bad flag, scenario file or value: exit 2, one line. `command` replaces the command the line
 * names (`whipbench run --agents: …`) where the message belongs to a mode, not the command.
 */
export class UsageError extends WhipbenchError {
  override readonly name = "UsageError";
  readonly code = "usage";
  readonly exitStatus = EXIT_USAGE;
  readonly command: string | undefined;
  constructor(message: string, command?: string, options?: ErrorOptions) {
    super(message, options);
    this.command = command;
  }
}

/**
 * A run that cannot do its work (a --metrics address that cannot listen, an --out that cannot be
 * written, a socket the kernel refuses): exit 1.
 */
export class RunError extends WhipbenchError {
  override readonly name = "RunError";
  readonly code = "run";
  readonly exitStatus = EXIT_ERROR;
}

/** A bad scenario key or value, named: exit 2 (the message starts `scenario: `). */
export class ScenarioError extends WhipbenchError {
  override readonly name = "ScenarioError";
  readonly code = "scenario";
  readonly exitStatus = EXIT_USAGE;
  constructor(message: string, options?: ErrorOptions) {
    super(`scenario: ${message}`, options);
  }
}

/** A scenario file that is not JSON (said without echoing the input): exit 2. */
export class JsonSyntaxError extends WhipbenchError {
  override readonly name = "JsonSyntaxError";
  readonly code = "scenario_json";
  readonly exitStatus = EXIT_USAGE;
}

/** A bad `thresholds` entry, naming the key: exit 2. */
export class ThresholdError extends WhipbenchError {
  override readonly name = "ThresholdError";
  readonly code = "thresholds";
  readonly exitStatus = EXIT_USAGE;
}

/** A bad `cohorts` entry, naming the key (`cohorts[1].down.loss: …`): exit 2. */
export class CohortError extends WhipbenchError {
  override readonly name = "CohortError";
  readonly code = "cohorts";
  readonly exitStatus = EXIT_USAGE;
}

/** A bad `churn` key, or a churn that would schedule too many viewers: exit 2. */
export class ChurnError extends WhipbenchError {
  override readonly name = "ChurnError";
  readonly code = "churn";
  readonly exitStatus = EXIT_USAGE;
}

/** A bad `capacity` key, naming it (`capacity.max: …`): exit 2. */
export class CapacityError extends WhipbenchError {
  override readonly name = "CapacityError";
  readonly code = "capacity";
  readonly exitStatus = EXIT_USAGE;
}

/** A clip that cannot be used (a reader's, or the delay fingerprints'): exit 2. */
export class ClipError extends WhipbenchError {
  override readonly name = "ClipError";
  readonly code = "clip";
  readonly exitStatus = EXIT_USAGE;
}

/** A bad matrix file, naming the key (the message starts `matrix: `): exit 2. */
export class MatrixError extends WhipbenchError {
  override readonly name = "MatrixError";
  readonly code = "matrix";
  readonly exitStatus = EXIT_USAGE;
  constructor(message: string, options?: ErrorOptions) {
    super(`matrix: ${message}`, options);
  }
}

/** A matrix server that did not start or become healthy: its cells are DNF with this message. */
export class MatrixServerError extends WhipbenchError {
  override readonly name = "MatrixServerError";
  readonly code = "matrix_server";
  readonly exitStatus = EXIT_ERROR;
}

/** A scrape of a server's metrics that is not Prometheus text (`line N: …`). */
export class PromParseError extends WhipbenchError {
  override readonly name = "PromParseError";
  readonly code = "prom_text";
  readonly exitStatus = EXIT_ERROR;
}

/** What part of the WHIP/WHEP exchange failed (docs/definitions.md#whip-and-whep-http-exchange). */
export type HttpErrorKind = "bad_url" | "transport" | "http_status" | "bad_answer";

/** A WHIP/WHEP exchange that failed; the message names the host only. */
export class HttpExchangeError extends WhipbenchError {
  override readonly name = "HttpExchangeError";
  readonly code = "http_exchange";
  readonly exitStatus = EXIT_ERROR;
  readonly kind: HttpErrorKind;
  readonly status: number;
  constructor(kind: HttpErrorKind, message: string, status = 0, options?: ErrorOptions) {
    super(message, options);
    this.kind = kind;
    this.status = status;
  }
}

/** ICE gathering that did not complete in time (a peer of ours, before any offer is sent). */
export class IceGatheringError extends WhipbenchError {
  override readonly name = "IceGatheringError";
  readonly code = "ice_gathering";
  readonly exitStatus = EXIT_ERROR;
}

/** Why the WHIP publisher failed, with its kind (docs/definitions.md#publisher-figures). */
export class PublisherError extends WhipbenchError {
  override readonly name = "PublisherError";
  readonly code = "publisher";
  readonly exitStatus = EXIT_ERROR;
  readonly kind: PublisherErrorKind;
  constructor(kind: PublisherErrorKind, message: string, options?: ErrorOptions) {
    super(message, options);
    this.kind = kind;
  }
}

/** A WHIP or WHEP offer the relay refuses (answered 400 "the offer was refused"). */
export class RelayOfferError extends WhipbenchError {
  override readonly name = "RelayOfferError";
  readonly code = "relay_offer";
  readonly exitStatus = EXIT_ERROR;
}

/**
 * A werift internal the seam needs is missing, or the installed werift is not the one the seam
 * pins (src/net/werift/version.ts makes it, its message led by that version).
 */
export class WeriftInternalsError extends WhipbenchError {
  override readonly name = "WeriftInternalsError";
  readonly code = "werift_internals";
  readonly exitStatus = EXIT_ERROR;
}

/** The publisher's clock responder (docs/definitions.md#clock-exchange) did not answer. */
export class ClockPeerError extends WhipbenchError {
  override readonly name = "ClockPeerError";
  readonly code = "clock_peer";
  readonly exitStatus = EXIT_ERROR;
}

/** The publisher's send log (`view --send-log-peer`) did not answer or was malformed. */
export class SendLogPeerError extends WhipbenchError {
  override readonly name = "SendLogPeerError";
  readonly code = "send_log_peer";
  readonly exitStatus = EXIT_ERROR;
}

/** Many hosts (docs/definitions.md#many-hosts): what the coordinator sent an agent cannot be used. */
export class AgentError extends WhipbenchError {
  override readonly name = "AgentError";
  readonly code = "agent";
  readonly exitStatus = EXIT_ERROR;
}
