// The error catalogue (src/core/errors.ts, its one entry point): the viewer and publisher kinds
// agree with docs/definitions.md#error-kinds and #publisher-figures; walking every class the
// catalogue exports, each names itself, has a code no other class has, an exit status the command
// line documents, keeps the error it was raised from as its cause, and is the row docs/conventions.md
// lists for it; no error class lives outside the catalogue; every plain Error left in src/ is marked
// internal; and the one place that turns an error into a line and an exit status gives each its own.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as catalogue from "../../src/core/errors.ts";
import {
  AgentError,
  CapacityError,
  ChurnError,
  ClipError,
  ClockPeerError,
  CohortError,
  EXIT_ERROR,
  EXIT_USAGE,
  errnoCode,
  errorMessage,
  errorOutcome,
  HttpExchangeError,
  IceGatheringError,
  isViewerErrorKind,
  JsonSyntaxError,
  MatrixError,
  MatrixServerError,
  PromParseError,
  PUBLISHER_ERROR_KINDS,
  PublisherError,
  RelayOfferError,
  RunError,
  ScenarioError,
  SendLogPeerError,
  ThresholdError,
  UsageError,
  VIEWER_ERROR_KINDS,
  WeriftInternalsError,
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
  assert.equal(VIEWER_ERROR_KINDS.length, 16);
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

/** Every class the catalogue exports that extends the base, by its export name. */
type ErrorClass = abstract new (...args: never[]) => WhipbenchError;
const CLASSES: [string, ErrorClass][] = [];
for (const [name, v] of Object.entries(catalogue) as [string, unknown][]) {
  if (typeof v === "function" && v.prototype instanceof WhipbenchError) CLASSES.push([name, v as ErrorClass]);
}

/** One instance of each class of the catalogue, raised from `cause`; a new class needs a line here. */
const MAKE: Record<string, (cause: unknown) => WhipbenchError> = {
  UsageError: (cause) => new UsageError("--x: bad", undefined, { cause }),
  RunError: (cause) => new RunError("--out x: not writable", { cause }),
  ScenarioError: (cause) => new ScenarioError("x: bad", { cause }),
  JsonSyntaxError: (cause) => new JsonSyntaxError("EOF", { cause }),
  ThresholdError: (cause) => new ThresholdError("loss: bad", { cause }),
  CohortError: (cause) => new CohortError("cohorts[0].down.loss: bad", { cause }),
  ChurnError: (cause) => new ChurnError("churn.seed: bad", { cause }),
  CapacityError: (cause) => new CapacityError("capacity.max: bad", { cause }),
  ClipError: (cause) => new ClipError("bad clip", { cause }),
  MatrixError: (cause) => new MatrixError("repeats: bad", { cause }),
  MatrixServerError: (cause) => new MatrixServerError("server x did not start", { cause }),
  PromParseError: (cause) => new PromParseError("line 1: bad", { cause }),
  HttpExchangeError: (cause) => new HttpExchangeError("transport", "POST to x: refused", 0, { cause }),
  IceGatheringError: (cause) => new IceGatheringError("ICE gathering did not complete", { cause }),
  PublisherError: (cause) => new PublisherError("connect_timeout", "not connected after 10s", { cause }),
  RelayOfferError: (cause) => new RelayOfferError("no video in the offer", { cause }),
  WeriftInternalsError: (cause) => new WeriftInternalsError("x is missing", { cause }),
  ClockPeerError: (cause) => new ClockPeerError("the clock peer did not answer", { cause }),
  SendLogPeerError: (cause) => new SendLogPeerError("the send-log peer did not answer", { cause }),
  AgentError: (cause) => new AgentError("the scenario has no whep", { cause }),
};

/** The bold numbers of the paragraph of `text` that starts at `marker`. */
function boldNumbers(text: string, marker: string): Set<number> {
  const at = text.indexOf(marker);
  assert.ok(at >= 0, `no "${marker}"`);
  const para = text.slice(at, text.indexOf("\n\n", at));
  return new Set([...para.matchAll(/\*\*(\d+)\*\*/g)].map((m) => Number(m[1])));
}

/** docs/conventions.md's error table: one row per class, `code`, `Class`, exit status. */
function documentedRows(): string[] {
  const text = readFileSync(join(ROOT, "docs/conventions.md"), "utf8");
  return [...text.matchAll(/^\| `([a-z_]+)` \| `(\w+)` \| (\d+) \|/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
}

test("the catalogue is walked whole: every class it exports has a line here, and no more", () => {
  assert.ok(CLASSES.length >= 20, `${CLASSES.length} classes`);
  assert.deepEqual(CLASSES.map(([name]) => name).sort(), Object.keys(MAKE).sort());
});

test("every class of the catalogue: its name, its own code, a documented exit status, its cause", () => {
  const documented = boldNumbers(definitions, "Exit codes:");
  const readme = boldNumbers(readFileSync(join(ROOT, "README.md"), "utf8"), "Exit status:");
  assert.deepEqual(
    [...documented].sort((a, b) => a - b),
    [0, 1, 2, 3, 99],
  );
  const codes = new Set<string>();
  for (const [name, cls] of CLASSES) {
    const cause = new Error(`below ${name}`);
    const err = (MAKE[name] ?? assert.fail(`no instance of ${name}`))(cause);
    assert.ok(err instanceof cls && err instanceof WhipbenchError && err instanceof Error, name);
    assert.equal(err.name, name);
    assert.equal(err.constructor.name, name);
    assert.match(err.code, /^[a-z][a-z_]*$/, name);
    assert.equal(codes.has(err.code), false, `${err.code} twice`);
    codes.add(err.code);
    assert.ok(documented.has(err.exitStatus) && readme.has(err.exitStatus), `${name}: ${err.exitStatus}`);
    assert.ok(
      err.exitStatus === EXIT_ERROR || err.exitStatus === EXIT_USAGE,
      `${name} ends a command in error`,
    );
    assert.equal(err.cause, cause, `${name} keeps its cause`);
    assert.equal(errorOutcome(err, "run").exitStatus, err.exitStatus, name);
  }
});

test("docs/conventions.md lists every code with its class and exit status, and no code the catalogue lacks", () => {
  const actual = CLASSES.map(([name]) => {
    const err = (MAKE[name] ?? assert.fail(name))(undefined);
    return `${err.code} ${name} ${err.exitStatus}`;
  });
  assert.deepEqual(documentedRows().sort(), actual.sort());
});

test("a scenario key error is a usage error (exit 2), whatever part of the scenario it is in", () => {
  for (const name of [
    "ScenarioError",
    "JsonSyntaxError",
    "ThresholdError",
    "CohortError",
    "ChurnError",
    "CapacityError",
  ]) {
    assert.equal((MAKE[name] ?? assert.fail(name))(undefined).exitStatus, EXIT_USAGE, name);
  }
});

/** The catalogue's own files: the only place an error class is declared. */
const CATALOGUE_FILES = /^src\/core\/errors(\.ts|\/)/;

test("no error class is declared outside the catalogue", () => {
  const outside: string[] = [];
  for (const f of sourceFiles("src")) {
    if (CATALOGUE_FILES.test(f)) continue;
    const text = readFileSync(join(ROOT, f), "utf8");
    for (const m of text.matchAll(/class (\w+) extends (\w*Error)\b/g)) outside.push(`${f}: ${m[1]}`);
  }
  assert.deepEqual(outside, []);
});

/**
 * The plain errors left in src/ (docs/conventions.md#errors): each `new Error(`, `new RangeError(`,
 * `new TypeError(` or `new SyntaxError(` has a `// internal:` comment on its line or one of the two
 * above, saying why no user reaches it.
 */
test("every plain Error left in src/ is marked internal, with its reason", () => {
  const unmarked: string[] = [];
  let marked = 0;
  for (const f of sourceFiles("src")) {
    const lines = readFileSync(join(ROOT, f), "utf8").split("\n");
    for (const [i, line] of lines.entries()) {
      if (!/\bnew (Range|Type|Syntax)?Error\(/.test(line)) continue;
      const near = lines.slice(Math.max(0, i - 2), i + 1).join("\n");
      if (/\/\/ internal: \S/.test(near)) marked++;
      else unmarked.push(`${f}:${i + 1}: ${line.trim()}`);
    }
  }
  assert.deepEqual(unmarked, []);
  assert.ok(marked > 0);
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
