// The werift version this seam was written against, checked once per thread before any patch is
// installed, and the one error the seam throws: a named internal that is not where werift 0.25.2
// keeps it, or an installed werift other than the pinned one (package.json pins it exactly;
// test/unit/werift-seam.test.ts holds the two equal).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { WeriftInternalsError } from "../../core/errors.ts";

// the error lives in the catalogue (core/errors.ts); re-exported for the seam's users
export { WeriftInternalsError } from "../../core/errors.ts";

/** The werift whose internals src/net/werift reaches (package.json's exact pin). */
export const WERIFT_VERSION = "0.25.2";

/** The catalogue's WeriftInternalsError, its message led by the werift the seam pins. */
export function weriftInternals(message: string, options?: ErrorOptions): WeriftInternalsError {
  return new WeriftInternalsError(`werift ${WERIFT_VERSION}: ${message}`, options);
}

/** The version of the installed werift package (its package.json). */
export function installedWeriftVersion(): string {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve("werift"));
  for (let i = 0; i < 6; i++) {
    try {
      type Pkg = { name?: string; version?: string };
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Pkg;
      if (pkg.name === "werift") return pkg.version ?? "";
    } catch {
      // not here: one level up
    }
    dir = dirname(dir);
  }
  return "";
}

/** The error for an installed werift other than WERIFT_VERSION, or null. */
export function versionMismatch(installed: string): WeriftInternalsError | null {
  if (installed === WERIFT_VERSION) return null;
  return weriftInternals(
    `installed werift is ${installed || "unknown"}; src/net/werift reaches werift internals and must be re-checked before WERIFT_VERSION is raised`,
  );
}

let checked: WeriftInternalsError | "ok" | null = null;

/** Throws WeriftInternalsError when the installed werift is not WERIFT_VERSION (read once per thread). */
export function checkWeriftVersion(): void {
  checked ??= versionMismatch(installedWeriftVersion()) ?? "ok";
  if (checked !== "ok") throw checked;
}
