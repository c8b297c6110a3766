// Property-based tests of the scenario parser (docs/definitions.md#scenario): any text, and JSON objects of known,
// case-folded and unknown keys holding values of every JSON type, huge and non-finite number
// literals, NaN-like strings and deep nesting. The parser returns a scenario that passes docs/definitions.md#scenario-validation
// (and schedules), or throws a one-line ScenarioError naming the key — never anything else,
// never a URL; a valid scenario round-trips.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { ScenarioError } from "../../src/core/errors.ts";
import { buildSchedule } from "../../src/core/scenario/schedule.ts";
import { parseScenario, SCENARIO_KEYS, type Scenario } from "../../src/core/scenario-file/scenario.ts";
import { check, list, onlyThrows } from "./fuzz.ts";

const SECRET = "s3cr3t-token";
const URLS = [
  "http://127.0.0.1:8889/bench/whep",
  "https://media.example.com/live/whep",
  "http://[::1]:8080/whep",
  `http://127.0.0.1:8889/bench/whep?token=${SECRET}`,
  `ftp://${SECRET}.example/x`,
  `http:${SECRET}`,
  "",
];

/** A scenario-shaped error: one line, prefixed, no stack frames, no secret from a URL. */
function assertScenarioMessage(err: Error): void {
  assert.ok(err instanceof ScenarioError, `not a ScenarioError: ${String(err)}`);
  assert.match(err.message, /^scenario: \S/);
  assert.ok(!err.message.includes("\n"), `multi-line message: ${err.message}`);
  assert.ok(!/\bat .*:\d+:\d+/.test(err.message), "a stack frame in the message");
  assert.ok(!err.message.includes(SECRET), `a URL echoed: ${err.message}`);
}

/** What docs/definitions.md#scenario-validation promises of every scenario parseScenario returns, and its schedule. */
function assertValidScenario(s: Scenario): void {
  assert.match(s.whep, /^https?:/i);
  assert.ok(s.codec === "vp8" || s.codec === "h264");
  assert.ok(Number.isInteger(s.viewers) && s.viewers >= 1 && s.viewers <= 10000);
  for (const v of [s.rampSeconds, s.holdSeconds, s.warmupSeconds ?? 0, s.joinTimeoutSeconds, s.stallMs]) {
    assert.ok(typeof v === "number" && Number.isFinite(v) && v >= 0, `value ${v}`);
  }
  assert.ok(s.holdSeconds > 0);
  const sched = buildSchedule(s);
  assert.equal(sched.startNs.length, s.viewers);
  for (const ns of sched.startNs) assert.ok(Number.isInteger(ns) && ns >= 0, `start ${ns}`);
  assert.ok(Number.isInteger(sched.viewersPhaseNs) && sched.viewersPhaseNs >= 0); // 5e-324 s truncates to 0 ns, as in Go
}

// ---- arbitrary text ----------------------------------------------------------------------

const jsonish = fc.oneof(
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.string({ unit: fc.constantFrom(...'{}[]:,"\\ \n0123456789.eE+-truefalsnul'), maxLength: 200 }),
  fc.json({ maxDepth: 4 }),
  fc.json({ maxDepth: 2 }).map((j) => `{"whep":"http://h/x","viewers":1,"holdSeconds":1,"name":${j}}`),
);

test("scenario: any text is a valid scenario or a one-line ScenarioError", (t) => {
  check(t, 1000, [jsonish], (text) => {
    const r = onlyThrows(() => parseScenario(text), [ScenarioError]);
    if (r.ok) assertValidScenario(r.value);
    else assertScenarioMessage(r.error);
  });
});

// ---- objects of hostile members ----------------------------------------------------------

const KEY_NAMES = SCENARIO_KEYS.map(([k]) => k);

/** A key: a scenario key (sometimes in other case), or an unknown one. */
const keyArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...KEY_NAMES) },
  { weight: 1, arbitrary: fc.constantFrom(...KEY_NAMES).map((k) => k.toUpperCase()) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("viewer", "__proto__", "constructor", "", "whep ", "Ｗhep", "toString"),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

/** A value's JSON source text: sensible, wrong-typed, huge, non-finite, NaN-like, nested. */
const rawValueArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...URLS).map((u) => JSON.stringify(u)),
  fc.constantFrom('"vp8"', '"h264"', '"vp9"', '"NaN"', '"Infinity"', '"-Infinity"', '"1e999"', '"10"', '""'),
  fc.constantFrom(
    "NaN",
    "Infinity",
    "-Infinity",
    "1e999",
    "-1e999",
    "1e400",
    "-0",
    "0",
    "1",
    "-1",
    "10000",
    "10001",
  ),
  fc.constantFrom(
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "1.5",
    "3600",
    "3601",
  ),
  fc.constantFrom("1e308", "4.9e-324", "2.5e-8", "1E3", "0.0", "123456789012345678901234567890"),
  fc.integer({ min: -20000, max: 20000 }).map(String),
  fc.double().map((d) => (Number.isFinite(d) ? JSON.stringify(d) : String(d))),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.constantFrom("true", "false", "null", "[]", "{}", "[1,2]", '{"a":1}'),
  fc.json({ maxDepth: 3 }),
  fc.integer({ min: 1, max: 12000 }).map((d) => `${"[".repeat(d)}${"]".repeat(d)}`),
);

const trailingArb = fc.constantFrom("", "", "", "\n", " \t\r\n", "x", "{}", "]", "\u00a0", "\ufeff", " 1");

