import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ScenarioError } from "../../src/core/errors.ts";
import { churnRun } from "../../src/core/scenario/churn-schedule.ts";
import { SCENARIO_DEFAULTS } from "../../src/core/scenario/defaults.ts";
import { buildSchedule, secondsToNs } from "../../src/core/scenario/schedule.ts";
import {
  decodeScenario,
  normaliseScenario,
  parseScenario,
  type Scenario,
  validateScenario,
} from "../../src/core/scenario-file/scenario.ts";

const WHEP = "http://127.0.0.1:8889/bench/whep?token=SECRET";
const WHIP = "http://127.0.0.1:8889/bench/whip";

function parse(obj: Record<string, unknown>): Scenario {
  return parseScenario(JSON.stringify(obj));
}

function rejects(text: string, message: string): void {
  assert.throws(
    () => parseScenario(text),
    (err: unknown) => {
      assert.ok(err instanceof ScenarioError);
      assert.equal(err.message, message);
      return true;
    },
  );
}

const base = { whep: WHEP, viewers: 10, holdSeconds: 30 };
const j = (o: Record<string, unknown>): string => JSON.stringify({ ...base, ...o });

test("every docs/definitions.md#scenario-validation message, in order", () => {
  rejects(JSON.stringify({ viewers: 0, holdSeconds: 0 }), "scenario: whep is required");
  rejects(j({ whep: "ftp://h/x", viewers: 0 }), "scenario: whep must be an http(s) URL");
  rejects(j({ whip: "nope", codec: "av1" }), "scenario: whip must be an http(s) URL");
  rejects(j({ codec: "av1", viewers: 0 }), 'scenario: codec "av1" (want vp8 or h264)');
  rejects(j({ viewers: 0, rampSeconds: -1 }), "scenario: viewers must be 1..10000");
  rejects(j({ viewers: 10001 }), "scenario: viewers must be 1..10000");
  rejects(j({ rampSeconds: -1, holdSeconds: 0 }), "scenario: rampSeconds must not be negative");
  rejects(j({ holdSeconds: 0, warmupSeconds: -1 }), "scenario: holdSeconds must be positive");
  rejects(j({ warmupSeconds: -1, joinTimeoutSeconds: -1 }), "scenario: warmupSeconds must not be negative");
  rejects(j({ joinTimeoutSeconds: -1, stallMs: -1 }), "scenario: joinTimeoutSeconds must be positive");
  rejects(j({ stallMs: -1, excludeFirstSeconds: -1 }), "scenario: stallMs must be positive");
  rejects(
    j({ excludeFirstSeconds: -1, rampOffsetMaxSeconds: 1 }),
    "scenario: excludeFirstSeconds must not be negative",
  );
  rejects(j({ excludeFirstSeconds: 3600.5 }), "scenario: excludeFirstSeconds must be at most 3600");
  rejects(j({ rampOffsetMaxSeconds: 1 }), "scenario: rampOffsetMaxSeconds needs rampOffsetSeed");
  rejects(j({ rampOffsetMaxSeconds: -1 }), "scenario: rampOffsetMaxSeconds needs rampOffsetSeed");
  rejects(
    j({ rampOffsetSeed: 1, rampOffsetMaxSeconds: -1 }),
    "scenario: rampOffsetMaxSeconds must be above 0 and at most 3600",
  );
  rejects(
    j({ rampOffsetSeed: 1, rampOffsetMaxSeconds: 3601 }),
    "scenario: rampOffsetMaxSeconds must be above 0 and at most 3600",
  );
  rejects(j({ workers: 257 }), "scenario: workers must be 0..256");
  rejects(j({ receivePath: "fast" }), 'scenario: receivePath "fast" (want werift, lean or arena)');
  rejects(j({ receivePath: 1 }), "scenario: receivePath: got 1, want a string");
  rejects(j({ keyframeRequests: "always" }), 'scenario: keyframeRequests "always" (want browser or join)');
  rejects(j({ keyframeRequests: true }), "scenario: keyframeRequests: got true, want a string");
  assert.equal(parse({ ...base, keyframeRequests: "join" }).keyframeRequests, "join");
  rejects(j({ viewerProfile: "chrome" }), 'scenario: viewerProfile "chrome" (want browser or minimal)');
  rejects(j({ viewerProfile: 1 }), "scenario: viewerProfile: got 1, want a string");
  assert.equal(parse({ ...base, viewerProfile: "minimal" }).viewerProfile, "minimal");
  assert.equal(parse({ ...base, excludeFirstSeconds: 3600 }).excludeFirstSeconds, 3600);
  assert.equal(parse({ ...base, rampOffsetSeed: 1, rampOffsetMaxSeconds: 3600 }).rampOffsetMaxSeconds, 3600);
});

