// The many-host flags (docs/definitions.md#many-hosts): `run --agents N` and its coordinator
// options, and the `agent` command.
import type { Command } from "commander";
import { type AgentFlags, agentCommand, coordinatorAddress } from "../agents/agent.ts";
import { DEFAULT_COORDINATOR_LISTEN } from "../agents/coordinator.ts";
import { hostPortFlag, intFlag, listenFlag, UsageError } from "./flags.ts";

export function addCoordinatorOptions(c: Command): void {
  c.option(
    "--agents <n>",
    "run the viewers on N agents (`whipbench agent`) instead of here",
    intFlag("--agents", 1, 1000),
  )
    .option(
      "--coordinator-listen <addr>",
      "with --agents: where agents connect (TCP), the clock exchange (UDP, same port) and the send log (TCP, port+1); default 127.0.0.1:7400",
      listenFlag("--coordinator-listen"),
    )
    .option(
      "--token-env <name>",
      "with --agents: the shared token agents must present, from this environment variable",
    )
    .option(
      "--agent-wait <seconds>",
      "with --agents: how long to wait for them (default 60)",
      intFlag("--agent-wait", 1, 86_400),
    );
}

export interface CoordinatorRunFlags {
  agents?: number;
  coordinatorListen?: { host: string; port: number };
  tokenEnv?: string;
  agentWait?: number;
}

/** The coordinator's settings, or null for a run on this host; a coordinator flag without --agents is a usage error. */
export function coordinatorFlags(f: CoordinatorRunFlags) {
  if (f.agents === undefined) {
    const stray = [
      ["--coordinator-listen", f.coordinatorListen],
      ["--token-env", f.tokenEnv],
      ["--agent-wait", f.agentWait],
    ].find(([, v]) => v !== undefined);
    if (stray) throw new UsageError(`${String(stray[0])} needs --agents`);
    return null;
  }
  const listen = f.coordinatorListen ?? DEFAULT_COORDINATOR_LISTEN;
  if (listen.port >= 65535) throw new UsageError("--coordinator-listen: the port must leave room for port+1");
  return { agents: f.agents, listen, tokenEnv: f.tokenEnv, agentWaitMs: (f.agentWait ?? 60) * 1000 };
}

export function addAgent(p: Command, setCode: (code: number) => void): void {
  p.command("agent")
    .description("run viewers for a coordinator (`whipbench run --agents N`) on another host")
    .option(
      "--coordinator <addr>",
      "the coordinator's --coordinator-listen, HOST:PORT or tcp://HOST:PORT (required)",
    )
    .option("--workers <n>", "worker threads for this agent's viewers", intFlag("--workers", 1, 256))
    .option("--token-env <name>", "environment variable holding the coordinator's shared token")
    .option(
      "--bearer-env <name>",
      "environment variable holding the WHEP bearer token of this agent's viewers",
    )
    .option("--name <name>", "this agent's name in the report (default: the hostname)")
    .option("--out <dir>", "where a local report goes when the coordinator is lost", ".")
    .option("--quiet", "no progress lines on stderr")
    .action(async (opts: Omit<AgentFlags, "coordinator"> & { coordinator?: string }) => {
      if (!opts.coordinator) throw new UsageError("--coordinator is required");
      const coordinator = hostPortFlag("--coordinator", true)(coordinatorAddress(opts.coordinator));
      setCode(await agentCommand({ ...opts, coordinator }));
    });
}
