// The project's own files named relative to the checkout, so that a hint a recipe prints ("run
// …/bench/servers/janus/install.sh first") survives the redaction of a server command's output
// (docs/definitions.md#redaction): a path word is named only when it is a file that exists inside
// the checkout (symbolic links resolved); every other path stays `<path>`.
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { OwnFileNamer } from "../../core/redact.ts";

/** The checkout (or the installed package): three folders above src/main/process or dist/main/process. */
const CHECKOUT = fileURLToPath(new URL("../../../", import.meta.url));

/** Names path words (relative ones resolved from `cwd`) that are files inside `root`. */
export function ownFileNamer(cwd: string, root: string = CHECKOUT): OwnFileNamer {
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    return () => undefined;
  }
  return (word) => {
    if (word.startsWith("~")) return undefined;
    let real: string;
    try {
      real = realpathSync(resolve(cwd, word));
      if (!statSync(real).isFile()) return undefined;
    } catch {
      return undefined;
    }
    const rel = relative(realRoot, real);
    if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return undefined;
    return rel.split(sep).join("/");
  };
}