test("strict decoding: unknown field, types, trailing data, bad JSON", () => {
  rejects(j({ viewer: 10 }), 'scenario: unknown key "viewer"');
  rejects(j({ viewers: "10" }), "scenario: viewers: got a string, want an integer");
  rejects(j({ viewers: 1.5 }), "scenario: viewers: got 1.5, want an integer");
  rejects(j({ rampSeconds: true }), "scenario: rampSeconds: got true, want a finite number");
  rejects(j({ includeLoopback: 1 }), "scenario: includeLoopback: got 1, want true or false");
  rejects(j({ whip: null }), "scenario: whip: got null, want a string");
  rejects(
    j({ rampOffsetSeed: 1.5 }),
    "scenario: rampOffsetSeed: got 1.5, want an integer from -2^63 to 2^63-1",
  );
  rejects(
    j({ rampOffsetSeed: 1e3 }).replace("1000", "1e3"),
    "scenario: rampOffsetSeed: got 1e3, want an integer from -2^63 to 2^63-1",
  );
  rejects(
    j({}).replace("}", ',"rampOffsetSeed":9223372036854775808}'),
    "scenario: rampOffsetSeed: got 9223372036854775808, want an integer from -2^63 to 2^63-1",
  );
  rejects(
    j({}).replace('"holdSeconds":30', '"holdSeconds":1e400'),
    "scenario: holdSeconds: got 1e400, want a finite number",
  );
  // the first error in document order wins
  rejects('{"viewerz":1,"viewers":"x"}', 'scenario: unknown key "viewerz"');
  rejects("{}{}", "scenario: trailing data after the JSON object");
  rejects(`${j({})} x`, "scenario: trailing data after the JSON object");
  assert.equal(parseScenario(`\n${j({})}\n\n`).viewers, 10);
  rejects("[]", "scenario: got an array, want a JSON object of scenario keys");
  rejects("null", "scenario: got null, want a JSON object of scenario keys");
  rejects("", "scenario: EOF");
  rejects('{"whep": "http://x', "scenario: unexpected EOF");
  rejects('{"whep" "x"}', "scenario: invalid character at offset 8 after object key");
  rejects('{"whep": tru}', "scenario: invalid character at offset 12 in literal true");
  rejects('{"viewers": 01}', "scenario: invalid character at offset 13 after object key:value pair");
  rejects(
    `{"whep": "${"a".repeat(50)}\u0001"}`,
    "scenario: invalid character at offset 60 in string literal",
  );
  rejects(`${"[".repeat(20000)}${"]".repeat(20000)}`, "scenario: exceeded max depth");
  // nested values are skipped over correctly (and then rejected by type)
  rejects('{"name": {"a": [1, {"b": "}"}], "c": {}}}', "scenario: name: got an object, want a string");
});

test("keys match case-insensitively like Go; exact match preferred", () => {
  const s = parseScenario(`{"WHEP": "${WHEP}", "Viewers": 3, "holdseconds": 5}`);
  assert.equal(s.viewers, 3);
  assert.equal(s.holdSeconds, 5);
  assert.equal(s.whep, WHEP);
});

test("URLs are never echoed", () => {
  for (const text of [
    j({ whep: "ftp://secret-host/SECRET" }),
    j({ whip: "gopher://secret-host/SECRET" }),
    j({ whep: "http:secret-host" }),
    j({ whep: "SECRET", viewer: 1 }),
  ]) {
    try {
      parseScenario(text);
      assert.fail("accepted");
    } catch (err) {
      assert.ok(err instanceof ScenarioError);
      assert.doesNotMatch(err.message, /SECRET|secret-host/i);
    }
  }
  rejects(
    '{"whep": "http://SECRET" "x"}',
    "scenario: invalid character at offset 25 after object key:value pair",
  );
});

test("URL shapes accepted and refused", () => {
  for (const ok of [
    "http://h",
    "HTTPS://h:8443/x",
    "http://u:p@[::1]:8889/whep",
    "http://h:/x",
    "https://a.example.test/x?y#z",
  ]) {
    assert.equal(parse({ ...base, whep: ok }).whep, ok, ok);
  }
  for (const bad of [
    "http:h",
    "http://",
    "http:///x",
    "//h/x",
    "h/x",
    "http://h:x/",
    "http://a b/",
    "ws://h",
    "http://h:1:2/",
  ]) {
    assert.throws(() => parse({ ...base, whep: bad }), /whep must be an http\(s\) URL/, bad);
  }
});

