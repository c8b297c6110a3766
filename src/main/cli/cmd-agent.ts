// `whipbench agent` (docs/definitions.md#many-hosts): its flags; the agent is agents/'s
// (`run --agents N`'s coordinator flags are coordinator-flags.ts's).
import type { Command } from "commander";
import { errorMessage, UsageError } from "../../core/errors.ts";
import { type AgentFlags, agentCommand } from "../agents/agent.ts";
import { CONNECT_RETRY_MS, CONNECT_WAIT_MS } from "../agents/agent-io.ts";
import { intFlag, parseHostPort } from "./flags.ts";
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
