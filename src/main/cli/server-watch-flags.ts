// The server watch's flags, for a command to add (`whipbench capacity`): --server-pid PID,
// --server-metrics URL and --server-series NAME[,NAME…] (repeatable). Each bad value is a
// UsageError naming its flag (exit 2); a URL is never echoed (it may hold a token).
import type { Command } from "commander";
import { UsageError } from "../../core/errors.ts";
import { parsePromSelector } from "../../core/prom/text-format.ts";
import { intFlag } from "./flags.ts";

/** Linux's largest PID (PID_MAX_LIMIT on 64-bit). */
const PID_MAX = 4_194_304;

export const serverPidFlag: (text: string) => number = intFlag("--server-pid", 1, PID_MAX);

export function serverMetricsFlag(text: string): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch (err) {
    throw new UsageError("--server-metrics: want an http:// or https:// URL", undefined, { cause: err });
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new UsageError("--server-metrics: want an http:// or https:// URL");
  }
  return text;
}

/** Splits NAME[,NAME…] at the commas outside braces and quotes (`a{x="1",y="2"},b` is two). */
export function splitSeriesList(text: string): string[] {
  const out: string[] = [];
  let cur = "";
  let braces = false;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? "";
    if (quoted && c === "\\") {
      cur += c + (text[++i] ?? "");
      continue;
    }
    if (c === '"' && braces) quoted = !quoted;
    else if (!quoted && c === "{") braces = true;
    else if (!quoted && c === "}") braces = false;
    if (c === "," && !braces && !quoted) {
      out.push(cur.trim());
      cur = "";
    } else cur += c;
  }
  out.push(cur.trim());
  return out;
}

/** Commander parser of --server-series: validates each selector and collects repeated flags. */
export function serverSeriesFlag(text: string, previous: string[] | undefined): string[] {
  const items = splitSeriesList(text);
  for (const item of items) {
    if (item === "" || parsePromSelector(item) === null) {
      throw new UsageError(
        `--server-series: ${JSON.stringify(item)} is not a metric name or name{label="value",…} selector`,
      );
    }
  }
  return [...(previous ?? []), ...items];
}

/** Adds the three flags to a command (its options then carry observe/server-watch.ts's ServerWatchFlags). */
export function addServerWatchOptions(cmd: Command): Command {
  return cmd
    .option(
      "--server-pid <pid>",
      "sample this same-host process's CPU and RSS each second (/proc)",
      serverPidFlag,
    )
    .option(
      "--server-metrics <url>",
      "scrape this Prometheus text endpoint each second (needs --server-series)",
      serverMetricsFlag,
    )
    .option(
      "--server-series <names>",
      'series to keep from --server-metrics: NAME or NAME{label="v"}, comma-separated, repeatable',
      serverSeriesFlag,
    );
}