test("defaults: vp8, warmup 2 only with whip, join 10, stall 500, exclude 5, explicit 0 kept", () => {
  const split = parse(base);
  assert.deepEqual(split, {
    whep: WHEP,
    codec: "vp8",
    viewers: 10,
    rampSeconds: 0,
    holdSeconds: 30,
    joinTimeoutSeconds: 10,
    stallMs: 500,
    excludeFirstSeconds: 5,
    receivePath: "arena",
    viewerSockets: "shared",
    keyframeRequests: "browser",
    viewerProfile: "browser",
  });
  const withWhip = parse({ ...base, whip: WHIP, warmupSeconds: 0 });
  assert.equal(withWhip.warmupSeconds, 2);
  assert.equal(parse({ ...base, whip: WHIP, warmupSeconds: 0.5 }).warmupSeconds, 0.5);
  for (const x of [0, 0.5, 12])
    assert.equal(parse({ ...base, excludeFirstSeconds: x }).excludeFirstSeconds, x);
  assert.equal(parse({ ...base, codec: "h264" }).codec, "h264");
  assert.equal(parse({ ...base, rampOffsetSeed: 0 }).rampOffsetMaxSeconds, 1);
  assert.equal(parse({ ...base, rampOffsetSeed: 0 }).rampOffsetSeed, 0n);
  assert.equal(parse({ ...base, joinTimeoutSeconds: 3, stallMs: 250 }).stallMs, 250);
  assert.equal(parse({ ...base, workers: 0 }).workers, 0);
  assert.equal(parse({ ...base, receivePath: "werift" }).receivePath, "werift");
  assert.equal(parse({ ...base, receivePath: "" }).receivePath, "arena");
  assert.equal(parse({ ...base, receivePath: "lean" }).receivePath, "lean");
  // normalise does not change its input
  const raw = decodeScenario(j({}));
  const copy = structuredClone(raw);
  normaliseScenario(raw);
  assert.deepEqual(raw, copy);
});

test("seeds: exact int64, negative, 2^62, beyond 2^53", () => {
  const seedOf = (lit: string): bigint | undefined =>
    parseScenario(j({}).replace("}", `,"rampOffsetSeed":${lit}}`)).rampOffsetSeed;
  assert.equal(seedOf("4611686018427387904"), 1n << 62n);
  assert.equal(seedOf("9007199254740993"), 9007199254740993n);
  assert.equal(seedOf("-1"), -1n);
  assert.equal(seedOf("-9223372036854775808"), -(1n << 63n));
  assert.equal(seedOf("9223372036854775807"), (1n << 63n) - 1n);
});

test("validation of overrides: non-finite and huge values fail with the key's message", () => {
  const ok = normaliseScenario(decodeScenario(j({})));
  const bad = (o: Partial<Scenario>, msg: RegExp): void => {
    assert.throws(() => validateScenario({ ...ok, ...o }), msg);
  };
  bad({ viewers: 1e300 }, /viewers must be 1\.\.10000/);
  bad({ viewers: Number.NaN }, /viewers must be 1\.\.10000/);
  bad({ viewers: 2.5 }, /viewers must be 1\.\.10000/);
  bad({ holdSeconds: Number.POSITIVE_INFINITY }, /holdSeconds must be positive/);
  bad({ holdSeconds: 1e300 }, /holdSeconds must be positive/);
  bad({ rampSeconds: Number.NaN }, /rampSeconds must not be negative/);
  bad({ rampSeconds: 1e300 }, /rampSeconds must not be negative/);
  bad({ joinTimeoutSeconds: Number.POSITIVE_INFINITY }, /joinTimeoutSeconds must be positive/);
  bad({ stallMs: 1e300 }, /stallMs must be positive/);
  bad({ excludeFirstSeconds: Number.NaN }, /excludeFirstSeconds must not be negative/);
  bad({ workers: 1.5 }, /workers must be 0\.\.256/);
  assert.equal(validateScenario({ ...ok, holdSeconds: 86400 * 30 }).holdSeconds, 86400 * 30);
});

