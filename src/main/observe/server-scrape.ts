// One scrape of a Prometheus text endpoint for the server watch: the value of each selector (the
// sum of the samples it matches) and whether it is a counter. Errors carry no part of the URL.
import { PromParseError } from "../../core/errors.ts";
import {
  matchesSelector,
  type PromSelector,
  parsePromText,
  sampleKind,
} from "../../core/prom/text-format.ts";

export interface ScrapeValues {
  /** per selector: the summed value, or null when no sample matched */
  values: (number | null)[];
  kinds: ("counter" | "gauge")[];
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

export async function scrapeSeries(
  url: string,
  selectors: readonly PromSelector[],
  timeoutMs: number,
): Promise<ScrapeValues | { error: string }> {
  let text: string;
  try {
    const res = await fetch(url, {
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: "text/plain;version=0.0.4" },
      redirect: "error",
    });
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => {});
      return { error: `HTTP ${res.status}` };
    }
    text = await res.text();
  } catch (err) {
    return { error: fetchFailure(err, timeoutMs) };
  }
  if (text.length > MAX_BODY_BYTES) return { error: "the answer is larger than 16 MiB" };
  let scrape: ReturnType<typeof parsePromText>;
  try {
    scrape = parsePromText(text);
  } catch (err) {
    if (err instanceof PromParseError) return { error: `not Prometheus text format (${err.message})` };
    throw err;
  }
  const values: (number | null)[] = [];
  const kinds: ("counter" | "gauge")[] = [];
  for (const sel of selectors) {
    let sum: number | null = null;
    let kind: "counter" | "gauge" = "gauge";
    for (const s of scrape.samples) {
      if (!matchesSelector(sel, s)) continue;
      sum = (sum ?? 0) + s.value;
      kind = sampleKind(s.name, scrape.types);
    }
    values.push(sum);
    kinds.push(kind);
  }
  return { values, kinds };
}

/** Why a fetch failed, in words that name no part of the URL. */
function fetchFailure(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; cause?: { code?: string; name?: string } };
  if (e.name === "TimeoutError" || e.cause?.name === "TimeoutError")
    return `no answer within ${timeoutMs} ms`;
  const code = e.cause?.code;
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "the host name does not resolve";
  return code ? `cannot fetch (${code})` : "cannot fetch";
}
