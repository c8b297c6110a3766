// The one place that loads koffi (an FFI with prebuilt binaries inside its npm package), once per
// thread: the kernel's stamps and batched reads (kernel.ts) and the OpenSSL inside the node binary
// reach native code through this, and nothing else imports koffi. A missing binary for this
// platform is a reason, not a throw: every caller has a fallback.
import { createRequire } from "node:module";

/** The part of koffi's interface this project uses. */
export interface Koffi {
  load(path: string | null): { func(decl: string): (...args: unknown[]) => number };
  errno(): number;
}

let loaded: Koffi | string | null = null;

/** koffi, or why it could not be loaded here. */
export function koffi(): Koffi | string {
  if (loaded !== null) return loaded;
  try {
    loaded = createRequire(import.meta.url)("koffi") as Koffi;
  } catch (err) {
    const m = err instanceof Error ? err.message : String(err);
    loaded = `koffi did not load (${m.split("\n")[0] ?? m})`;
  }
  return loaded;
}
