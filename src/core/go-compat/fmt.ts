// Go fmt-compatible number formatting (docs/definitions.md#differences-from-the-reference-tool):
// `%.Nf`, `%g`, `%.4g`, with Go's rounding of the exact binary value (half to even on exact ties
// only), plus Go's time formats. Not a hot path: exact decimal expansion uses BigInt. Go's time
// formats live in time.ts and are re-exported here.

export { fileStamp, goDuration, mdStarted, parseGoDuration, rfc3339Nano } from "./time.ts";

/** Exact decimal digits of a finite positive double: value = 0.<digits> × 10^dp (Go's `decimal`). */
interface Decimal {
  digits: string; // no leading zeros, no trailing zeros; "" for zero
  dp: number;
}

const F64 = new Float64Array(1);
const U64 = new BigUint64Array(F64.buffer);

function trimZeros(d: Decimal): Decimal {
  let end = d.digits.length;
  while (end > 0 && d.digits.charCodeAt(end - 1) === 48) end--;
  if (end === 0) return { digits: "", dp: 0 };
  return end === d.digits.length ? d : { digits: d.digits.slice(0, end), dp: d.dp };
}

/** Exact decimal expansion of |v| (v finite). */
function exactDecimal(v: number): Decimal {
  const a = Math.abs(v);
  if (a === 0) return { digits: "", dp: 0 };
  F64[0] = a;
  const bits = U64[0] ?? 0n;
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & 0xfffffffffffffn;
  let e2: number;
  if (expBits === 0) {
    e2 = -1074;
  } else {
    mant |= 1n << 52n;
    e2 = expBits - 1075;
  }
  let intDigits: string;
  let fracLen: number;
  if (e2 >= 0) {
    intDigits = (mant << BigInt(e2)).toString();
    fracLen = 0;
  } else {
    intDigits = (mant * 5n ** BigInt(-e2)).toString();
    fracLen = -e2;
  }
  // value = intDigits × 10^-fracLen; strip leading zeros (none from toString) and trailing zeros.
  return trimZeros({ digits: intDigits, dp: intDigits.length - fracLen });
}

/** Go's decimal.Round(nd): round to nd digits, half to even on exact ties. */
function roundDecimal(d: Decimal, nd: number): Decimal {
  if (nd < 0) return { digits: "", dp: 0 };
  if (nd >= d.digits.length) return d;
  const next = d.digits.charCodeAt(nd) - 48;
  let up: boolean;
  if (next === 5 && nd + 1 === d.digits.length) {
    up = nd > 0 && (d.digits.charCodeAt(nd - 1) - 48) % 2 === 1;
  } else {
    up = next >= 5;
  }
  if (!up) return trimZeros({ digits: d.digits.slice(0, nd), dp: d.dp });
  // round up: increment with carry
  let i = nd - 1;
  while (i >= 0 && d.digits.charCodeAt(i) === 57) i--;
  if (i < 0) return { digits: "1", dp: d.dp + 1 };
  const digits = d.digits.slice(0, i) + String.fromCharCode(d.digits.charCodeAt(i) + 1);
  return { digits, dp: d.dp };
}

/** Shortest round-trip digits (ECMAScript and Go agree: shortest, closest to the exact value). */
function shortestDecimal(v: number): Decimal {
  const a = Math.abs(v);
  if (a === 0) return { digits: "", dp: 0 };
  const s = a.toExponential();
  const ePos = s.indexOf("e");
  const mantissa = s.slice(0, ePos).replace(".", "");
  const exp = Number(s.slice(ePos + 1));
  return trimZeros({ digits: mantissa, dp: exp + 1 });
}

function digitAt(d: Decimal, i: number): string {
  return i >= 0 && i < d.digits.length ? (d.digits[i] ?? "0") : "0";
}

/** Go strconv fmtF: %f with prec fractional digits. */
function formatF(d: Decimal, prec: number): string {
  let out = "";
  if (d.dp > 0) {
    for (let i = 0; i < d.dp; i++) out += digitAt(d, i);
  } else {
    out = "0";
  }
  if (prec > 0) {
    out += ".";
    for (let i = 1; i <= prec; i++) out += digitAt(d, d.dp + i - 1);
  }
  return out;
}

/** Go strconv fmtE: %e with prec fractional digits, exponent at least two digits. */
function formatE(d: Decimal, prec: number): string {
  let out = d.digits.length === 0 ? "0" : digitAt(d, 0);
  if (prec > 0) {
    out += ".";
    for (let i = 1; i <= prec; i++) out += digitAt(d, i);
  }
  const exp = d.digits.length === 0 ? 0 : d.dp - 1;
  const absExp = Math.abs(exp);
  return `${out}e${exp < 0 ? "-" : "+"}${absExp < 10 ? "0" : ""}${absExp}`;
}

/** Go strconv %g body (formatDigits case 'g'). */
function formatG(d: Decimal, precIn: number, shortest: boolean): string {
  let prec = precIn;
  const nd = d.digits.length;
  let eprec = prec;
  if (eprec > nd && nd >= d.dp) eprec = nd;
  if (shortest) eprec = 6;
  const exp = d.dp - 1;
  if (exp < -4 || exp >= eprec) {
    if (prec > nd) prec = nd;
    return formatE(d, prec - 1);
  }
  if (prec > d.dp) prec = nd;
  return formatF(d, Math.max(prec - d.dp, 0));
}

function special(v: number): string | null {
  if (Number.isNaN(v)) return "NaN";
  if (v === Number.POSITIVE_INFINITY) return "+Inf";
  if (v === Number.NEGATIVE_INFINITY) return "-Inf";
  return null;
}

function sign(v: number): string {
  return v < 0 || Object.is(v, -0) ? "-" : "";
}

/** Go `%.Nf` (digits ≥ 0): exact binary value, ties to even; "-0" for negative zero results. */
export function fmtFixed(v: number, digits: number): string {
  const sp = special(v);
  if (sp !== null) return sp;
  const prec = Math.max(0, Math.trunc(digits));
  const d = exactDecimal(v);
  return sign(v) + formatF(roundDecimal(d, d.dp + prec), prec);
}

/** Go `%g` (shortest): exponent form when exp < -4 or exp ≥ 6 (`1e-05`, `1e+06`). */
export function fmtG(v: number): string {
  const sp = special(v);
  if (sp !== null) return sp;
  const d = shortestDecimal(v);
  return sign(v) + formatG(d, d.digits.length, true);
}

/** Go `%.Pg` with an explicit precision (P ≥ 1; 0 is treated as 1 like Go). */
export function fmtGPrec(v: number, precision: number): string {
  const sp = special(v);
  if (sp !== null) return sp;
  const prec = Math.max(1, Math.trunc(precision));
  const d = roundDecimal(exactDecimal(v), prec);
  return sign(v) + formatG(d, prec, false);
}

/** Go `%.4g` (fps: 30 → "30", 29.97002997 → "29.97"). */
export function fmtG4(v: number): string {
  return fmtGPrec(v, 4);
}
