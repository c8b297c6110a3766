// A many-host run's report (docs/definitions.md#many-hosts): client.hosts[] from each agent's own
// figures, and a run whose comparability follows the worst host — the clock block is the
// agent with the largest clock uncertainty (or the first that has none), the ceiling is near
// when any host was.
import type { ReportInput } from "../../core/report/input.ts";
import type { ClockBlock, HostReport } from "../../core/report/types.ts";
import type { AgentLink } from "./hub.ts";

/** What an agent sends about itself at the end. */
export interface AgentFigures {
  /** absent where the process's CPU could not be read */
  cpuSeconds?: number;
  ceiling: { nearCeiling: boolean; evidence: string[] };
  clock: {
    method: "exchange" | "none";
    offsetMs?: number;
    uncertaintyMs?: number;
    reason?: string;
    stepDetected: boolean;
  };
}

const num = (v: unknown) => typeof v === "number" && Number.isFinite(v);
const optNum = (v: unknown) => v === undefined || num(v);
const short = (v: unknown) => typeof v === "string" && v.length <= 500;

export function figuresOk(v: unknown): v is AgentFigures {
  if (typeof v !== "object" || v === null) return false;
  const f = v as Partial<AgentFigures>;
  const c = f.ceiling;
  const k = f.clock;
  return (
    optNum(f.cpuSeconds) &&
    typeof c === "object" &&
    c !== null &&
    typeof c.nearCeiling === "boolean" &&
    Array.isArray(c.evidence) &&
    c.evidence.length <= 64 &&
    c.evidence.every(short) &&
    typeof k === "object" &&
    k !== null &&
    (k.method === "exchange" || k.method === "none") &&
    optNum(k.offsetMs) &&
    optNum(k.uncertaintyMs) &&
    (k.reason === undefined || short(k.reason)) &&
    typeof k.stepDetected === "boolean"
  );
}

/** This agent's own figures from the report input of its share. */
export function agentFigures(input: ReportInput): AgentFigures {
  const c = input.clock;
  const clock: AgentFigures["clock"] = {
    method: c.method === "exchange" ? "exchange" : "none",
    stepDetected: c.stepDetected,
  };
  if (c.offsetMs !== undefined) clock.offsetMs = c.offsetMs;
  if (c.uncertaintyMs !== undefined) clock.uncertaintyMs = c.uncertaintyMs;
  if (c.reason !== undefined) clock.reason = c.reason;
  const cpu = input.resources?.cpuSeconds;
  return {
    ...(cpu !== undefined ? { cpuSeconds: cpu } : {}),
    ceiling: { nearCeiling: input.ceiling?.nearCeiling ?? false, evidence: input.ceiling?.evidence ?? [] },
    clock,
  };
}

/** The agent's client.hosts[] entry: its figures, or only why it was lost. */
export function hostOf(link: AgentLink, viewers: number, f: AgentFigures | null): HostReport {
  const base = { name: link.name, viewers, workers: link.workers };
  if (f === null) {
    return {
      ...base,
      lost: link.lost ?? "it sent no final figures",
      clock: { method: "none", reason: "the agent was lost" },
    };
  }
  const clock: HostReport["clock"] = { method: f.clock.method };
  if (f.clock.offsetMs !== undefined) clock.offsetMs = f.clock.offsetMs;
  if (f.clock.uncertaintyMs !== undefined) clock.uncertaintyMs = f.clock.uncertaintyMs;
  if (f.clock.reason !== undefined) clock.reason = f.clock.reason;
  return {
    ...base,
    ...(f.cpuSeconds !== undefined ? { cpuSeconds: f.cpuSeconds } : {}),
    ceiling: { nearCeiling: f.ceiling.nearCeiling, evidence: f.ceiling.evidence },
    clock,
  };
}

/**
 * The run's clock: the worst finished host's. A host without a measured clock makes the run's
 * clock unmeasured, naming it; with no finished host at all there is no figure to qualify.
 */
export function mergedClock(
  hosts: readonly HostReport[],
  steps: readonly boolean[],
  own: ClockBlock,
): ClockBlock {
  const stepDetected = own.stepDetected || steps.some((s) => s);
  const ran = hosts.filter((h) => h.lost === undefined);
  const unmeasured = ran.find((h) => h.clock.method !== "exchange" || h.clock.uncertaintyMs === undefined);
  if (ran.length === 0) return { method: "none", reason: "no agent finished", stepDetected };
  if (unmeasured) {
    const why = unmeasured.clock.reason ?? "its clock was not measured";
    return { method: "none", reason: `agent ${unmeasured.name}: ${why}`, stepDetected };
  }
  let worst = ran[0] as HostReport;
  for (const h of ran) if ((h.clock.uncertaintyMs ?? 0) > (worst.clock.uncertaintyMs ?? 0)) worst = h;
  const block: ClockBlock = { method: "exchange", stepDetected };
  if (worst.clock.offsetMs !== undefined) block.offsetMs = worst.clock.offsetMs;
  if (worst.clock.uncertaintyMs !== undefined) block.uncertaintyMs = worst.clock.uncertaintyMs;
  return block;
}

/** The coordinator's report input with the hosts, the worst host's clock and every host's ceiling. */
export function finishInput(
  input: ReportInput,
  hosts: HostReport[],
  rejected: number,
  steps: readonly boolean[] = [],
): ReportInput {
  const out: ReportInput = {
    ...input,
    topology: "split",
    clock: mergedClock(hosts, steps, input.clock),
    hosts,
    agentMessagesRejected: rejected,
  };
  if (out.resources) out.resources = { ...out.resources, workers: hosts.reduce((n, h) => n + h.workers, 0) };
  // the agents' threads are judged on their own hosts (with their UDP drops): their verdicts
  // replace the coordinator's reading of the same threads
  if (input.ceiling) {
    const own = (input.ceiling.evidence ?? []).filter((e) => !e.startsWith("worker "));
    const evidence = [
      ...own,
      ...hosts.flatMap((h) => (h.ceiling?.evidence ?? []).map((e) => `host ${h.name}: ${e}`)),
    ];
    out.ceiling = { ...input.ceiling, nearCeiling: evidence.length > 0, evidence };
  }
  return out;
}
