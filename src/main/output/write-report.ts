// Writing a report (docs/definitions.md#report-files): `<stem>.json` and `<stem>.md`, mode 0600, in a directory made with
// mode 0750. Each file is written under a temporary name and renamed, so a failed write never
// leaves a half-written report; if the Markdown cannot be written the JSON is removed too, and
// a temporary file is removed even when the process exits at once (a second SIGINT/SIGTERM).
import { constants, rmSync } from "node:fs";
import { access, mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

export interface ReportFiles {
  json: string;
  markdown: string;
}

/** The variable of the test-only write delay (test/e2e/process-faults.test.ts). */
export const TEST_WRITE_DELAY_ENV = "WHIPBENCH_TEST_WRITE_DELAY_MS";
let testDelayTaken = false;

/**
 * Test-only: WHIPBENCH_TEST_WRITE_DELAY_MS holds the process's first report file this long
 * (at most 60 s) between writing its temporary file and renaming it, so that a test can
 * signal the process while it writes. Unset, empty or not a positive number: no delay.
 */
function takeTestWriteDelayMs(): number {
  if (testDelayTaken) return 0;
  testDelayTaken = true;
  const ms = Number(process.env[TEST_WRITE_DELAY_ENV] ?? "");
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, 60_000) : 0;
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
    const delayMs = takeTestWriteDelayMs();
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
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

export async function writeReport(
  dir: string,
  stem: string,
  json: string,
  markdown: string,
): Promise<ReportFiles> {
  await mkdir(dir, { recursive: true, mode: 0o750 });
  const files = { json: join(dir, `${stem}.json`), markdown: join(dir, `${stem}.md`) };
  await writeAtomic(files.json, json);
  try {
    await writeAtomic(files.markdown, markdown);
  } catch (err) {
    await rm(files.json, { force: true }).catch(() => {});
    throw err;
  }
  return files;
}

/** A short reason for a write failure that names no more than the directory the user gave. */
export function writeErrorText(err: unknown): string {
  const code = (err as { code?: string } | null)?.code;
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
