// Summaries of the server watch's samples over one window [from, to] (monotonic ns): the process's
// CPU cores and RSS, and each Prometheus series as a rate (counter) or mean and last (gauge).

export interface ProcSample {
  monoNs: number;
  cpuSeconds: number;
  rssBytes: number;
}

export type ScrapeSample =
  | { monoNs: number; values: (number | null)[]; kinds: ("counter" | "gauge")[] }
  | { monoNs: number; error: string };

export type SeriesFigure =
  | { kind: "counter"; ratePerS: number }
  | { kind: "gauge"; mean: number; last: number }
  | { unavailable: string };

type Unavailable = { unavailable: string };

function inWindow<T extends { monoNs: number }>(list: readonly T[], from: number, to: number): T[] {
  return list.filter((s) => s.monoNs >= from && s.monoNs <= to);
}

export function procWindow(
  proc: readonly ProcSample[],
  from: number,
  to: number,
  intervalMs: number,
): {
  cpuCores: { mean: number; max: number } | Unavailable;
  rssMiB: { max: number; last: number } | Unavailable;
} {
  const s = inWindow(proc, from, to);
  const first = s[0];
  const last = s[s.length - 1];
  if (!first || !last) {
    const none = { unavailable: `no sample of the process in the window (one every ${intervalMs} ms)` };
    return { cpuCores: none, rssMiB: none };
  }
  const rssMiB = { max: Math.max(...s.map((x) => x.rssBytes)) / 2 ** 20, last: last.rssBytes / 2 ** 20 };
  if (s.length < 2) {
    return {
      cpuCores: { unavailable: `fewer than 2 samples in the window (one every ${intervalMs} ms)` },
      rssMiB,
    };
  }
  let max = 0;
  for (let i = 1; i < s.length; i++) {
    const a = s[i - 1]!;
    const b = s[i]!;
    max = Math.max(max, (b.cpuSeconds - a.cpuSeconds) / ((b.monoNs - a.monoNs) / 1e9));
  }
  const mean = (last.cpuSeconds - first.cpuSeconds) / ((last.monoNs - first.monoNs) / 1e9);
  return { cpuCores: { mean, max }, rssMiB };
}

export function seriesWindow(
  scrapes: readonly ScrapeSample[],
  index: number,
  text: string,
  from: number,
  to: number,
): SeriesFigure {
  const all = inWindow(scrapes, from, to);
  const points: { monoNs: number; value: number; kind: "counter" | "gauge" }[] = [];
  let error: string | null = null;
  for (const s of all) {
    if ("error" in s) {
      error = s.error;
      continue;
    }
    const value = s.values[index];
    if (value !== null && value !== undefined)
      points.push({ monoNs: s.monoNs, value, kind: s.kinds[index]! });
  }
  const last = points[points.length - 1];
  if (!last) {
    if (error) return { unavailable: error };
    if (all.length === 0) return { unavailable: "no scrape in the window" };
    return { unavailable: `no series ${text} in the scrapes` };
  }
  if (last.kind === "gauge") {
    const mean = points.reduce((a, p) => a + p.value, 0) / points.length;
    return { kind: "gauge", mean, last: last.value };
  }
  if (points.length < 2) {
    return { unavailable: error ?? `fewer than 2 scrapes of ${text} in the window` };
  }
  // a counter that went down was reset (the server restarted): count from zero again, as rate() does
  let increase = 0;
  for (let i = 1; i < points.length; i++) {
    const d = points[i]!.value - points[i - 1]!.value;
    increase += d >= 0 ? d : points[i]!.value;
  }
  return { kind: "counter", ratePerS: increase / ((last.monoNs - points[0]!.monoNs) / 1e9) };
}
