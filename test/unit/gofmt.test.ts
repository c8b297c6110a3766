import assert from "node:assert/strict";
import { test } from "node:test";
import {
  fileStamp,
  fmtFixed,
  fmtG,
  fmtG4,
  fmtGPrec,
  goDuration,
  mdStarted,
  parseGoDuration,
  rfc3339Nano,
} from "../../src/core/go-compat/fmt.ts";

test("fmtFixed rounds exact binary ties to even, like Go %.Nf", () => {
  assert.equal(fmtFixed(12.5, 0), "12");
  assert.equal(fmtFixed(13.5, 0), "14");
  assert.equal(fmtFixed(0.5, 0), "0");
  assert.equal(fmtFixed(1.5, 0), "2");
  assert.equal(fmtFixed(2.5, 0), "2");
  assert.equal(fmtFixed(1.25, 1), "1.2");
  assert.equal(fmtFixed(1.75, 1), "1.8");
  assert.equal(fmtFixed(0.125, 2), "0.12");
  assert.equal(fmtFixed(0.375, 2), "0.38");
  assert.equal(fmtFixed(-2.5, 0), "-2");
  assert.equal(fmtFixed(-3.5, 0), "-4");
});

test("fmtFixed rounds non-ties by the exact binary value", () => {
  // 1.005 is 1.00499999999999989... in binary: rounds down
  assert.equal(fmtFixed(1.005, 2), "1.00");
  // 0.15 is 0.1499999999999999944...: rounds down; 0.35 is 0.34999999999999997...
  assert.equal(fmtFixed(0.15, 1), "0.1");
  assert.equal(fmtFixed(0.45, 1), "0.5"); // 0.450000000000000011...
  assert.equal(fmtFixed(2.675, 2), "2.67");
  assert.equal(fmtFixed(1234.5678, 2), "1234.57");
  assert.equal(fmtFixed(0, 2), "0.00");
  assert.equal(fmtFixed(9.995, 2), "9.99"); // 9.9949999...
  assert.equal(fmtFixed(9.9951, 2), "10.00");
  assert.equal(fmtFixed(99.5, 0), "100");
  assert.equal(fmtFixed(0.001, 1), "0.0");
  assert.equal(fmtFixed(1e21, 1), "1000000000000000000000.0");
  assert.equal(fmtFixed(123.456, 0), "123");
});

test("fmtFixed matches toFixed away from ties", () => {
  let x = 0.0001;
  for (let i = 0; i < 500; i++) {
    x = (x * 1.37 + 0.013) % 1000; // small values: not exact ties at 4 digits
    for (const d of [0, 1, 2, 3]) assert.equal(fmtFixed(x, d), x.toFixed(d), `${x} %.${d}f`);
  }
});

test("fmtFixed negative zero and specials as Go", () => {
  assert.equal(fmtFixed(-0, 0), "-0");
  assert.equal(fmtFixed(-0.4, 0), "-0");
  assert.equal(fmtFixed(-0.04, 1), "-0.0");
  assert.equal(fmtFixed(Number.NaN, 1), "NaN");
  assert.equal(fmtFixed(Number.POSITIVE_INFINITY, 1), "+Inf");
  assert.equal(fmtFixed(Number.NEGATIVE_INFINITY, 1), "-Inf");
});

test("fmtG is Go %g shortest", () => {
  assert.equal(fmtG(10), "10");
  assert.equal(fmtG(0.5), "0.5");
  assert.equal(fmtG(0), "0");
  assert.equal(fmtG(-0), "-0");
  assert.equal(fmtG(1e-5), "1e-05");
  assert.equal(fmtG(0.0001), "0.0001");
  assert.equal(fmtG(0.00012345), "0.00012345");
  assert.equal(fmtG(1.5e-7), "1.5e-07");
  assert.equal(fmtG(1e6), "1e+06");
  assert.equal(fmtG(123456), "123456");
  assert.equal(fmtG(999999), "999999");
  assert.equal(fmtG(1234567), "1.234567e+06");
  assert.equal(fmtG(123456.7), "123456.7");
  assert.equal(fmtG(0.1 + 0.2), "0.30000000000000004");
  assert.equal(fmtG(-2.5), "-2.5");
  assert.equal(fmtG(1e21), "1e+21");
  assert.equal(fmtG(1.5e300), "1.5e+300");
  assert.equal(fmtG(5e-324), "5e-324");
  assert.equal(fmtG(Number.POSITIVE_INFINITY), "+Inf");
});

