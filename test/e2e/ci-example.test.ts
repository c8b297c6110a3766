// The GitHub Actions example (docs/ci/github-actions.yml) runs docs/ci/gate.sh with the env it
// names; this test runs the same script with the same variables (a free port and a temporary
// report directory instead of 8889 and reports/), and checks what the workflow then uploads and
// publishes: the reports, valid JUnit XML and the job summary.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { BIN, freePort, tempDir } from "./cli-harness.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const tmp = tempDir("ci");
after(() => tmp.remove());

test("the workflow's gate step: exit 0, reports, JUnit and the job summary", async () => {
  const workflow = readFileSync(join(ROOT, "docs/ci/github-actions.yml"), "utf8");
  // the step this test stands for, with the variables it sets
  assert.match(
    workflow,
    /run: bash docs\/ci\/gate\.sh\n\s+env:\n\s+WHIPBENCH: node bin\/whipbench\.js\n\s+OUT: reports\n/,
  );
  assert.match(workflow, /report_paths: reports\/junit\.xml/);
  assert.match(workflow, /path: reports\//);
  const out = join(tmp.dir, "reports");
  const summaryFile = join(tmp.dir, "step-summary.md");
  const port = await freePort();
  const child = spawn("bash", ["docs/ci/gate.sh"], {
    cwd: ROOT,
    env: {
      ...process.env,
      WHIPBENCH: `${process.execPath} ${BIN}`,
      OUT: out,
      PORT: String(port),
      GITHUB_STEP_SUMMARY: summaryFile,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  clearTimeout(timer);
  assert.equal(code, 0, `${stdout}\n${stderr}`);
  assert.match(stdout, /^valid, 6 of 6 thresholds passed: 4 of 4 viewers joined$/m);
  const files = readdirSync(out);
  assert.ok(
    files.some((f) => /^whipbench-.*-ci-gate\.json$/.test(f)),
    files.join(" "),
  );
  const xml = readFileSync(join(out, "junit.xml"), "utf8");
  assert.match(
    xml,
    /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="whipbench" tests="7" failures="0"/,
  );
  assert.equal((xml.match(/<testcase /g) ?? []).length, 7);
  const summary = readFileSync(summaryFile, "utf8");
  assert.match(summary, /^### whipbench: ci-gate\n\n\*\*valid, 6 of 6 thresholds passed/);
});
