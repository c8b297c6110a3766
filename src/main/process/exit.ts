// A command's edges with the process: SIGINT/SIGTERM while it lasts (the first stops the work,
// a second exits at once with 3), a sleep the interrupt cuts short, and the one line on stderr
// and exit status an error ends it with (docs/definitions.md#command-line; the catalogue is
// core/errors.ts).
import { EXIT_NO_VERDICT, type ExitStatus, errorOutcome } from "../../core/errors.ts";
import type { Logger } from "../observe/log.ts";

/**
 * Installs SIGINT/SIGTERM handlers for the duration of `body`: the first signal aborts, a second
 * exits at once.
 */
export async function withInterrupt<T>(log: Logger, body: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ctl = new AbortController();
  const onSignal = (name: string) => {
    if (ctl.signal.aborted) {
      process.stderr.write(`whipbench: second ${name}, exiting now\n`);
      process.exit(EXIT_NO_VERDICT);
    }
    log.line(`${name}: stopping; the report is still written (send it again to exit at once)`);
    ctl.abort();
  };
  const onInt = () => onSignal("SIGINT");
  const onTerm = () => onSignal("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  try {
    return await body(ctl.signal);
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  }
}

/** Sleeps `ms`, or less when `signal` aborts first (at once when it already has). */
export function sleepUnless(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted || ms <= 0) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Writes the error's one line (`whipbench <command>: …`) on stderr; returns the status it ends the
 * command with.
 */
export function endWithError(err: unknown, command: string): ExitStatus {
  const outcome = errorOutcome(err, command);
  process.stderr.write(`${outcome.line}\n`);
  return outcome.exitStatus;
}