test("fmtG4 is Go %.4g", () => {
  assert.equal(fmtG4(30), "30");
  assert.equal(fmtG4(29.97002997), "29.97");
  assert.equal(fmtG4(25), "25");
  assert.equal(fmtG4(23.976023976), "23.98");
  assert.equal(fmtG4(0), "0");
  assert.equal(fmtG4(100), "100");
  assert.equal(fmtG4(1000), "1000");
  assert.equal(fmtG4(10000), "1e+04");
  assert.equal(fmtG4(12345.6), "1.235e+04");
  assert.equal(fmtG4(0.0001234), "0.0001234");
  assert.equal(fmtG4(0.00001234), "1.234e-05");
  assert.equal(fmtG4(1.00005), "1");
  assert.equal(fmtG4(59.94), "59.94");
  assert.equal(fmtG4(12.125), "12.12"); // exact tie → even
  assert.equal(fmtG4(12.375), "12.38");
  assert.equal(fmtGPrec(2.5, 0), "2"); // %.0g acts as %.1g; exact tie → even
});

test("goDuration is time.Duration.String()", () => {
  const s = 1e9;
  assert.equal(goDuration(0), "0s");
  assert.equal(goDuration(10 * s), "10s");
  assert.equal(goDuration(1.5 * s), "1.5s");
  assert.equal(goDuration(300e6), "300ms");
  assert.equal(goDuration(90 * s), "1m30s");
  assert.equal(goDuration(7200 * s), "2h0m0s");
  assert.equal(goDuration(1000), "1µs");
  assert.equal(goDuration(1500), "1.5µs");
  assert.equal(goDuration(1), "1ns");
  assert.equal(goDuration(999), "999ns");
  assert.equal(goDuration(1_234_567), "1.234567ms");
  assert.equal(goDuration(3723.5 * s), "1h2m3.5s");
  assert.equal(goDuration(-1.5 * s), "-1.5s");
  assert.equal(goDuration(60 * s), "1m0s");
});

test("parseGoDuration accepts Go syntax and rejects the rest", () => {
  assert.equal(parseGoDuration("300ms"), 300e6);
  assert.equal(parseGoDuration("10s"), 10e9);
  assert.equal(parseGoDuration("1m30s"), 90e9);
  assert.equal(parseGoDuration("1.5h"), 5400e9);
  assert.equal(parseGoDuration("0"), 0);
  assert.equal(parseGoDuration("-0"), 0);
  assert.equal(parseGoDuration("0s"), 0);
  assert.equal(parseGoDuration("2us"), 2000);
  assert.equal(parseGoDuration("2µs"), 2000);
  assert.equal(parseGoDuration("2μs"), 2000);
  assert.equal(parseGoDuration("500ns"), 500);
  assert.equal(parseGoDuration(".5s"), 500e6);
  assert.equal(parseGoDuration("1.s"), 1e9);
  assert.equal(parseGoDuration("+10s"), 10e9);
  assert.equal(parseGoDuration("1h1m1s1ms1us1ns"), 3661001001001);
  assert.equal(parseGoDuration("0.333333333333s"), 333333333);
  for (const bad of [
    "",
    "10",
    "1.5",
    "s",
    ".s",
    "1x",
    "-1s",
    "1s-",
    " 1s",
    "1s ",
    "1e3s",
    "--1s",
    "99999999999999999999s",
  ]) {
    assert.equal(parseGoDuration(bad), null, bad);
  }
  assert.equal(parseGoDuration("2000000h"), null); // beyond 2^53 ns
});

test("timestamps in UTC", () => {
  const ns = 1791186268096912000n; // 2026-10-05T07:44:28.096912Z
  assert.equal(rfc3339Nano(ns), "2026-10-05T07:44:28.096912Z");
  assert.equal(rfc3339Nano(1791148232632266637n), "2026-10-04T21:10:32.632266637Z");
  assert.equal(rfc3339Nano(1791148232000000000n), "2026-10-04T21:10:32Z");
  assert.equal(rfc3339Nano(1791148232100000000n), "2026-10-04T21:10:32.1Z");
  assert.equal(mdStarted(ns), "2026-10-05 07:44:28Z");
  assert.equal(fileStamp(ns), "20261005T074428Z");
  assert.equal(rfc3339Nano(-1n), "1969-12-31T23:59:59.999999999Z");
});
