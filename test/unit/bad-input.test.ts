// Bad input at the library level (issue 7, "Inputs"): every scenario or clip problem is one
// error of the documented class (ScenarioError, ClipError) whose message is one line, names
// the key or the problem, and carries no stack trace — what the CLI prints before exit 2.
// The CLI's exit codes and "nothing written" are the end-to-end tests' part.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { loadClip, MAX_CLIP_BYTES, parseAnnexB, parseIvf } from "../../src/core/clip/clip.ts";
import { ClipError, ScenarioError } from "../../src/core/errors.ts";
import { parseScenario } from "../../src/core/scenario-file/scenario.ts";

/** One line, no stack frame, nothing after a newline. */
function assertOneLine(message: string): void {
  assert.ok(message.length > 0);
  assert.ok(!/[\r\n]/.test(message), `multi-line message: ${JSON.stringify(message)}`);
  assert.ok(!/\bat .*:\d+:\d+/.test(message), `a stack frame in: ${message}`);
}

/** parseScenario(text) throws exactly a ScenarioError with this message (or matching it). */
function scenarioFails(text: string, want: string | RegExp): ScenarioError {
  let caught: unknown;
  try {
    parseScenario(text);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ScenarioError, `want a ScenarioError, got ${String(caught)}`);
  assert.equal(caught.constructor, ScenarioError);
  assert.equal(caught.name, "ScenarioError");
  assertOneLine(caught.message);
  if (typeof want === "string") assert.equal(caught.message, want);
  else assert.match(caught.message, want);
  return caught;
}

/** fn() throws exactly a ClipError with this message (or matching it). */
function clipFails(fn: () => unknown, want: string | RegExp): ClipError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ClipError, `want a ClipError, got ${String(caught)}`);
  assert.equal(caught.constructor, ClipError);
  assertOneLine(caught.message);
  if (typeof want === "string") assert.equal(caught.message, want);
  else assert.match(caught.message, want);
  return caught;
}

const BASE = { whep: "http://127.0.0.1:8889/bench/whep", viewers: 10, holdSeconds: 30 };
/** The base scenario with one member's raw JSON replaced (or added). */
function withRaw(key: string, raw: string): string {
  const members = Object.entries(BASE)
    .filter(([k]) => k !== key)
    .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  members.push(`${JSON.stringify(key)}:${raw}`);
  return `{${members.join(",")}}`;
}
/** A type error names the key, the value (a number or boolean as written, cut at 40 characters; others by kind) and what is wanted. */
const WANT: Record<string, string> = {
  int: "an integer",
  int64: "an integer from -2^63 to 2^63-1",
  float64: "a finite number",
  string: "a string",
  bool: "true or false",
};
const typeError = (key: string, shown: string, type: string): string =>
  `scenario: ${key}: got ${shown}, want ${WANT[type]}`;

// ---- scenario files ----------------------------------------------------------------------

describe("scenario: not JSON", () => {
  test("empty, blank, YAML, a BOM, binary, truncated", () => {
    scenarioFails("", "scenario: EOF");
    scenarioFails(" \n\t ", "scenario: EOF");
    scenarioFails(
      "whep: http://h/x\nviewers: 1\n",
      "scenario: invalid character at offset 0 looking for beginning of value",
    );
    scenarioFails(
      `\ufeff${JSON.stringify(BASE)}`,
      "scenario: invalid character at offset 0 looking for beginning of value",
    );
    scenarioFails("\u0000\u00ff\u0001PNG", /^scenario: invalid character at offset 0 /);
    scenarioFails(JSON.stringify(BASE).slice(0, 20), "scenario: unexpected EOF");
    scenarioFails(
      "{'whep': 'x'}",
      "scenario: invalid character at offset 1 looking for beginning of object key string",
    );
  });

  test("bare NaN, Infinity and non-JSON literals are a syntax error naming the offset", () => {
    // not JSON at all, so no key is read yet: the offset names the place
    scenarioFails(
      withRaw("viewers", "NaN"),
      /^scenario: invalid character at offset \d+ looking for beginning of value$/,
    );
    scenarioFails(withRaw("holdSeconds", "Infinity"), /^scenario: invalid character at offset \d+ /);
    scenarioFails(
      withRaw("holdSeconds", "-Infinity"),
      /^scenario: invalid character at offset \d+ in numeric literal$/,
    );
    scenarioFails(
      withRaw("viewers", "0x10"),
      /^scenario: invalid character at offset \d+ after object key:value pair$/,
    );
    scenarioFails(
      withRaw("viewers", "+1"),
      /^scenario: invalid character at offset \d+ looking for beginning of value$/,
    );
  });

  test("a JSON value that is not an object", () => {
    scenarioFails("[]", "scenario: got an array, want a JSON object of scenario keys");
    scenarioFails('"x"', "scenario: got a string, want a JSON object of scenario keys");
    scenarioFails("42", "scenario: got a number, want a JSON object of scenario keys");
    scenarioFails("-1", "scenario: got a number, want a JSON object of scenario keys");
    scenarioFails("null", "scenario: got null, want a JSON object of scenario keys");
    scenarioFails("true", "scenario: got a bool, want a JSON object of scenario keys");
  });
});

