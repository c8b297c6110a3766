// Bad input through the real CLI (issue 7, docs/reliability.md "Inputs", CLI column): every
// scenario, flag and clip problem exits 2 with exactly one stderr line — `whipbench <command>: `
// and the library's own message, naming the key, flag or problem — nothing on stdout, no stack
// trace, no URL secret, and nothing written. The library messages themselves are pinned in
// test/unit/bad-input.test.ts; here each is computed from the library and must be what the CLI
// prints. (A missing scenario file, a directory, an unknown key and several flags:
// test/e2e/cli.test.ts "usage".)
import assert from "node:assert/strict";
import { existsSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { embeddedAudioClipPath, loadAudioClip, loadClip } from "../../src/core/clip/clip.ts";
import { parseScenario } from "../../src/core/scenario-file/scenario.ts";
import { type CliResult, cli, tempDir } from "./cli-harness.ts";

const tmp = tempDir("cli-inputs");
after(() => tmp.remove());
const OUT = join(tmp.dir, "out");
const NOWHERE = "http://127.0.0.1:9/s/whip";
const BASE = { whep: "http://127.0.0.1:9/s/whep", viewers: 2, holdSeconds: 1 };

interface Case {
  /** what the row calls it */
  what: string;
  cmd: "run" | "view" | "publish" | "relay";
  args: string[];
  /** the whole message after `whipbench <cmd>: `, or a pattern of it */
  want: string | RegExp;
  env?: Record<string, string>;
}

/** The library's message for a scenario text (what the CLI must print). */
function scenarioMessage(text: string): string {
  try {
    parseScenario(text);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`the scenario parses: ${text.slice(0, 80)}`);
}

let files = 0;
function file(content: string | Uint8Array): string {
  const path = join(tmp.dir, `f${files++}`);
  writeFileSync(path, content);
  return path;
}

function scenarioCase(what: string, text: string): Case {
  return { what, cmd: "run", args: [file(text), "--out", OUT], want: scenarioMessage(text) };
}

function withMember(key: string, raw: string): string {
  const members = Object.entries(BASE)
    .filter(([k]) => k !== key)
    .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  return `{${[...members, `${JSON.stringify(key)}:${raw}`].join(",")}}`;
}

/** An IVF file: 32-byte header (30/1) and 3-byte frames at pts 0, 1, 2, … (as bad-input.test.ts). */
function ivf(frames: number, o: { count?: number; sizes?: number[]; fourcc?: number[] } = {}): Uint8Array {
  const buf = new Uint8Array(32 + frames * 15);
  const v = new DataView(buf.buffer);
  buf.set([0x44, 0x4b, 0x49, 0x46]);
  v.setUint16(6, 32, true);
  buf.set(o.fourcc ?? [0x56, 0x50, 0x38, 0x30], 8);
  v.setUint32(16, 30, true);
  v.setUint32(20, 1, true);
  v.setUint32(24, o.count ?? frames, true);
  for (let i = 0; i < frames; i++) {
    const off = 32 + i * 15;
    v.setUint32(off, o.sizes?.[i] ?? 3, true);
    v.setBigUint64(off + 4, BigInt(i), true);
    buf.set([i === 0 ? 0x10 : 0x31, 0x02, 0x00], off + 12);
  }
  return buf;
}

function clipCase(what: string, path: string, codec: "vp8" | "h264", fps?: number): Case {
  let want = "";
  try {
    loadClip(codec, fps === undefined ? { path } : { path, fps });
    throw new Error(`${what}: the clip loads`);
  } catch (err) {
    want = (err as Error).message;
  }
  const args = ["--whip", NOWHERE, "--codec", codec, "--clip", path];
  if (fps !== undefined) args.push("--fps", String(fps));
  return { what, cmd: "publish", args, want };
}

function audioClipCase(what: string, path: string): Case {
  let want = "";
  try {
    loadAudioClip(path);
    throw new Error(`${what}: the audio clip loads`);
  } catch (err) {
    want = (err as Error).message;
  }
  return { what, cmd: "publish", args: ["--whip", NOWHERE, "--clip", path], want };
}

function flagCase(cmd: Case["cmd"], args: string[], want: string | RegExp): Case {
  return { what: `${cmd} ${args.join(" ")}`, cmd, args, want };
}

const DEEP = 20_000;
const SECRET = "URLSECRET";

function cases(): Case[] {
  const ok = JSON.stringify(BASE);
  const hundredMb = file("");
  truncateSync(hundredMb, 100 * 1024 * 1024); // sparse: nothing is written
  const bigClip = file("");
  truncateSync(bigClip, 64 * 1024 * 1024 + 1);
  const lyingHeader = ivf(3);
  new DataView(lyingHeader.buffer).setUint16(6, 0xffff, true);
  const uneven = ivf(3);
  new DataView(uneven.buffer).setBigUint64(32 + 30 + 4, 7n, true);
  const scenarioFile = file(ok);
  const opus = new Uint8Array(readFileSync(embeddedAudioClipPath()));
  const badCrc = opus.slice();
  badCrc[200]! ^= 0xff;
  return [
    // scenarios: one per row (each goes the same way: the library's ScenarioError, printed)
    scenarioCase("YAML", "whep: http://h/x\nviewers: 2\n"),
    scenarioCase("not an object", "[]"),
    scenarioCase("trailing object", `${ok}{}`),
    scenarioCase("unknown __proto__", withMember("__proto__", "{}")),
    scenarioCase("wrong type", withMember("viewers", '"3"')),
    scenarioCase("a bound without a seed", withMember("rampOffsetMaxSeconds", "1")),
    scenarioCase("1e999", withMember("holdSeconds", "1e999")),
    scenarioCase("a NaN-like string", withMember("holdSeconds", '"NaN"')),
    scenarioCase("deep nesting", "[".repeat(DEEP)),
    scenarioCase(
      "a URL with secrets",
      withMember("whep", JSON.stringify(`ftp://u:${SECRET}@h/${SECRET}?t=${SECRET}`)),
    ),
    {
      what: "100 MB",
      cmd: "run",
      args: [hundredMb, "--out", OUT],
      want: "the scenario file is larger than 1 MiB",
    },
    // flags with bad values (more in cli.test.ts "bad flag values name the flag")
    flagCase("run", [scenarioFile, "--out", OUT, "--metrics", "not-an-address"], /^--metrics: /),
    flagCase("run", [scenarioFile, "--out", OUT, "--receive-path", "fast"], /--receive-path/),
    flagCase(
      "view",
      ["--whep", BASE.whep, "--out", OUT, "--duration", "0s"],
      /^--duration must be positive$/,
    ),
    flagCase("publish", ["--whip", NOWHERE, "--codec", "av1"], /--codec/),
    flagCase("relay", ["--listen", "127.0.0.1:0"], /^--listen: /),
    flagCase("relay", ["--link-loss", "120%"], "--link-loss: want a percentage from 0% to 100%, such as 5%"),
    flagCase("relay", ["--link-jitter", "5 ms"], /^--link-jitter: want a duration/),
    flagCase(
      "relay",
      ["--link-burst", "10"],
      "--link-burst: needs --link-loss (the burst model's long-run loss)",
    ),
    flagCase(
      "relay",
      ["--token-env", "WHIPBENCH_CLI_INPUTS_UNSET"],
      /--token-env WHIPBENCH_CLI_INPUTS_UNSET/,
    ),
    // clips
    clipCase("empty H.264", file(new Uint8Array(0)), "h264"),
    clipCase("truncated", file(ivf(3).subarray(0, 32 + 12 + 1)), "vp8"),
    clipCase("VP90", file(ivf(3, { fourcc: [0x56, 0x50, 0x39, 0x30] })), "vp8"),
    clipCase("a frame size beyond the end", file(ivf(3, { sizes: [100] })), "vp8"),
    clipCase("a header size beyond the file", file(lyingHeader), "vp8"),
    clipCase("uneven timestamps", file(uneven), "vp8"),
    clipCase("missing", join(tmp.dir, "missing.ivf"), "vp8"),
    clipCase("a directory", tmp.dir, "vp8"),
    clipCase("over 64 MiB", bigClip, "vp8"),
    clipCase("--fps for VP8", file(ivf(3)), "vp8", 30),
    audioClipCase("a truncated Ogg/Opus file", file(opus.subarray(0, opus.length - 100))),
    audioClipCase("an Ogg/Opus file with a bad CRC", file(badCrc)),
    flagCase(
      "publish",
      ["--whip", NOWHERE, "--clip", file(opus), "--clip", file(opus)],
      /^--clip: at most one/,
    ),
    flagCase("publish", ["--whip", NOWHERE, "--codec", "h264", "--fps", "-30"], /^--fps: want an integer/),
    flagCase(
      "publish",
      ["--whip", NOWHERE, "--codec", "h264", "--clip", "vp8-tl"],
      /^--clip vp8-tl needs --codec vp8$/,
    ),
  ];
}

function assertUsage(c: Case, r: CliResult): void {
  const label = `${c.what}: ${r.stderr.slice(0, 300)}`;
  assert.equal(r.code, 2, label);
  assert.equal(r.stdout, "", label);
  const lines = r.stderr.split("\n");
  assert.equal(lines.length, 2, `one line: ${label}`);
  assert.equal(lines[1], "", label);
  const prefix = `whipbench ${c.cmd}: `;
  assert.ok(lines[0]!.startsWith(prefix), label);
  const message = lines[0]!.slice(prefix.length);
  if (typeof c.want === "string") assert.equal(message, c.want, c.what);
  else assert.match(message, c.want, c.what);
  assert.doesNotMatch(r.stderr, /\bat .*:\d+:\d+/, `${c.what}: no stack frame`);
  assert.ok(!r.stderr.includes(SECRET), `${c.what}: a URL secret echoed`);
}

test("every bad scenario, flag value and clip: exit 2, one line naming it, nothing written", async () => {
  const all = cases();
  const results: CliResult[] = [];
  // four at a time: each is a Node start and an immediate exit
  for (let i = 0; i < all.length; i += 4) {
    const batch = all.slice(i, i + 4);
    results.push(...(await Promise.all(batch.map((c) => cli([c.cmd, ...c.args], { timeoutMs: 20_000 })))));
  }
  for (const [i, c] of all.entries()) assertUsage(c, results[i]!);
  assert.equal(existsSync(OUT), false, "nothing written");
});

test("a clip whose frame count lies is read by its frames: accepted, then the connection fails (exit 1)", async () => {
  const path = file(ivf(3, { count: 1000 }));
  assert.equal(loadClip("vp8", { path }).frames.length, 3);
  // port 9 is on fetch's block list: the clip is read, the POST is refused before any socket
  const r = await cli(["publish", "--whip", NOWHERE, "--clip", path, "--duration", "1s"], {
    timeoutMs: 20_000,
  });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^\S+ {2}publishing vp8 \(3 frames, 30 fps/);
  assert.match(r.stderr, /^whipbench publish: POST to 127\.0\.0\.1:9: the port is blocked by fetch/m);
});

test("publish --clip vp8-tl sends the embedded temporal-layer clip, its layer ids with it", async () => {
  const r = await cli(["publish", "--whip", NOWHERE, "--clip", "vp8-tl", "--duration", "1s"], {
    timeoutMs: 20_000,
  });
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /^\S+ {2}publishing vp8 \(\d+ frames, 30 fps, keyframe every \d+ frames, two temporal layers\)/,
  );
});
