// The error catalogue (src/core/errors.ts): the viewer and publisher kinds agree with
// docs/definitions.md#error-kinds and #publisher-figures, every error class of src/ extends the
// base with its own name and a code no other class has, and the one place that turns an error
// into a line and an exit status gives each its documented status.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  ClipError,
  ClockPeerError,
  EXIT_ERROR,
  EXIT_USAGE,
  errnoCode,
  errorMessage,
  errorOutcome,
  HttpExchangeError,
  isViewerErrorKind,
  JsonSyntaxError,
  MatrixError,
  PromParseError,
  PUBLISHER_ERROR_KINDS,
  PublisherError,
  RunError,
  ScenarioError,
  SendLogPeerError,
  ThresholdError,
  UsageError,
  VIEWER_ERROR_KINDS,
  WhipbenchError,
} from "../../src/core/errors.ts";
import { ROOT, sourceFiles } from "./repo-files.ts";

const definitions = readFileSync(join(ROOT, "docs/definitions.md"), "utf8");

/** The text of one `### heading` section of definitions.md. */
function section(heading: string): string {
  const start = definitions.indexOf(`### ${heading}\n`);
  assert.ok(start >= 0, `no section ${heading}`);
  const end = definitions.indexOf("\n#", start + 4);
  return definitions.slice(start, end < 0 ? undefined : end);
}

/** The backquoted words of `text` that look like kinds, in order. */
function kinds(text: string): string[] {
  return [...text.matchAll(/`([a-z_<>]+)`/g)].map((m) => m[1] ?? "");
}

test("the viewer kinds are the ones docs/definitions.md#error-kinds lists, in its order", () => {
  const text = section("Error kinds");
  const listed = kinds(text.slice(text.indexOf("Viewer kinds:")));
  assert.deepEqual(listed, [...VIEWER_ERROR_KINDS]);
  assert.equal(VIEWER_ERROR_KINDS.length, 15);
});

test("the publisher kinds are the ones docs/definitions.md#publisher-figures lists, in its order", () => {
  const text = section("Publisher figures");
  const from = text.indexOf("`error`/`errorKind` when it failed");
  const to = text.indexOf("no status code", from);
  assert.ok(from >= 0 && to > from);
  const listed = kinds(text.slice(from, to)).filter((k) => k !== "error" && k !== "errorKind");
  assert.deepEqual(listed, [...PUBLISHER_ERROR_KINDS]);
});

test("a viewer kind read off the wire: an HTTP status, a listed kind; never the placeholder or another word", () => {
  for (const k of ["http_503", "http_404", "not_started", "agent_missing", "dropped"]) {
    assert.equal(isViewerErrorKind(k), true, k);
  }
  for (const k of ["http_<status>", "http_", "http_5031", "disconnected", "bogus", "", 3, null]) {
    assert.equal(isViewerErrorKind(k), false, String(k));
  }
});

/** One instance of every exported error class of src/, with the exit status it must end a command with. */
const INSTANCES: [WhipbenchError, number][] = [
  [new UsageError("--x: bad"), EXIT_USAGE],
  [new ScenarioError("x: bad"), EXIT_USAGE],
  [new ClipError("bad clip"), EXIT_USAGE],
  [new RunError("--out x: not writable"), EXIT_ERROR],
  [new JsonSyntaxError("EOF"), EXIT_ERROR],
  [new ThresholdError("loss: bad"), EXIT_ERROR],
  [new MatrixError("bad"), EXIT_ERROR],
  [new PromParseError("line 1: bad"), EXIT_ERROR],
  [new HttpExchangeError("transport", "POST to x: refused"), EXIT_ERROR],
  [new PublisherError("connect_timeout", "not connected after 10s"), EXIT_ERROR],
  [new ClockPeerError("the clock peer did not answer"), EXIT_ERROR],
  [new SendLogPeerError("the send-log peer did not answer"), EXIT_ERROR],
];

test("every error class names itself, has its own code and the exit status the command line documents", () => {
  const codes = new Set<string>();
  for (const [err, status] of INSTANCES) {
    assert.ok(err instanceof WhipbenchError && err instanceof Error);
    assert.equal(err.name, err.constructor.name);
    assert.equal(codes.has(err.code), false, `${err.code} twice`);
    codes.add(err.code);
    assert.equal(err.exitStatus, status, err.name);
    assert.equal(errorOutcome(err, "run").exitStatus, status, err.name);
  }
});

test("no error class in src/ bypasses the base, and no two share a code", () => {
  const bypass: string[] = [];
  const codes: string[] = [];
  for (const f of sourceFiles("src")) {
    const text = readFileSync(join(ROOT, f), "utf8");
    for (const m of text.matchAll(/class (\w+) extends (\w+)/g)) {
      const base = m[1] === "WhipbenchError" && f === "src/core/errors.ts";
      if (!base && /^(Error|TypeError|RangeError)$/.test(m[2] ?? "")) bypass.push(`${f}: ${m[1]}`);
    }
    for (const m of text.matchAll(/readonly code = "(\w+)"/g)) codes.push(m[1] ?? "");
  }
  assert.deepEqual(bypass, []);
  assert.ok(codes.length >= INSTANCES.length + 2, `${codes.length} codes`);
  assert.equal(new Set(codes).size, codes.length, codes.join(" "));
});

test("the line and the status: the command named, or the mode a usage error names; anything else exits 1", () => {
  assert.deepEqual(errorOutcome(new UsageError("--whep is required"), "view"), {
    line: "whipbench view: --whep is required",
    exitStatus: EXIT_USAGE,
  });
  assert.deepEqual(errorOutcome(new UsageError("the scenario needs whip", "run --agents"), "run"), {
    line: "whipbench run --agents: the scenario needs whip",
    exitStatus: EXIT_USAGE,
  });
  assert.deepEqual(errorOutcome(new ScenarioError("viewers: want a number"), "run"), {
    line: "whipbench run: scenario: viewers: want a number",
    exitStatus: EXIT_USAGE,
  });
  assert.deepEqual(errorOutcome(new Error("boom"), "publish"), {
    line: "whipbench publish: boom",
    exitStatus: EXIT_ERROR,
  });
  assert.deepEqual(errorOutcome("a thrown string", "relay"), {
    line: "whipbench relay: a thrown string",
    exitStatus: EXIT_ERROR,
  });
  assert.equal(errorMessage(new TypeError("x is undefined")), "x is undefined");
  assert.equal(errorMessage(42), "42");
  assert.equal(errnoCode(Object.assign(new Error("x"), { code: "ENOENT" })), "ENOENT");
  assert.equal(errnoCode(Object.assign(new Error("x"), { code: 3 })), undefined);
  assert.equal(errnoCode(null), undefined);
});
