// Go time formats: time.Duration.String(), time.ParseDuration, RFC 3339 with nanoseconds and
// the report's date stamps (UTC). Not a hot path: BigInt arithmetic.

function fmtFrac(v: bigint, prec: number): { frac: string; rest: bigint } {
  let frac = "";
  let print = false;
  let u = v;
  for (let i = 0; i < prec; i++) {
    const digit = u % 10n;
    print = print || digit !== 0n;
    if (print) frac = digit.toString() + frac;
    u /= 10n;
  }
  return { frac: print ? `.${frac}` : "", rest: u };
}

/** Go time.Duration.String() of an integer number of nanoseconds (truncated toward zero). */
export function goDuration(ns: number): string {
  const t = Math.trunc(ns);
  if (!Number.isFinite(t)) return String(t);
  const neg = t < 0;
  let u = BigInt(Math.abs(t));
  let out: string;
  if (u < 1_000_000_000n) {
    let unit: string;
    let prec: number;
    if (u === 0n) return "0s";
    if (u < 1000n) {
      prec = 0;
      unit = "ns";
    } else if (u < 1_000_000n) {
      prec = 3;
      unit = "µs";
    } else {
      prec = 6;
      unit = "ms";
    }
    const { frac, rest } = fmtFrac(u, prec);
    out = `${rest}${frac}${unit}`;
  } else {
    const { frac, rest } = fmtFrac(u, 9);
    u = rest;
    out = `${u % 60n}${frac}s`;
    u /= 60n;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}

const UNIT_NS: ReadonlyMap<string, bigint> = new Map([
  ["ns", 1n],
  ["us", 1000n],
  ["µs", 1000n], // U+00B5
  ["μs", 1000n], // U+03BC
  ["ms", 1_000_000n],
  ["s", 1_000_000_000n],
  ["m", 60_000_000_000n],
  ["h", 3_600_000_000_000n],
]);

const LIMIT = 1n << 63n;

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

/**
 * Go time.ParseDuration, returning integer nanoseconds; null when malformed, negative or out
 * of range (Go's int64 limit, and also above Number.MAX_SAFE_INTEGER so the result is exact).
 */
export function parseGoDuration(text: string): number | null {
  let s = text;
  let neg = false;
  if (s.startsWith("-") || s.startsWith("+")) {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0;
  if (s === "") return null;
  let total = 0n;
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (!(c === "." || isDigit(c))) return null;
    // integer part
    let v = 0n;
    const intStart = i;
    while (isDigit(s[i])) {
      if (v > LIMIT / 10n) return null;
      v = v * 10n + BigInt(s.charCodeAt(i) - 48);
      if (v > LIMIT) return null;
      i++;
    }
    const pre = i !== intStart;
    // fraction (Go's leadingFraction: stop accumulating on overflow)
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s[i] === ".") {
      i++;
      const fracStart = i;
      let overflow = false;
      while (isDigit(s[i])) {
        if (!overflow) {
          if (f > (LIMIT - 1n) / 10n) {
            overflow = true;
          } else {
            const y = f * 10n + BigInt(s.charCodeAt(i) - 48);
            if (y > LIMIT) {
              overflow = true;
            } else {
              f = y;
              scale *= 10;
            }
          }
        }
        i++;
      }
      post = i !== fracStart;
    }
    if (!pre && !post) return null;
    // unit
    const unitStart = i;
    while (i < s.length && !(s[i] === "." || isDigit(s[i]))) i++;
    if (i === unitStart) return null;
    const unit = UNIT_NS.get(s.slice(unitStart, i));
    if (unit === undefined) return null;
    if (v > LIMIT / unit) return null;
    v *= unit;
    if (f > 0n) {
      // Go: v += uint64(float64(f) * (float64(unit) / scale))
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > LIMIT) return null;
    }
    total += v;
    if (total > LIMIT) return null;
  }
  if (neg) return total === 0n ? 0 : null;
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  return Number(total);
}

// ---------------------------------------------------------------------------------------------
// timestamps (UTC)

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}

function splitUnixNs(unixNs: bigint): { date: Date; fracNs: bigint } {
  let sec = unixNs / 1_000_000_000n;
  let fracNs = unixNs % 1_000_000_000n;
  if (fracNs < 0n) {
    fracNs += 1_000_000_000n;
    sec -= 1n;
  }
  return { date: new Date(Number(sec) * 1000), fracNs };
}

function dateParts(d: Date): [string, string, string, string, string, string] {
  return [
    pad(d.getUTCFullYear(), 4),
    pad(d.getUTCMonth() + 1, 2),
    pad(d.getUTCDate(), 2),
    pad(d.getUTCHours(), 2),
    pad(d.getUTCMinutes(), 2),
    pad(d.getUTCSeconds(), 2),
  ];
}

/** Go time.RFC3339Nano in UTC: fraction with trailing zeros trimmed, none for a whole second. */
export function rfc3339Nano(unixNs: bigint): string {
  const { date, fracNs } = splitUnixNs(unixNs);
  const [y, mo, d, h, mi, s] = dateParts(date);
  let frac = "";
  if (fracNs !== 0n) frac = `.${fracNs.toString().padStart(9, "0").replace(/0+$/, "")}`;
  return `${y}-${mo}-${d}T${h}:${mi}:${s}${frac}Z`;
}

/** Markdown header time: "YYYY-MM-DD HH:MM:SSZ" (UTC, seconds truncated). */
export function mdStarted(unixNs: bigint): string {
  const [y, mo, d, h, mi, s] = dateParts(splitUnixNs(unixNs).date);
  return `${y}-${mo}-${d} ${h}:${mi}:${s}Z`;
}

/** Report file-name stamp: "YYYYMMDDTHHMMSSZ" (UTC). */
export function fileStamp(unixNs: bigint): string {
  const [y, mo, d, h, mi, s] = dateParts(splitUnixNs(unixNs).date);
  return `${y}${mo}${d}T${h}${mi}${s}Z`;
}
