// The receive paths a benchmark takes by name: the scenario's receivePath values, and
// `arena-own` / `arena-shared`, the arena path with viewerSockets own / shared.
import { RECEIVE_PATHS, type ReceivePath, type ViewerSockets } from "../src/core/scenario/defaults.ts";

/** The scenario keys a label stands for; throws on an unknown one (`flag` names the option). */
export function pathLabel(
  label: string,
  flag: string,
): { receivePath: ReceivePath; viewerSockets?: ViewerSockets } {
  if (label === "arena-own") return { receivePath: "arena", viewerSockets: "own" };
  if (label === "arena-shared") return { receivePath: "arena", viewerSockets: "shared" };
  if (!RECEIVE_PATHS.includes(label as ReceivePath))
    throw new Error(`${flag}: unknown receive path ${label}`);
  return { receivePath: label as ReceivePath };
}
