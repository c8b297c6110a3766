// Writing a report's files (docs/definitions.md#report-files): mode 0600, in a directory made with
// mode 0750. Each file is written under a temporary name and renamed, so a failed write never leaves
// a half-written file, and a temporary file is removed even when the process exits at once (a second
// SIGINT/SIGTERM). Which files a report is written to is outputs.ts's list.
import { constants, rmSync } from "node:fs";
import { access, mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { errnoCode } from "../../core/errors.ts";

/** Awaited between writing a file's temporary copy and renaming it; none in production. */
export type BeforeRenameHook = (path: string) => Promise<void>;
let beforeRename: BeforeRenameHook | null = null;

/**
 * The one injection point of the write path, for tests only: the process-faults test preloads
 * test/e2e/faults/write-delay.ts into a child whipbench, which sets a hook that holds the first
 * report file so the test can signal the process while it writes.
 */
export function setBeforeRenameHook(hook: BeforeRenameHook | null): void {
  beforeRename = hook;
}

/** Temporary files being written; removed if the process exits first (a second signal). */
const pending = new Set<string>();
let exitHook = false;

function removePendingOnExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.on("exit", () => {
    for (const tmp of pending) rmSync(tmp, { force: true });
  });
}

/** Writes `path` under a temporary name in the same directory, then renames it (mode 0600). */
export async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  removePendingOnExit();
  pending.add(tmp);
  try {
    await writeFile(tmp, text, { mode: 0o600 });
    if (beforeRename !== null) await beforeRename(path);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => {});
    throw err;
  } finally {
    pending.delete(tmp);
  }
}

/**
 * Makes the output directory (mode 0750) and checks that this process may write in it, before
 * a run spends its time: throws the file system's error (see writeErrorText).
 */
export async function prepareOutputDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o750 });
  await access(dir, constants.W_OK | constants.X_OK);
}

/** Writes `<dir>/<name>` (the directory made first, mode 0750); returns the path. */
export async function writeInDir(dir: string, name: string, text: string): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o750 });
  return writeNamed(join(dir, name), text);
}

/** Writes `path` (writeAtomic); returns it. */
export async function writeNamed(path: string, text: string): Promise<string> {
  await writeAtomic(path, text);
  return path;
}

/** Removes files already written (an all-or-nothing pair whose second file failed); never throws. */
export async function removeFiles(paths: readonly string[]): Promise<void> {
  for (const p of paths) await rm(p, { force: true }).catch(() => {});
}

/** A short reason for a write failure that names no more than the directory the user gave. */
export function writeErrorText(err: unknown): string {
  const code = errnoCode(err);
  switch (code) {
    case "EACCES":
    case "EPERM":
      return "the output directory is not writable";
    case "ENOTDIR":
    case "EEXIST":
      return "the output path is not a directory";
    case "ENOSPC":
      return "no space left on the device";
    case "EROFS":
      return "the output directory is on a read-only file system";
    default:
      return "the report could not be written";
  }
}
