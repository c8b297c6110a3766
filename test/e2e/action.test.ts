// The GitHub Action (action.yml at the root): its steps call action/steps.sh, and this test runs
// that script as a workflow would — each step's inputs as the INPUT_* variables action.yml maps
// them to, GITHUB_ACTION_PATH, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY as files — against the built-in
// relay the run step starts (relay-port), with no network: the install step finds this checkout
// installed. A passing run leaves the reports, the JUnit and the summary, and exit-code 0; a failed
// threshold leaves exit-code 99, the run step still exits 0 (so the reports are uploaded) and the
// finish step fails the job with 99.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { freePort, tempDir } from "./cli-harness.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");
const tmp = tempDir("action");
after(() => tmp.remove());

interface Step {
  id?: string;
  uses?: string;
  run?: string;
  shell?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
interface Action {
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

/** One step of the action, as the runner runs it: bash, the given env, the workflow's files. */
async function step(sub: string, env: Record<string, string>, files: { output: string; summary: string }) {
  const child = spawn("bash", [join(ROOT, "action/steps.sh"), sub], {
    cwd: tmp.dir,
    env: {
      ...process.env,
      GITHUB_ACTION_PATH: ROOT,
      GITHUB_OUTPUT: files.output,
      GITHUB_STEP_SUMMARY: files.summary,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** `name=value` lines of a GITHUB_OUTPUT file. */
function outputs(file: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(file)) return out;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const i = line.indexOf("=");
    if (i > 0) out.set(line.slice(0, i), line.slice(i + 1));
  }
  return out;
}

/** A GitHub expression as action.yml writes it. */
const expr = (e: string) => `\${{ ${e} }}`;

const action = parse(readFileSync(join(ROOT, "action.yml"), "utf8")) as Action;

test("action.yml: a composite action whose steps are action/steps.sh, inputs passed as INPUT_*", () => {
  assert.equal(action.runs.using, "composite");
  const steps = action.runs.steps;
  const runs = steps.filter((s) => s.run !== undefined);
  assert.deepEqual(
    runs.map((s) => s.run),
    ["install", "run", "finish"].map((sub) => `bash "$GITHUB_ACTION_PATH/action/steps.sh" ${sub}`),
  );
  for (const s of runs) assert.equal(s.shell, "bash");
  // every input the run step needs reaches it as INPUT_<NAME>
  const run = steps.find((s) => s.id === "run");
  for (const name of ["scenario", "out", "relay-port", "args"]) {
    const v = `INPUT_${name.toUpperCase().replace(/-/g, "_")}`;
    assert.equal(run?.env?.[v], expr(`inputs.${name}`), v);
  }
  assert.equal(run?.env?.["WHIPBENCH"], expr("steps.install.outputs.whipbench"));
  assert.equal(action.inputs["scenario"]?.required, true);
  // the reports are uploaded whatever happened, then the job fails with the run's code
  const upload = steps.find((s) => s.uses?.startsWith("actions/upload-artifact@"));
  assert.equal(upload?.if, "always()");
  assert.equal(upload?.with?.["path"], expr("inputs.out"));
  const finish = steps.at(-1);
  assert.equal(finish?.if, "always()");
  assert.equal(finish?.env?.["INPUT_EXIT_CODE"], expr("steps.run.outputs.exit-code"));
  assert.ok(steps.indexOf(upload!) < steps.indexOf(finish!));
  for (const [name, o] of Object.entries(action.outputs))
    assert.equal(o.value, expr(`steps.run.outputs.${name}`));
});

function scenario(port: number, thresholds: Record<string, unknown>): string {
  const file = join(tmp.dir, `scenario-${Object.keys(thresholds).join("-")}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      name: "action",
      whip: `http://127.0.0.1:${port}/a/whip`,
      whep: `http://127.0.0.1:${port}/a/whep`,
      viewers: 2,
      rampSeconds: 0.5,
      holdSeconds: 3,
      warmupSeconds: 0.5,
      excludeFirstSeconds: 0,
      joinTimeoutSeconds: 15,
      loopbackOnly: true,
      thresholds,
    }),
  );
  return file;
}

test("the steps as a workflow runs them: install, a passing run, a failed threshold that fails the job", async () => {
  const files = { output: join(tmp.dir, "output"), summary: join(tmp.dir, "summary.md") };
  const install = await step("install", { INPUT_VERSION: "checkout" }, files);
  assert.equal(install.code, 0, install.stderr);
  const whipbench = outputs(files.output).get("whipbench");
  assert.equal(whipbench, `node ${ROOT}/bin/whipbench.js`);

  // a run that passes its thresholds
  const port = await freePort();
  const pass = await step(
    "run",
    {
      WHIPBENCH: whipbench!,
      INPUT_SCENARIO: scenario(port, { failedViewers: "== 0", "join.p95": "< 20s" }),
      INPUT_OUT: "pass",
      INPUT_RELAY_PORT: String(port),
      INPUT_ARGS: "--workers 0 --no-html",
    },
    { ...files, output: join(tmp.dir, "output-pass") },
  );
  assert.equal(pass.code, 0, pass.stderr);
  const o = outputs(join(tmp.dir, "output-pass"));
  assert.equal(o.get("exit-code"), "0", pass.stdout + pass.stderr);
  assert.equal(o.get("verdict"), "valid, 2 of 2 thresholds passed: 2 of 2 viewers joined");
  assert.match(o.get("report") ?? "", /^pass\/whipbench-.*-action\.json$/);
  assert.ok(existsSync(join(tmp.dir, o.get("report")!)));
  assert.ok(!existsSync(join(tmp.dir, o.get("report")!.replace(/\.json$/, ".html"))), "--no-html from args");
  assert.equal(o.get("junit"), "pass/junit.xml");
  assert.match(
    readFileSync(join(tmp.dir, "pass/junit.xml"), "utf8"),
    /<testsuites name="whipbench" tests="3" failures="0"/,
  );
  assert.match(
    readFileSync(files.summary, "utf8"),
    /^### whipbench: action\n\n\*\*valid, 2 of 2 thresholds passed/,
  );
  assert.ok(existsSync(join(tmp.dir, "pass/relay.log")), "the relay the step started and stopped");
  assert.equal(
    (await step("finish", { INPUT_EXIT_CODE: "0" }, files)).code,
    0,
    "a pass leaves the job green",
  );

  // a threshold no run can meet: the run step still exits 0 with exit-code 99, finish fails with 99
  const port2 = await freePort();
  const fail = await step(
    "run",
    {
      WHIPBENCH: whipbench!,
      INPUT_SCENARIO: scenario(port2, { "oneWayDelay.p50": "< 0.001ms" }),
      INPUT_OUT: "fail",
      INPUT_RELAY_PORT: String(port2),
      INPUT_ARGS: "--workers 0 --no-html",
    },
    { ...files, output: join(tmp.dir, "output-fail") },
  );
  assert.equal(fail.code, 0, fail.stderr);
  const f = outputs(join(tmp.dir, "output-fail"));
  assert.equal(f.get("exit-code"), "99", fail.stdout + fail.stderr);
  assert.match(readFileSync(join(tmp.dir, "fail/junit.xml"), "utf8"), /tests="2" failures="1"/);
  const finish = await step("finish", { INPUT_EXIT_CODE: f.get("exit-code")! }, files);
  assert.equal(finish.code, 99);
  assert.match(finish.stdout, /^::error::whipbench: a threshold failed \(exit 99\)/m);
});

test("the run step without a scenario: exit-code 2 and an error annotation, nothing run", async () => {
  const files = { output: join(tmp.dir, "output-none"), summary: join(tmp.dir, "summary-none.md") };
  const r = await step("run", { WHIPBENCH: "false", INPUT_SCENARIO: "" }, files);
  assert.equal(r.code, 0);
  assert.equal(outputs(files.output).get("exit-code"), "2");
  assert.match(r.stdout, /^::error::scenario: the input is required/m);
  assert.equal((await step("finish", { INPUT_EXIT_CODE: "2" }, files)).code, 2);
});