test("scenario: trailing data after the object", () => {
  const good = JSON.stringify(BASE);
  for (const tail of ["x", "{}", ",", "]", "// comment", "\u00a0", "\u0000", ` ${good}`]) {
    scenarioFails(good + tail, "scenario: trailing data after the JSON object");
  }
  assert.equal(parseScenario(`${good} \n\t\r\n`).viewers, 10, "JSON whitespace is not trailing data");
});

test("scenario: unknown keys are named, quoted on one line", () => {
  scenarioFails(withRaw("viewer", "1"), 'scenario: unknown key "viewer"');
  scenarioFails(withRaw("__proto__", "{}"), 'scenario: unknown key "__proto__"');
  scenarioFails(withRaw("a\nb", "1"), 'scenario: unknown key "a\\nb"');
  scenarioFails(withRaw("\u001b[31m", "1"), 'scenario: unknown key "\\x1b[31m"');
  scenarioFails(withRaw("x".repeat(300), "1"), /^scenario: unknown key "x{300}"$/);
});

test("scenario: wrong types name the key and its type", () => {
  scenarioFails(withRaw("viewers", '"10"'), typeError("viewers", "a string", "int"));
  scenarioFails(withRaw("viewers", "1.5"), typeError("viewers", "1.5", "int"));
  scenarioFails(withRaw("viewers", "true"), typeError("viewers", "true", "int"));
  scenarioFails(withRaw("holdSeconds", "[30]"), typeError("holdSeconds", "an array", "float64"));
  scenarioFails(withRaw("holdSeconds", '{"s":30}'), typeError("holdSeconds", "an object", "float64"));
  scenarioFails(withRaw("whep", "1"), typeError("whep", "1", "string"));
  scenarioFails(withRaw("whep", "null"), typeError("whep", "null", "string"));
  scenarioFails(withRaw("codec", '["vp8"]'), typeError("codec", "an array", "string"));
  scenarioFails(withRaw("loopbackOnly", '"true"'), typeError("loopbackOnly", "a string", "bool"));
  scenarioFails(withRaw("includeLoopback", "1"), typeError("includeLoopback", "1", "bool"));
  scenarioFails(withRaw("rampOffsetSeed", '"1"'), typeError("rampOffsetSeed", "a string", "int64"));
  // a case-folded key is named by its field
  scenarioFails(withRaw("VIEWERS", '"10"'), typeError("viewers", "a string", "int"));
});

test("scenario: NaN-like strings in number keys are type errors naming the key", () => {
  for (const s of ["NaN", "Infinity", "-Infinity", "1e999", "nan", ""]) {
    scenarioFails(withRaw("holdSeconds", JSON.stringify(s)), typeError("holdSeconds", "a string", "float64"));
    scenarioFails(withRaw("viewers", JSON.stringify(s)), typeError("viewers", "a string", "int"));
  }
});

test("scenario: huge numbers name the key", () => {
  scenarioFails(withRaw("viewers", "1e999"), typeError("viewers", "1e999", "int"));
  scenarioFails(withRaw("viewers", "1e3"), typeError("viewers", "1e3", "int"));
  scenarioFails(
    withRaw("viewers", "9223372036854775808"),
    typeError("viewers", "9223372036854775808", "int"),
  );
  scenarioFails(withRaw("viewers", "9223372036854775807"), "scenario: viewers must be 1..10000");
  scenarioFails(withRaw("holdSeconds", "1e999"), typeError("holdSeconds", "1e999", "float64"));
  scenarioFails(withRaw("holdSeconds", "-1e400"), typeError("holdSeconds", "-1e400", "float64"));
  scenarioFails(withRaw("holdSeconds", "1e300"), "scenario: holdSeconds must be positive");
  scenarioFails(withRaw("rampSeconds", "1e300"), "scenario: rampSeconds must not be negative");
  scenarioFails(withRaw("stallMs", "1e300"), "scenario: stallMs must be positive");
  scenarioFails(
    withRaw("excludeFirstSeconds", "1e300"),
    "scenario: excludeFirstSeconds must be at most 3600",
  );
  const digits = "9".repeat(5000);
  scenarioFails(
    withRaw("rampOffsetSeed", digits),
    typeError("rampOffsetSeed", `${"9".repeat(39)}…`, "int64"),
  );
  scenarioFails(withRaw("workers", "1e999"), typeError("workers", "1e999", "int"));
});

