// What the agents e2e tests share: the built-in relay on 127.0.0.1 for the file's tests, a
// temporary directory, and CLI processes started through it, every one killed (by its own PID)
// if still running when the file's tests end.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before } from "node:test";
import type { Report } from "../../src/core/report/types.ts";
import { Relay } from "../../src/main/relay/relay.ts";
import { type CliRun, freePort, readReportPair, startCli, tempDir } from "./cli-harness.ts";

export interface AgentsFixture {
  /** the relay's base URL, set once the file's tests begin */
  readonly base: string;
  readonly dir: string;
  /**
   * A CLI process with `env`. The harness's kill timer bounds one that hangs; a coordinator waits
   * for its agents' start and its run: on a busy machine more than 60 s in all.
   */
  start(args: string[], timeoutMs?: number): CliRun;
}

export function agentsFixture(prefix: string, env: Record<string, string>): AgentsFixture {
  let relay: Relay | null = null;
  let base = "";
  const tmp = tempDir(prefix);
  const running: CliRun[] = [];
  before(async () => {
    relay = new Relay({ ice: { loopbackOnly: true, includeLoopback: false } });
    base = await relay.listen("127.0.0.1", 0);
  });
  after(async () => {
    for (const r of running)
      if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill("SIGKILL");
    await relay?.close();
    tmp.remove();
  });
  return {
    get base() {
      return base;
    },
    dir: tmp.dir,
    start(args, timeoutMs = 240_000) {
      const r = startCli(args, { env, timeoutMs });
      running.push(r);
      return r;
    },
  };
}

/**
 * `run FILE --agents 2` and two agents (alpha, beta: one thread each, their own --out under
 * `tag`) on 127.0.0.1 with `common` flags on every side; every process exits 0; the report.
 */
export async function runOnTwoAgents(
  fx: AgentsFixture,
  file: string,
  out: string,
  common: string[],
  tag: string,
): Promise<Report> {
  const port = await freePort();
  const flags = ["--coordinator-listen", `127.0.0.1:${port}`, "--agent-wait", "30", ...common];
  const c = fx.start(["run", file, "--agents", "2", ...flags, "--out", out, "--no-html"]);
  await c.waitForStderr("waiting up to");
  const agents = ["alpha", "beta"].map((name) =>
    fx.start([
      "agent",
      "--coordinator",
      `127.0.0.1:${port}`,
      ...["--workers", "1", ...common, "--name", name, "--out", join(fx.dir, `${name}-${tag}`)],
    ]),
  );
  const [rc, ...ra] = await Promise.all([c.done, ...agents.map((a) => a.done)]);
  assert.equal(rc.code, 0, rc.stderr);
  for (const res of ra) assert.equal(res.code, 0, res.stderr);
  return readReportPair(out).report as unknown as Report;
}
