// `run --agents N`'s coordinator flags (docs/definitions.md#many-hosts): where the agents
// connect, the shared token's variable, how long to wait; none of them without --agents.
import type { Command } from "commander";
import { UsageError } from "../../core/errors.ts";
import { type CoordinatorFlags, DEFAULT_COORDINATOR_LISTEN } from "../agents/coordinator.ts";
import { intFlag, listenFlag } from "./flags.ts";

export function addCoordinatorOptions(c: Command): Command {
  return c
    .option(
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

/**
 * The coordinator's settings, or null for a run on this host; a coordinator flag without --agents
 * is a usage error.
 */
export function coordinatorFlags(f: CoordinatorRunFlags): CoordinatorFlags | null {
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