test("scenario: objects of any keys and values are a valid scenario or a ScenarioError", (t) => {
  const members = list(fc.tuple(keyArb, rawValueArb), 20);
  check(t, 1000, [members, trailingArb], (ms, trailing) => {
    const text = `{${ms.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}${trailing}`;
    const r = onlyThrows(() => parseScenario(text), [ScenarioError]);
    if (r.ok) assertValidScenario(r.value);
    else assertScenarioMessage(r.error);
  });
});

// ---- one bad member names its key ---------------------------------------------------------

const base: Record<string, string> = {
  whep: JSON.stringify(URLS[0]),
  viewers: "10",
  holdSeconds: "30",
};

/** Bad values by key: wrong types for every key, and out-of-range values where there is a range. */
const OUT_OF_RANGE: Record<string, string[]> = {
  whep: ['""', '"ftp://h/x"', `"http:${SECRET}"`, '"/relative"'],
  whip: ['"nope"', `"gopher://${SECRET}/x"`],
  codec: ['"vp9"', '"VP8"', '"NaN"'],
  viewers: ["0", "-1", "10001", "1e999", "1.5", "9223372036854775808"],
  rampSeconds: ["-1", "-1e-9", "1e300", "1e999"],
  holdSeconds: ["-1", "1e300", "1e999", "-0"],
  warmupSeconds: ["-1", "1e300"],
  joinTimeoutSeconds: ["-1", "1e300"],
  stallMs: ["-1", "1e300"],
  excludeFirstSeconds: ["-1", "3601", "1e999"],
  rampOffsetMaxSeconds: ["1", "-1"],
  rampOffsetSeed: ["1.5", "1e3", "9223372036854775808", "-9223372036854775809"],
  workers: ["-1", "257", "1.5"],
};

/** Valid JSON of every type but the key's own (a NaN-like string for a number, a number for a string…). */
function wrongType(key: string): string[] {
  const type = SCENARIO_KEYS.find(([k]) => k === key)?.[1];
  const others = ["true", "null", "[]", "{}", '{"a":[1]}', "[[[[]]]]"];
  if (type === "string") return [...others, "1", "1e999", "-0"];
  if (type === "bool") return [...others.slice(1), "1", "0", '"true"'];
  return [...others, '"NaN"', '"Infinity"', '"1e999"', '"10"']; // numbers
}

test("scenario: one bad member — wrong type or out of range — fails naming that key", (t) => {
  const arb = fc
    .constantFrom(...KEY_NAMES)
    .chain((key) =>
      fc.tuple(fc.constant(key), fc.constantFrom(...wrongType(key), ...(OUT_OF_RANGE[key] ?? []))),
    );
  check(t, 500, [arb, fc.boolean()], ([key, raw], upper) => {
    const members = { ...base, [key]: raw };
    const written = Object.entries(members).map(
      ([k, v]) => `${JSON.stringify(k === key && upper ? k.toUpperCase() : k)}:${v}`,
    );
    const text = `{${written.join(",")}}`;
    const r = onlyThrows(() => parseScenario(text), [ScenarioError]);
    assert.ok(!r.ok, `accepted ${key}: ${raw}`);
    assertScenarioMessage(r.error);
    assert.ok(r.error.message.includes(key), `"${r.error.message}" does not name ${key}`);
  });
});

// ---- a valid scenario round-trips --------------------------------------------------------

const seconds = (max: number): fc.Arbitrary<number> => fc.double({ min: 0, max, noNaN: true });

const validArb = fc
  .record(
    {
      name: fc.string({ maxLength: 20 }),
      whip: fc.constantFrom(...URLS.slice(0, 4)),
      whep: fc.constantFrom(...URLS.slice(0, 4)),
      codec: fc.constantFrom("vp8", "h264"),
      viewers: fc.integer({ min: 1, max: 10000 }),
      rampSeconds: seconds(1e6),
      holdSeconds: seconds(1e6).filter((v) => v > 0),
      rampOffsetSeed: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      rampOffsetMaxSeconds: seconds(3600).filter((v) => v > 0),
      warmupSeconds: seconds(1e4),
      joinTimeoutSeconds: seconds(1e4).filter((v) => v > 0),
      stallMs: seconds(1e6).filter((v) => v > 0),
      excludeFirstSeconds: seconds(3600),
      bearerEnv: fc.constantFrom("WB_TOKEN", "X"),
      includeLoopback: fc.boolean(),
      loopbackOnly: fc.boolean(),
      workers: fc.integer({ min: 0, max: 256 }),
    },
    { requiredKeys: ["whep", "viewers", "holdSeconds"] },
  )
  .map((v) => {
    if (v.rampOffsetSeed === undefined) delete v.rampOffsetMaxSeconds; // a bound needs a seed
    return v;
  });

test("scenario: a valid scenario written as JSON parses back to its values", (t) => {
  check(t, 500, [validArb], (v) => {
    const text = `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${typeof x === "bigint" ? x.toString() : JSON.stringify(x)}`)
      .join(",")}}`;
    const s = parseScenario(text);
    assertValidScenario(s);
    for (const [k, x] of Object.entries(v)) {
      const got = (s as unknown as Record<string, unknown>)[k];
      // normalisation drops empty strings, false flags and zero omitempty numbers
      if (x === "" || x === false || (x === 0 && (k === "warmupSeconds" || k === "rampOffsetMaxSeconds")))
        continue;
      // and gives zero values their defaults
      if (x === 0 && (k === "joinTimeoutSeconds" || k === "stallMs")) continue;
      if (k === "warmupSeconds" && x === 0) continue;
      assert.equal(got, x, k);
    }
  });
});
