// CPU per connection setup: two werift peers in this thread, on 127.0.0.1, from the offer to
// both sides connected (SDP, ICE, DTLS with its key exchange, SRTP keys), then closed — what a
// viewer and the server's leg cost to set up, the same on both sides. Two variants, interleaved
// round by round: werift's own X25519 (tweetnacl, JavaScript) and node:crypto's, which
// patchWerift() installs (src/net/werift/x25519.ts). The DTLS key exchange is the part that differs.
//
//   npm run bench:setup -- [--pairs 100] [--rounds 3]
import { parseArgs } from "node:util";
import nacl from "tweetnacl";
import { fmtFixed } from "../src/core/go-compat/fmt.ts";
import { patchWerift } from "../src/net/werift/patches.ts";
import { median } from "./median.ts";
import { connectedPair } from "./peer-pair.ts";

const { values: args } = parseArgs({
  options: { pairs: { type: "string", default: "100" }, rounds: { type: "string", default: "3" } },
});
const PAIRS = Number(args.pairs);
const ROUNDS = Number(args.rounds);

// tweetnacl's functions as loaded, then node:crypto's as patchWerift installs them
const lib = nacl as unknown as { box: { keyPair: unknown }; scalarMult: unknown };
const js = { keyPair: lib.box.keyPair, scalarMult: lib.scalarMult };
patchWerift();
const native = { keyPair: lib.box.keyPair, scalarMult: lib.scalarMult };
if (native.scalarMult === js.scalarMult) throw new Error("patchWerift did not install node:crypto's X25519");

let exchanges = 0;
function use(fns: { keyPair: unknown; scalarMult: unknown }): void {
  const scalarMult = fns.scalarMult as (n: Uint8Array, p: Uint8Array) => Uint8Array;
  lib.box.keyPair = fns.keyPair;
  lib.scalarMult = Object.assign((n: Uint8Array, p: Uint8Array) => {
    exchanges++;
    return scalarMult(n, p);
  }, scalarMult);
}

async function setUpAndClose(): Promise<void> {
  const { server, viewer } = await connectedPair();
  await server.close();
  await viewer.close();
}

const variants = [
  { name: "werift's X25519 (tweetnacl)", fns: js },
  { name: "node:crypto X25519", fns: native },
] as const;
const cpuMs = new Map<string, number[]>(variants.map((v) => [v.name, []]));
for (let round = 0; round <= ROUNDS; round++) {
  for (const v of variants) {
    use(v.fns);
    const n = round === 0 ? 5 : PAIRS; // round 0 warms up
    exchanges = 0;
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) await setUpAndClose();
    const c = process.cpuUsage(c0);
    if (exchanges !== 2 * n)
      throw new Error(`${v.name}: ${exchanges} X25519 exchanges for ${n} pairs, expected ${2 * n}`);
    if (round > 0) cpuMs.get(v.name)!.push((c.user + c.system) / 1000 / n);
  }
}
const lines = [
  `${PAIRS} connected pairs per round, ${ROUNDS} rounds; process CPU (user + system) per pair, both sides`,
  "",
  "| X25519 | ms CPU per pair, each round | median |",
  "| --- | --- | ---: |",
];
for (const [name, xs] of cpuMs) {
  lines.push(`| ${name} | ${xs.map((x) => fmtFixed(x, 2)).join(", ")} | ${fmtFixed(median(xs), 2)} |`);
}
process.stdout.write(`${lines.join("\n")}\n`);
process.exit(0);
