// bench:calibration-links — joins, join time and NACK messages of our viewers beside libwebrtc's
// (M106, @roamhq/wrtc) on the same impaired link of the built-in relay (bench/libwebrtc-links.ts:
// 5 % and 10 % random loss, 20 ms ± 5 ms reordering jitter, the same with 1 % loss), every datagram
// of every leg impaired. Each round is a fresh relay with its own seed; counts add up over rounds
// (issue 39's target: at least 100 joins per link). Prints one table per link and one summary
// table. Flags: --seconds S (15), --libwebrtc N (2), --viewers N (4), --rounds R (1), --links i,j
// (all), --seed N (1: round r uses seed N + r).
import { parseArgs } from "node:util";
import { libwebrtcMissing } from "./libwebrtc.ts";
import { JOIN_TIMEOUT_S, LINKS, type LinkRound, linkRound, type Receiver } from "./libwebrtc-links.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "15" },
    libwebrtc: { type: "string", default: "2" },
    viewers: { type: "string", default: "4" },
    rounds: { type: "string", default: "1" },
    links: { type: "string", default: "" },
    seed: { type: "string", default: "1" },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const chosen = values.links === "" ? LINKS.map((_, i) => i) : values.links.split(",").map(Number);

const missing = libwebrtcMissing();
if (missing !== null) {
  console.error(`bench:calibration-links: ${missing}`);
  process.exit(1);
}

/** Nearest-rank percentile (docs/definitions.md#summaries-and-percentiles). */
function pct(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(Math.max(Math.ceil((p / 100) * s.length), 1), s.length) - 1]!;
}
const f0 = (x: number): string => (Number.isFinite(x) ? x.toFixed(0) : "—");

function summary(kind: string, rs: Receiver[]): string {
  const joined = rs.filter((r) => r.joined);
  const join = joined.flatMap((r) => (r.joinMs !== undefined ? [r.joinMs] : []));
  const nacks = joined.map((r) => r.nackMessages ?? 0);
  const failures = new Map<string, number>();
  for (const r of rs)
    if (!r.joined) failures.set(r.failure ?? "?", (failures.get(r.failure ?? "?") ?? 0) + 1);
  const why = [...failures].map(([k, n]) => `${k} ×${n}`).join(", ") || "—";
  const nackText =
    nacks.length === 0 ? "—" : `${f0(pct(nacks, 50))} (${f0(Math.min(...nacks))}–${f0(Math.max(...nacks))})`;
  const fb = joined.flatMap((r) => (r.feedbackPerS !== undefined ? [r.feedbackPerS] : []));
  const fbText =
    fb.length === 0
      ? "unavailable: libwebrtc's getStats does not count it (bench/feedback-rate.ts reads it at the relay)"
      : `${pct(fb, 50).toFixed(1)} (${Math.min(...fb).toFixed(1)}–${Math.max(...fb).toFixed(1)})`;
  return `| ${kind} | ${joined.length}/${rs.length} | ${f0(pct(join, 50))} | ${f0(pct(join, 95))} | ${nackText} | ${fbText} | ${why} |`;
}

const HEAD =
  "| receiver | joined / attempted | join p50 ms | join p95 ms | NACK messages per joined viewer, median (range) | transport feedback messages / s per joined viewer, median (range) | failures |\n|---|---:|---:|---:|---|---|---|";

for (const i of chosen) {
  const link = LINKS[i];
  if (link === undefined) continue;
  const done: LinkRound[] = [];
  for (let r = 0; r < rounds; r++) {
    const round = await linkRound(
      link,
      Number(values.seed) + r,
      seconds,
      Number(values.libwebrtc),
      Number(values.viewers),
    );
    done.push(round);
    if (round.ours.length === 0)
      console.error(
        `${link.name}, round ${r + 1}: no report from view (exit ${round.viewCode}): ${round.viewStderr.slice(-300)}`,
      );
  }
  const c = done.map((d) => d.linkCounts);
  const sum = (k: "datagrams" | "lost" | "delayed" | "stun" | "dtls" | "lostStun" | "lostDtls") =>
    c.reduce((a, x) => a + x[k], 0);
  console.log(`\n## ${link.name}: ${rounds} round(s) of ${seconds} s, join timeout ${JOIN_TIMEOUT_S} s`);
  console.log(
    `relay link, every leg: ${sum("datagrams")} datagrams (${sum("stun")} STUN, ${sum("dtls")} DTLS), ${sum("lost")} lost (${sum("lostStun")} STUN, ${sum("lostDtls")} DTLS), ${sum("delayed")} delayed\n`,
  );
  console.log(HEAD);
  console.log(
    summary(
      "libwebrtc M106",
      done.flatMap((d) => d.libwebrtc),
    ),
  );
  console.log(
    summary(
      "whipbench",
      done.flatMap((d) => d.ours),
    ),
  );
}
