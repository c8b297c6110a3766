// What `whipbench run SCENARIO.json --agents N` does (docs/definitions.md#many-hosts): this process owns the
// publisher, the send log, the clock and the schedule; N agents on other hosts run the viewers.
// It waits for them (naming who arrived when not all did), runs through the agents engine and
// writes one report in the single-host format with client.hosts[].
import { loadSimulcastClips } from "../../core/clip/simulcast.ts";
import { scenarioClip } from "../../core/clip/temporal.ts";
import { takeWallAnchor, wallOf } from "../../core/clock/clock.ts";
import { type ClipIdentity, clipIdentity, createHasher } from "../../core/delay/fingerprint.ts";
import { errorMessage, RunError, UsageError } from "../../core/errors.ts";
import type { Scenario } from "../../core/scenario/types.ts";
import { emptyRecord } from "../../core/viewer-record.ts";
import { stderrLogger } from "../observe/log.ts";
import { prepareOutputDir, writeErrorText } from "../output/write-report.ts";
import { endWithError } from "../process/exit.ts";
import { tokenFromEnv } from "../process/tokens.ts";
import { version } from "../process/version.ts";
import type { Engine } from "../run/engine.ts";
import { type RunAndReportOptions, runAndReport } from "../run/run-and-report.ts";
import { type RunHereFlags, runOutputs, scenarioFromFile } from "../run/run-command.ts";
import { readScenarioFile } from "../run/run-inputs.ts";
import { agentsEngine } from "./agents-engine.ts";
import { AgentHub } from "./hub.ts";

export interface CoordinatorFlags {
  agents: number;
  listen: { host: string; port: number };
  tokenEnv?: string | undefined;
  /** how long to wait for the agents, ms */
  agentWaitMs: number;
}

export const DEFAULT_COORDINATOR_LISTEN = { host: "127.0.0.1", port: 7400 };

type RunOutputs = Omit<RunAndReportOptions, "command" | "scenario" | "engine">;

/** `run SCENARIO.json --agents N`: the scenario file's run, its viewers on the agents. */
export async function runOnAgents(
  file: string | undefined,
  flags: RunHereFlags,
  c: CoordinatorFlags,
): Promise<number> {
  const log = stderrLogger(flags.quiet ?? false);
  if (file === undefined) throw new UsageError("--agents needs a scenario file");
  if (flags.workers !== undefined)
    throw new UsageError("--workers: with --agents each agent has its own --workers");
  const s = scenarioFromFile(await readScenarioFile(file), flags, log);
  // the agents receive start instants only (docs/definitions.md#churn)
  if (s.churn !== undefined) throw new UsageError("scenario: churn: not supported with --agents");
  if (s.workers !== undefined) {
    log.line("scenario key workers ignored: with --agents each agent has its own --workers");
    delete s.workers;
  }
  return coordinate(s, runOutputs(flags, log), c);
}

export async function coordinate(s: Scenario, out: RunOutputs, c: CoordinatorFlags): Promise<number> {
  if (s.whip === undefined || s.whip === "") {
    throw new UsageError("the scenario needs whip: the coordinator publishes", "run --agents");
  }
  const token = tokenFromEnv("--token-env", c.tokenEnv, "run");
  const log = out.log;
  if (token === undefined) log.line("note: no --token-env: any agent that reaches the control port may join");
  // an output directory that cannot be written fails now, not after the agents came
  try {
    await prepareOutputDir(out.out);
  } catch (err) {
    return endWithError(new RunError(`--out ${out.out}: ${writeErrorText(err)}`, { cause: err }), "run");
  }
  const identity = await publishedIdentity(s);
  const anchor = takeWallAnchor();
  const hub = new AgentHub({ ...c.listen, token, version: version(), identity, anchor, log });
  try {
    try {
      await hub.listen();
    } catch (err) {
      return endWithError(new RunError(`--coordinator-listen: ${errorMessage(err)}`, { cause: err }), "run");
    }
    log.line(`waiting up to ${Math.round(c.agentWaitMs / 1000)} s for ${c.agents} agents`);
    const all = await hub.waitFor(c.agents, c.agentWaitMs);
    if (!all) return await missing(s, out, hub, c);
    const engine = agentsEngine({
      links: hub.live(),
      scenario: s,
      anchor,
      log,
      hubRejected: () => hub.malformedFrames,
    });
    const sendLog = hub.sendLog;
    const code = await runAndReport({
      ...out,
      command: "run",
      scenario: s,
      engine,
      // the publisher's stamps, the send log and the clock exchange read one wall clock
      anchor,
      onFrameSent: (k, t0, i, kernel) => sendLog?.record(k, wallOf(anchor, t0), i, kernel),
      finishInput: (input) => engine.finishInput(input),
    });
    if (hub.malformedFrames > 0)
      log.line(`${hub.malformedFrames} malformed agent messages closed their connection`);
    return code;
  } finally {
    await hub.close();
  }
}

/**
 * The identity of what the coordinator publishes, as its runner builds it: with simulcast the
 * layers' combined table and their number (docs/definitions.md#simulcast-layers).
 */
async function publishedIdentity(s: Scenario): Promise<ClipIdentity> {
  const codec = s.codec === "h264" ? "h264" : "vp8";
  const layers = s.simulcast !== undefined ? loadSimulcastClips(codec, s.simulcast) : undefined;
  const clip = layers?.combined ?? scenarioClip(codec, s.clip);
  const identity = clipIdentity(await createHasher(), clip);
  return layers !== undefined ? { ...identity, layers: layers.layers.length } : identity;
}

/**
 * The missing agents' names when the arrived ones are numbered as an indexed job numbers them
 * (`prefix-0` … `prefix-(N−1)`, one prefix); otherwise none can be named.
 */
export function missingNames(arrived: readonly string[], n: number): string[] {
  const parsed = arrived.map((a) => /^(.*)-(\d+)$/.exec(a));
  const prefix = parsed[0]?.[1];
  if (prefix === undefined || !parsed.every((m) => m !== null && m[1] === prefix && Number(m[2]) < n))
    return [];
  const seen = new Set(parsed.map((m) => Number(m?.[2])));
  const out: string[] = [];
  for (let i = 0; i < n && out.length < 20; i++) if (!seen.has(i)) out.push(`${prefix}-${i}`);
  return out;
}

/** Not all agents came: the arrived ones are sent away and the report says who was missing. */
async function missing(s: Scenario, out: RunOutputs, hub: AgentHub, c: CoordinatorFlags): Promise<number> {
  const names = hub.live().map((a) => a.name);
  const absent = missingNames(names, c.agents);
  const why = `only ${names.length} of ${c.agents} agents connected within ${Math.round(c.agentWaitMs / 1000)} s${names.length > 0 ? ` (${names.join(", ")})` : ""}; ${c.agents - names.length} missing${absent.length > 0 ? ` (${absent.join(", ")})` : ""}`;
  process.stderr.write(`whipbench run: ${why}; no viewer runs\n`);
  for (const a of hub.live()) a.conn.send({ type: "cancel", reason: why });
  const engine: Engine = {
    workers: 1,
    async run(tasks) {
      const records = tasks.flatMap((t) =>
        t.viewers.map((v) => {
          const r = emptyRecord(v.id, t.sendLog !== null);
          r.errorKind = "agent_missing";
          r.error = why;
          return r;
        }),
      );
      return { records, profiles: [] };
    },
  };
  return runAndReport({ ...out, command: "run", scenario: s, engine });
}
