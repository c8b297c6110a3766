// The capacity report's method lines: how the search ran and what each step's figures are.

import { fmtG } from "../go-compat/fmt.ts";
import type { CapacitySpec } from "./types.ts";

export function capacityMethod(spec: CapacitySpec): string[] {
  return [
    `search: from ${spec.start} viewers, multiply by ${fmtG(spec.growth)} while every threshold passes (capped at ${spec.max}); then bisect between the last passing and the first failing count until they are at most ${spec.resolution} apart; maxViewers is the last passing count`,
    "the publisher connects once and streams across every step; each step runs fresh viewers that join over the scenario's ramp and leave (WHEP DELETE) at the step's end, so every figure of a step comes from that step's viewers only, exactly as a run's report (the step's own report is kept beside this one)",
    `each step holds ${fmtG(spec.stepSeconds)} s after its ramp; a viewer's first ${fmtG(spec.settleSeconds)} s of delay samples are left out (excludeFirstSeconds); loss, jitter and joins cover each viewer's whole life in the step; the server's resources cover the window from the ramp's end plus the settle to the step's end`,
    "a step whose client was near its own ceiling (client.ceiling) is not a server verdict: a client-bound start stops the search with limitedBy client; a client-bound step above a passing one caps the search, which bisects below it and reports the server's knee when a failing step lies below the cap, else limitedBy client with the last passing count; a step with no verdict (the no-verdict rule) stops it with limitedBy no-verdict",
    "thresholds are judged on each step's exact pooled figures; a threshold with abortOnFail ends its step early once it fails live (after its delayAbortEval), and that step is judged on its figures up to the stop with that threshold failed; the linear-sweep figure counts the steps of a sweep from start in steps of resolution up to the same first failing (or last) count",
  ];
}