test("scenario: out-of-range values name the key", () => {
  const cases: [string, string, string][] = [
    ["whep", '""', "whep is required"],
    ["whep", '"ftp://h/x"', "whep must be an http(s) URL"],
    ["whep", '"http:h"', "whep must be an http(s) URL"],
    ["whip", '"h/x"', "whip must be an http(s) URL"],
    ["codec", '"vp9"', 'codec "vp9" (want vp8 or h264)'],
    ["viewers", "0", "viewers must be 1..10000"],
    ["viewers", "10001", "viewers must be 1..10000"],
    ["viewers", "-1", "viewers must be 1..10000"],
    ["rampSeconds", "-0.001", "rampSeconds must not be negative"],
    ["holdSeconds", "0", "holdSeconds must be positive"],
    ["holdSeconds", "-0", "holdSeconds must be positive"],
    ["warmupSeconds", "-1", "warmupSeconds must not be negative"],
    ["joinTimeoutSeconds", "-1", "joinTimeoutSeconds must be positive"],
    ["stallMs", "-1", "stallMs must be positive"],
    ["excludeFirstSeconds", "-1", "excludeFirstSeconds must not be negative"],
    ["excludeFirstSeconds", "3601", "excludeFirstSeconds must be at most 3600"],
    ["rampOffsetMaxSeconds", "1", "rampOffsetMaxSeconds needs rampOffsetSeed"],
    ["workers", "257", "workers must be 0..256"],
    ["workers", "-1", "workers must be 0..256"],
  ];
  for (const [key, raw, message] of cases) scenarioFails(withRaw(key, raw), `scenario: ${message}`);
  scenarioFails(
    withRaw("rampOffsetSeed", '1, "rampOffsetMaxSeconds": 3601'),
    "scenario: rampOffsetMaxSeconds must be above 0 and at most 3600",
  );
});

test("scenario: a URL is never echoed in a message", () => {
  const secret = "TOPSECRET";
  for (const [key, url] of [
    ["whep", `ftp://${secret}.example/x?token=${secret}`],
    ["whip", `gopher://${secret}/x`],
    ["whep", `http:${secret}`],
    ["whep", `http://${secret}:bad port/`],
  ] as const) {
    const err = scenarioFails(
      withRaw(key, JSON.stringify(url)),
      new RegExp(`^scenario: ${key} must be an http\\(s\\) URL$`),
    );
    assert.ok(!err.message.includes(secret));
  }
});

test("scenario: deeply nested input is an error, not a stack overflow", () => {
  scenarioFails(`${"[".repeat(20000)}${"]".repeat(20000)}`, "scenario: exceeded max depth");
  scenarioFails(`${'{"a":'.repeat(20000)}1${"}".repeat(20000)}`, "scenario: exceeded max depth");
  // nested inside a key's value: the depth limit first, else the key's type error
  scenarioFails(
    withRaw("name", `${"[".repeat(200_000)}${"]".repeat(200_000)}`),
    "scenario: exceeded max depth",
  );
  scenarioFails(
    withRaw("name", `${"[".repeat(9000)}${"]".repeat(9000)}`),
    typeError("name", "an array", "string"),
  );
  // unterminated nesting
  scenarioFails("[".repeat(5000), "scenario: unexpected EOF");
});

test("scenario: a large document is read in bounded time", () => {
  const big = withRaw("name", JSON.stringify("n".repeat(8 * 1024 * 1024)));
  const start = performance.now();
  assert.equal(parseScenario(big).name?.length, 8 * 1024 * 1024);
  scenarioFails(`${big} x`, "scenario: trailing data after the JSON object");
  const spaces = `${" ".repeat(4 * 1024 * 1024)}${JSON.stringify(BASE)}`;
  assert.equal(parseScenario(spaces).viewers, 10);
  assert.ok(performance.now() - start < 10_000, "an 8 MB scenario takes seconds at most");
});

