// Handshakes over impaired links: werift pairs on 127.0.0.1 (the offerer DTLS server as our viewers
// are, the answerer DTLS client as the built-in relay is) through bench/impaired-link.ts's seeded
// link on every datagram of both directions, with werift's own DTLS handshake and with the mends of
// src/net/werift/dtls-order.ts and dtls-flights.ts, interleaved block by block over the same seeded
// links. Per link and variant: pairs whose both sides connected within the timeout, the time from
// the offer to both connected (p50, p95, nearest rank), and the pairs whose ICE never connected.
//
//   npm run bench:handshake -- [--pairs 100] [--block 10] [--timeout-ms 10000] [--seed 1]
import { parseArgs } from "node:util";
import { fmtFixed } from "../src/core/go-compat/fmt.ts";
import { mends } from "../src/net/werift/dtls-order.ts";
import { abandonDtls, patchWerift } from "../src/net/werift/patches.ts";
import { connectedWithin, type Impairment, impairedPair } from "./impaired-link.ts";

const { values: args } = parseArgs({
  options: {
    pairs: { type: "string", default: "100" },
    block: { type: "string", default: "10" },
    "timeout-ms": { type: "string", default: "10000" },
    seed: { type: "string", default: "1" },
  },
});
const PAIRS = Number(args.pairs);
const BLOCK = Number(args.block);
const TIMEOUT_MS = Number(args["timeout-ms"]);
const SEED = Number(args.seed);

const LINKS: { name: string; link: Impairment }[] = [
  { name: "20 ms ± 5 ms normal jitter (reorders)", link: { delayMs: 20, jitterMs: 5 } },
  { name: "5 % random loss", link: { loss: 0.05 } },
  { name: "10 % random loss", link: { loss: 0.1 } },
];
const VARIANTS = [
  { name: "werift's own", on: false },
  { name: "mended", on: true },
] as const;

interface Attempt {
  joinedMs: number | null;
  iceConnected: boolean;
}

async function attempt(link: Impairment, index: number): Promise<Attempt> {
  const t0 = performance.now();
  const p = await impairedPair(link, link, SEED, index);
  try {
    const [a, b] = await Promise.all([
      connectedWithin(p.offerer, TIMEOUT_MS),
      connectedWithin(p.answerer, TIMEOUT_MS),
    ]);
    const iceConnected = ["connected", "completed"].includes(p.offerer.iceConnectionState);
    return { joinedMs: a !== null && b !== null ? performance.now() - t0 : null, iceConnected };
  } finally {
    for (const pc of [p.offerer, p.answerer]) {
      abandonDtls(pc);
      await pc.close().catch(() => {});
    }
  }
}

/** Nearest-rank percentile of sorted values. */
function rank(sorted: number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

patchWerift();
console.log(
  `handshakes per link and variant: ${PAIRS} (blocks of ${BLOCK} at once), timeout ${TIMEOUT_MS} ms, seed ${SEED}`,
);
console.log(
  "| link (both directions) | handshake | joined | offer → both connected p50 / p95 (ms) | ICE not connected |",
);
console.log("|---|---|---|---|---|");
for (const { name, link } of LINKS) {
  const results = new Map<string, Attempt[]>(VARIANTS.map((v) => [v.name, []]));
  for (let start = 0; start < PAIRS; start += BLOCK) {
    for (const v of VARIANTS) {
      mends.on = v.on;
      const n = Math.min(BLOCK, PAIRS - start);
      const block = await Promise.all(Array.from({ length: n }, (_, i) => attempt(link, start + i)));
      results.get(v.name)!.push(...block);
    }
  }
  for (const v of VARIANTS) {
    const all = results.get(v.name)!;
    const times = all.flatMap((a) => (a.joinedMs === null ? [] : [a.joinedMs])).sort((a, b) => a - b);
    const pct =
      times.length > 0 ? `${fmtFixed(rank(times, 0.5), 0)} / ${fmtFixed(rank(times, 0.95), 0)}` : "–";
    const noIce = all.filter((a) => !a.iceConnected).length;
    console.log(`| ${name} | ${v.name} | ${times.length}/${all.length} | ${pct} | ${noIce} |`);
  }
}
mends.on = true;
process.exit(0);
