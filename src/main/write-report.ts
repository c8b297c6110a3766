// Writing a report (§2.6): `<stem>.json` and `<stem>.md`, mode 0600, in a directory made with
// mode 0750. Each file is written under a temporary name and renamed, so a failed write never
// leaves a half-written report; if the Markdown cannot be written the JSON is removed too.
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

export interface ReportFiles {
  json: string;
  markdown: string;
}

async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    await writeFile(tmp, text, { mode: 0o600 });
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => {});
    throw err;
  }
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
      return "the output path is not a directory";
    case "ENOSPC":
      return "no space left on the device";
    case "EROFS":
      return "the output directory is on a read-only file system";
    default:
      return "the report could not be written";
  }
}