// ---- clip files --------------------------------------------------------------------------

const VP80 = [0x56, 0x50, 0x38, 0x30];

/** An IVF file: 32-byte header (rate/scale 30/1) and frames of 3 bytes at pts 0, 1, 2, … */
function ivf(
  frames: number,
  o: { headerBytes?: number; count?: number; sizes?: number[]; fourcc?: number[] } = {},
): Uint8Array {
  const headerBytes = o.headerBytes ?? 32;
  const buf = new Uint8Array(Math.max(32, headerBytes) + frames * 15);
  const v = new DataView(buf.buffer);
  buf.set([0x44, 0x4b, 0x49, 0x46]);
  v.setUint16(6, headerBytes, true);
  buf.set(o.fourcc ?? VP80, 8);
  v.setUint32(16, 30, true);
  v.setUint32(20, 1, true);
  v.setUint32(24, o.count ?? frames, true);
  for (let i = 0; i < frames; i++) {
    const off = Math.max(32, headerBytes) + i * 15;
    v.setUint32(off, o.sizes?.[i] ?? 3, true);
    v.setBigUint64(off + 4, BigInt(i), true);
    buf.set([i === 0 ? 0x10 : 0x31, 0x02, 0x00], off + 12);
  }
  return buf;
}

test("clip: an empty file", () => {
  clipFails(() => parseIvf(new Uint8Array(0)), "ivf: not an IVF file");
  clipFails(
    () => parseAnnexB(new Uint8Array(0)),
    "h264: no SPS in the stream to read the frame rate from; give it with --fps",
  );
  clipFails(() => parseAnnexB(new Uint8Array(0), 30), "h264: the clip has no frames");
});

test("clip: a truncated file", () => {
  const good = ivf(3);
  assert.equal(parseIvf(good).frames.length, 3);
  clipFails(() => parseIvf(good.subarray(0, 31)), "ivf: not an IVF file"); // inside the file header
  clipFails(() => parseIvf(good.subarray(0, 32)), "ivf: need at least two frames to know the frame rate");
  clipFails(() => parseIvf(good.subarray(0, 32 + 15 + 5)), "ivf frame 1: truncated header");
  clipFails(() => parseIvf(good.subarray(0, good.length - 1)), "ivf frame 2: bad size 3");
  // an Annex-B stream cut inside its SPS
  const sps = Uint8Array.of(0, 0, 0, 1, 0x67, 0x42, 0xc0, 0x1e);
  clipFails(() => parseAnnexB(sps), "h264: the SPS ends before its timing_info");
});

test("clip: the wrong container", () => {
  const annexB = Uint8Array.of(0, 0, 0, 1, 0x65, 0x88, 0x80, 0x40);
  clipFails(() => parseIvf(annexB), "ivf: not an IVF file");
  clipFails(() => parseIvf(ivf(3, { fourcc: [0x56, 0x50, 0x39, 0x30] })), 'ivf: FourCC "VP90", want VP80');
  clipFails(
    () => parseIvf(ivf(3, { fourcc: [0x00, 0x0a, 0x1b, 0x7f] })),
    'ivf: FourCC "\\x00\\x0a\\x1b\\x7f", want VP80',
  );
  // an MP4 (ftyp box) and a PNG read as either codec
  const mp4 = Uint8Array.of(
    0,
    0,
    0,
    0x18,
    0x66,
    0x74,
    0x79,
    0x70,
    0x69,
    0x73,
    0x6f,
    0x6d,
    ...new Array(40).fill(0),
  );
  const png = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Array(40).fill(7));
  for (const file of [mp4, png]) {
    clipFails(() => parseIvf(file), "ivf: not an IVF file");
    clipFails(() => parseAnnexB(file), /^h264: /);
    clipFails(() => parseAnnexB(file, 30), "h264: the clip has no frames");
  }
  // an IVF file read as H.264: no start code, so no NAL unit and no frame
  clipFails(() => parseAnnexB(ivf(3), 30), "h264: the clip has no frames");
});

