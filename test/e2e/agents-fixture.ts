// What the agents e2e tests share: the built-in relay on 127.0.0.1 for the file's tests, a
// temporary directory, and CLI processes started through it, every one killed (by its own PID)
// if still running when the file's tests end.
import { after, before } from "node:test";
import { Relay } from "../../src/main/relay/relay.ts";
import { type CliRun, startCli, tempDir } from "./cli-harness.ts";

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
