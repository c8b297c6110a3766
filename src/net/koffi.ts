// The one place that loads koffi (an FFI with prebuilt binaries inside its npm package), once per
// thread, checked against the version package.json pins: the kernel's stamps (kernel.ts), batched
// reads (batch-read.ts) and the OpenSSL inside the node binary (openssl.ts) reach native code
// through this, and nothing else imports koffi (test/unit/imports.test.ts). A missing binary for
// this platform, or a koffi other than KOFFI_VERSION, is a reason, not a throw: every caller has
// a fallback and says which it took.
import { createRequire } from "node:module";
import { errorMessage } from "../core/errors.ts";

/** The koffi whose interface below this project was written against (package.json's exact pin). */
export const KOFFI_VERSION = "3.3.4";

/** The part of koffi's interface this project uses. */
export interface Koffi {
  /** koffi's own version string */
  readonly version?: unknown;
  load(path: string | null): { func(decl: string): (...args: unknown[]) => number };
  errno(): number;
  /** native memory of `n` elements of `type`, owned by koffi */
  alloc(type: string, n: number): unknown;
  /** that memory as an ArrayBuffer of `n` bytes */
  view(p: unknown, n: number): ArrayBuffer;
  /** its address */
  address(p: unknown): bigint;
}

/** Why a loaded koffi is not KOFFI_VERSION, or null when it is. */
export function koffiVersionMismatch(version: unknown): string | null {
  if (version === KOFFI_VERSION) return null;
  return `koffi ${typeof version === "string" ? version : "of unknown version"} is installed, ${KOFFI_VERSION} expected (src/net/koffi.ts)`;
}

let loaded: Koffi | string | null = null;

/** koffi, or why it could not be loaded here. */
export function koffi(): Koffi | string {
  if (loaded !== null) return loaded;
  try {
    const k = createRequire(import.meta.url)("koffi") as Koffi;
    loaded = koffiVersionMismatch(k.version) ?? k;
  } catch (err) {
    const m = errorMessage(err);
    loaded = `koffi did not load (${m.split("\n")[0] ?? m})`;
  }
  return loaded;
}