test("ramp slots: 4 over 10 s, 50 over 10 s, ramp 0", () => {
  const sched = (o: Partial<Scenario>) => buildSchedule(normaliseScenario({ ...base, rampSeconds: 0, ...o }));
  assert.deepEqual(sched({ viewers: 4, rampSeconds: 10 }).startNs, [0, 2.5e9, 5e9, 7.5e9]);
  const fifty = sched({ viewers: 50, rampSeconds: 10 });
  assert.equal(fifty.startNs.length, 50);
  assert.deepEqual(
    fifty.startNs,
    Array.from({ length: 50 }, (_, i) => i * 200e6),
  );
  assert.ok(fifty.startNs.every((t) => t < 10e9));
  assert.equal(fifty.rampOffsetNs, null);
  assert.equal(fifty.viewersPhaseNs, 40e9);
  assert.deepEqual(sched({ viewers: 3 }).startNs, [0, 0, 0]);
  // floor in integer arithmetic: 3 over 1 s → 0, 333333333, 666666666
  assert.deepEqual(sched({ viewers: 3, rampSeconds: 1 }).startNs, [0, 333333333, 666666666]);
  // large values stay exact (ramp·i beyond 2^53)
  const big = sched({ viewers: 10000, rampSeconds: 3_000_000 });
  assert.equal(big.startNs[9999], Number((3_000_000_000_000_000n * 9999n) / 10000n));
});

test("seeded schedule: offsets added, run length includes the bound, independent of n", () => {
  const s = normaliseScenario({ ...base, viewers: 3, rampSeconds: 10, rampOffsetSeed: 42n });
  const sch = buildSchedule(s);
  assert.deepEqual(sch.rampOffsetNs, [741564878, 159910392, 278601130]);
  assert.equal(sch.startNs.length, 3);
  assert.deepEqual(sch.startNs, [741564878, 3333333333 + 159910392, 6666666666 + 278601130]);
  assert.equal(sch.viewersPhaseNs, 41e9);
  const more = buildSchedule({ ...s, viewers: 50 });
  assert.deepEqual(more.rampOffsetNs?.slice(0, 3), sch.rampOffsetNs);
  for (const bound of [1, 0.007, 3, 1e-9]) {
    for (const seed of [0n, 1n, -1n, 42n, 1n << 62n]) {
      const offs = buildSchedule({
        ...s,
        viewers: 200,
        rampOffsetSeed: seed,
        rampOffsetMaxSeconds: bound,
      }).rampOffsetNs;
      assert.ok(offs?.every((o) => o >= 0 && o < secondsToNs(bound)) === true, `${seed} ${bound}`);
    }
  }
});

test("secondsToNs truncates", () => {
  assert.equal(secondsToNs(0.3), 300_000_000);
  assert.equal(secondsToNs(1.5), 1_500_000_000);
  assert.equal(secondsToNs(1e-9), 1);
  assert.equal(secondsToNs(4.35), Math.trunc(4.35 * 1e9));
  assert.equal(secondsToNs(-0.5), -500_000_000);
});

test("the one table of defaults: what docs/definitions.md#scenario-keys states, what normalise fills in, what readers fall back to", () => {
  // each is what the definitions' key table states: | `key` | type | value … | what |
  const doc = readFileSync(join(import.meta.dirname, "../../docs/definitions.md"), "utf8");
  const keys = doc.slice(doc.indexOf("### Scenario keys"), doc.indexOf("### Scenario validation"));
  for (const [k, v] of Object.entries(SCENARIO_DEFAULTS)) {
    assert.match(
      keys,
      new RegExp(`^\\| \`${k}\` \\| [^|]* \\| \`?${v}\`?( [^|]*)? \\|`, "m"),
      `definitions.md#scenario-keys states ${k}'s default ${v}`,
    );
  }
  // every default applies to a publishing, seeded scenario that sets none of them
  const bare: Scenario = {
    whep: WHEP,
    whip: WHIP,
    viewers: 2,
    rampSeconds: 1,
    holdSeconds: 3,
    rampOffsetSeed: 7n,
  };
  const n = normaliseScenario(bare);
  for (const [k, v] of Object.entries(SCENARIO_DEFAULTS)) assert.equal(n[k as keyof Scenario], v, k);
  // a reader of the scenario before normalising falls back to the same values
  assert.equal(churnRun(bare).joinTimeoutSeconds, SCENARIO_DEFAULTS.joinTimeoutSeconds);
  assert.equal(churnRun(bare).boundNs, SCENARIO_DEFAULTS.rampOffsetMaxSeconds * 1e9);
  assert.deepEqual(buildSchedule(bare), buildSchedule(n));
});
