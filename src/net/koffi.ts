// The one place that loads koffi (an FFI with prebuilt binaries inside its npm package), once per
// thread, checked against the version package.json pins, and the one way its users bind native
// functions (NativeOnce): the kernel's stamps (kernel.ts), batched reads and writes
// (batch-read.ts, batch-write.ts), transmit stamps (tx-stamp.ts) and the OpenSSL inside the node
// binary (srtp/openssl.ts) reach native code through this, and nothing else imports koffi
// (test/unit/imports.test.ts). A missing binary for this platform, a koffi other than
// KOFFI_VERSION or a symbol that will not bind is a reason, not a throw: every caller has a
// fallback and says which it took.
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
    loaded = `koffi did not load (${firstLine(err)})`;
  }
  return loaded;
}

/** Whether a thread's native bindings could be had, and why not. */
export type NativeVerdict<Ok extends { ok: true } = { ok: true }> = Ok | { ok: false; reason: string };

/**
 * Native functions bound once per thread, on first use (`load`): `bind` returns the bindings, or
 * why they cannot be had here; a throw while binding (a symbol missing) becomes the reason
 * "`what` not reachable through koffi (its first line)". `okOf` makes the verdict where they
 * could be (what it says beside `ok`). The bindings and the verdict are this object's only state.
 */
export class NativeOnce<T extends object, Ok extends { ok: true } = { ok: true }> {
  /** the bindings, null before `load` and where they could not be had */
  native: T | null = null;
  private verdict: NativeVerdict<Ok> | null = null;
  private readonly what: string;
  private readonly bind: () => T | string;
  private readonly okOf: (native: T) => Ok;

  constructor(what: string, bind: () => T | string, okOf?: (native: T) => Ok) {
    this.what = what;
    this.bind = bind;
    this.okOf = okOf ?? (() => ({ ok: true }) as Ok);
  }

  /** Binds on the first call; whether the bindings could be had here, and why not. */
  load(): NativeVerdict<Ok> {
    if (this.verdict !== null) return this.verdict;
    let bound: T | string;
    try {
      bound = this.bind();
    } catch (err) {
      bound = `${this.what} not reachable through koffi (${firstLine(err)})`;
    }
    if (typeof bound === "string") this.verdict = { ok: false, reason: bound };
    else {
      this.native = bound;
      this.verdict = this.okOf(bound);
    }
    return this.verdict;
  }
}

/** The first line of a thrown value's message. */
export function firstLine(err: unknown): string {
  const m = errorMessage(err);
  return m.split("\n")[0] ?? m;
}