test("clip: a lying IVF header", () => {
  // frame size beyond the end of the file
  clipFails(() => parseIvf(ivf(3, { sizes: [3, 0xffffffff] })), "ivf frame 1: bad size 4294967295");
  clipFails(() => parseIvf(ivf(3, { sizes: [100] })), "ivf frame 0: bad size 100");
  // a size inside the file but not the real one: the next frame header is read from frame data
  clipFails(() => parseIvf(ivf(3, { sizes: [16] })), "ivf frame 1: bad size 196610");
  clipFails(() => parseIvf(ivf(3, { sizes: [0] })), "ivf frame 0: bad size 0");
  // header size: beyond the file, below 32, or pointing into the frames
  const withHeaderBytes = (n: number): Uint8Array => {
    const file = ivf(3);
    new DataView(file.buffer).setUint16(6, n, true);
    return file;
  };
  clipFails(() => parseIvf(withHeaderBytes(0xffff)), "ivf: bad header");
  clipFails(() => parseIvf(withHeaderBytes(32 + 45 + 1)), "ivf: bad header");
  clipFails(() => parseIvf(withHeaderBytes(8)), "ivf: bad header");
  clipFails(() => parseIvf(withHeaderBytes(31)), "ivf: bad header");
  clipFails(() => parseIvf(withHeaderBytes(32 + 4)), "ivf frame 0: bad size 0"); // 4 bytes into frame 0's header
  assert.equal(parseIvf(ivf(3, { headerBytes: 40 })).frames.length, 3, "a longer header is skipped");
  // frame count: not trusted either way — the frames in the file are read
  assert.equal(parseIvf(ivf(3, { count: 1000 })).frames.length, 3);
  assert.equal(parseIvf(ivf(3, { count: 0 })).frames.length, 3);
  assert.equal(parseIvf(ivf(3, { count: 0xffffffff })).frames.length, 3);
  // time base 0 and uneven timestamps
  const zeroRate = ivf(3);
  new DataView(zeroRate.buffer).setUint32(16, 0, true);
  clipFails(() => parseIvf(zeroRate), "ivf: bad header");
  const uneven = ivf(3);
  new DataView(uneven.buffer).setBigUint64(32 + 30 + 4, 7n, true);
  clipFails(() => parseIvf(uneven), "ivf: frame 2 is not evenly spaced (constant frame rate required)");
});

describe("clip files on disk", () => {
  const dir = mkdtempSync(join(tmpdir(), "wb-bad-input-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("empty, truncated, wrong container, missing, a directory, too large", () => {
    const empty = join(dir, "empty.ivf");
    writeFileSync(empty, new Uint8Array(0));
    clipFails(() => loadClip("vp8", { path: empty }), "ivf: not an IVF file");
    clipFails(() => loadClip("h264", { path: empty }), /^h264: no SPS/);
    const cut = join(dir, "cut.ivf");
    writeFileSync(cut, ivf(3).subarray(0, 32 + 12 + 1));
    clipFails(() => loadClip("vp8", { path: cut }), "ivf frame 0: bad size 3");
    const png = join(dir, "image.png");
    writeFileSync(png, Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a));
    clipFails(() => loadClip("vp8", { path: png }), "ivf: not an IVF file");
    clipFails(
      () => loadClip("vp8", { path: join(dir, "missing.ivf") }),
      `clip ${join(dir, "missing.ivf")}: no such file`,
    );
    clipFails(() => loadClip("vp8", { path: dir }), /^clip .*: (is a directory|not a regular file)$/);
    const big = join(dir, "big.ivf");
    writeFileSync(big, "");
    truncateSync(big, MAX_CLIP_BYTES + 1); // sparse: nothing is written
    clipFails(
      () => loadClip("vp8", { path: big }),
      `clip ${big}: ${MAX_CLIP_BYTES + 1} bytes is larger than the ${MAX_CLIP_BYTES}-byte limit`,
    );
  });

  test("a bad --fps", () => {
    clipFails(
      () => loadClip("vp8", { fps: 30 }),
      "a frame rate applies to an h264 clip; a vp8 clip states its own",
    );
    clipFails(() => loadClip("h264", { fps: 7 }), "h264: frame rate 7 does not divide the 90 kHz clock");
    clipFails(() => loadClip("h264", { fps: -30 }), "h264: frame rate -30 is not a frame rate");
    clipFails(() => loadClip("h264", { fps: Number.NaN }), "h264: frame rate NaN is not a frame rate");
    clipFails(
      () => loadClip("h264", { fps: Number.POSITIVE_INFINITY }),
      "h264: frame rate Infinity is not a frame rate",
    );
    clipFails(
      () => loadClip("h264", { fps: 1e-6 }),
      "h264: frame rate 0.000001 is too low for the 90 kHz clock",
    );
  });
});
