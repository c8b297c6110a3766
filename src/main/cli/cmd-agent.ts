// The many-host flags (docs/definitions.md#many-hosts): `run --agents N` and its coordinator
// options, and the `agent` command.
import type { Command } from "commander";
import { errorMessage, UsageError } from "../../core/errors.ts";
import { type AgentFlags, agentCommand } from "../agents/agent.ts";
import { CONNECT_RETRY_MS, CONNECT_WAIT_MS } from "../agents/agent-io.ts";
import { DEFAULT_COORDINATOR_LISTEN } from "../agents/coordinator.ts";
import { intFlag, listenFlag, parseHostPort } from "./flags.ts";
import type { SetCode } from "./options.ts";

const COORDINATOR_FORM = "HOST:PORT, tcp://HOST:PORT or http://HOST:PORT";

/**
 * The agent's --coordinator: `HOST:PORT`, or the same behind `tcp://` or `http://` (the URL form
 * people type; the wire is plain TCP either way) with at most a trailing `/`. Anything else — a
 * path, a query, userinfo, another scheme, a host that cannot be a name or an address — is a
 * usage error before anything is dialled: retrying it could never reach a coordinator. The
 * message names the flag and the forms, never the value (it may hold a token).
 */
export function coordinatorFlag(text: string): { host: string; port: number } {
  const bad = (why: string): never => {
    throw new UsageError(
      `--coordinator: ${why}; want ${COORDINATOR_FORM} (the coordinator's --coordinator-listen)`,
    );
  };
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text);
  if (scheme !== null && !["tcp", "http"].includes((scheme[1] ?? "").toLowerCase())) {
    bad(`the scheme ${(scheme[1] ?? "").toLowerCase()}:// is not one the coordinator speaks`);
  }
  const rest = (scheme === null ? text : text.slice(scheme[0].length)).replace(/\/$/, "");
  if (/[/?#@\s]/.test(rest)) bad("an address has no path, query, user or spaces");
  let hp: { host: string; port: number };
  try {
    hp = parseHostPort(rest, true);
  } catch (err) {
    const why = errorMessage(err);
    return bad(why === "want HOST:PORT" ? "the port is missing" : why);
  }
  const name =
    /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
  const ipv6 = /^[0-9A-Fa-f:.]+$/.test(hp.host) && hp.host.includes(":") && rest.startsWith("[");
  if (!name.test(hp.host) && !ipv6) bad("the host is not a host name or an IP address");
  return hp;
}

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

export function addAgent(p: Command, setCode: SetCode): void {
  p.command("agent")
    .description("run viewers for a coordinator (`whipbench run --agents N`) on another host")
    .option(
      "--coordinator <addr>",
      `the coordinator's --coordinator-listen, ${COORDINATOR_FORM} (required); tried every ${CONNECT_RETRY_MS / 1000} s for up to ${CONNECT_WAIT_MS / 1000} s (one line on stderr at the first miss), then exit 1`,
      coordinatorFlag,
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
    .action(async (opts: Omit<AgentFlags, "coordinator"> & { coordinator?: AgentFlags["coordinator"] }) => {
      const coordinator = opts.coordinator;
      if (coordinator === undefined) throw new UsageError(`--coordinator is required (${COORDINATOR_FORM})`);
      setCode(await agentCommand({ ...opts, coordinator }));
    });
}
