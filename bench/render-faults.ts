// The render model (docs/definitions.md#viewer-experience) on the built-in relay's fault patterns:
// for each pattern a `run` of V viewers (publisher and viewers in this process, the relay in it
// too), each viewer's frames shown and not decodable, freezes, frozen seconds and share, longest
// freeze, PLIs, loss, stalls and NACKs — the figures to hold beside a real receiver's
// (libwebrtc's getStats freezeCount / totalFreezesDuration) on the same patterns.
//
//   npm run bench:render                       # 3 viewers, 30 s hold, the four patterns
//   node bench/render-faults.ts --viewers 2 --hold 10
import { parseArgs } from "node:util";
import { buildReport } from "../src/core/report/build.ts";
import { normaliseScenario, validateScenario } from "../src/core/scenario-file/scenario.ts";
import { memoryLogger } from "../src/main/observe/log.ts";
import { Relay, type RelayOptions } from "../src/main/relay/relay.ts";
import { inThreadEngine } from "../src/main/run/engine.ts";
import { run } from "../src/main/run/runner.ts";

const { values: args } = parseArgs({
  options: { viewers: { type: "string", default: "3" }, hold: { type: "string", default: "30" } },
});
const PATTERNS: Array<[string, Partial<RelayOptions>]> = [
  ["none", {}],
  ["--drop-every 300", { dropEvery: 300 }],
  ["--drop-every 100", { dropEvery: 100 }],
  ["--lose-every 50", { loseEvery: 50 }],
];

async function pattern(name: string, faults: Partial<RelayOptions>): Promise<void> {
  const relay = new Relay({ ice: { loopbackOnly: true, includeLoopback: false }, ...faults });
  const base = await relay.listen();
  try {
    const s = normaliseScenario({
      whip: `${base}/r/whip`,
      whep: `${base}/r/whep`,
      viewers: Number(args.viewers),
      rampSeconds: 1,
      holdSeconds: Number(args.hold),
      excludeFirstSeconds: 1,
      loopbackOnly: true,
    });
    validateScenario(s);
    const input = await run({
      command: "run",
      scenario: s,
      bearer: undefined,
      engine: inThreadEngine(),
      log: memoryLogger(),
      interrupt: new AbortController().signal,
    });
    for (const v of buildReport(input).viewers ?? []) {
      const x = v.render;
      const share = x.measuredMs > 0 ? ((100 * x.frozenMs) / x.measuredMs).toFixed(1) : "n/a";
      console.log(
        `| ${name} | ${v.id} | ${x.framesShown} | ${x.framesNotDecodable} | ${x.freezes} | ` +
          `${(x.frozenMs / 1000).toFixed(2)} | ${share} % | ${x.longestFreezeMs} | ${x.plisSent} | ` +
          `${v.rtp.lossPercent === null ? "—" : `${v.rtp.lossPercent.toFixed(3)} %`} | ${v.rtp.stalls} | ${v.nacksSent} |`,
      );
    }
  } finally {
    await relay.close();
  }
}

console.log(
  "| relay fault | viewer | frames shown | not decodable | freezes | frozen s | frozen share | longest ms | PLIs | loss | stalls | NACKs |",
);
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const [name, faults] of PATTERNS) await pattern(name, faults);
process.exit(0);
