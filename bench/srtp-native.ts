// CPU and allocation per packet of SRTP unprotect: node:crypto's receiver against the in-place
// OpenSSL one (src/net/srtp/unprotect.ts), both profiles, same run, one thread, no sockets.
//
//   npm run bench:srtp -- [--packets 20000] [--rounds 5]
//
// One pre-protected stream per profile (1100-byte payloads, abs-capture-time on every packet).
// The OpenSSL receiver decrypts in place, so every window gets fresh copies of the stream, made
// before it: one ArrayBuffer per packet (as dgram delivers datagrams) or all packets side by side
// in one arena (as a batched read would). Each variant and round gets a fresh receiver; rounds
// interleave the variants, and the first round is a warm-up. Allocation: as bench/lean-alloc.ts
// (a 256 MiB young generation, a full GC before each window, the growth of heapUsed and
// arrayBuffers across it; a window that saw a GC is counted as such).
import { PerformanceObserver } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { fmtFixed } from "../src/core/go-compat/fmt.ts";
import {
  SRTP_AEAD_AES_128_GCM,
  SRTP_AES128_CM_HMAC_SHA1_80,
  type SrtpProfile,
} from "../src/core/srtp/kdf.ts";
import { SrtpReceiver, type SrtpUnprotect } from "../src/core/srtp/srtp.ts";
import { openssl } from "../src/net/srtp/openssl.ts";
import { OpensslSrtpReceiver } from "../src/net/srtp/unprotect.ts";
import { rtpHeaderLength } from "../src/workers/receive/rtp-read.ts";
import { allocationGc } from "./allocation-gc.ts";
import { median } from "./median.ts";
import { protectedStream, STREAM_KEY, streamSalt } from "./srtp-stream.ts";

const gc = allocationGc(import.meta.url);

const { values: args } = parseArgs({
  options: {
    packets: { type: "string", default: "20000" },
    rounds: { type: "string", default: "5" },
  },
});
const PACKETS = Number(args.packets);
const ROUNDS = Number(args.rounds);
if (!(PACKETS > 0 && PACKETS <= 60_000)) throw new Error("--packets: 1 to 60000 (the stream must not wrap)");
const native = openssl();
if (!native.ok) throw new Error(`OpenSSL not reachable here: ${native.reason}`);

type Variant = "node:crypto" | "OpenSSL in place, a buffer a packet" | "OpenSSL in place, one arena";
const VARIANTS: Variant[] = [
  "node:crypto",
  "OpenSSL in place, a buffer a packet",
  "OpenSSL in place, one arena",
];

let gcs = 0;
new PerformanceObserver((l) => {
  gcs += l.getEntries().length;
}).observe({ entryTypes: ["gc"] });

/** The stream as the variant receives it: copies for the in-place receivers. */
function packetsFor(v: Variant, stream: readonly Buffer[]): Buffer[] {
  if (v === "node:crypto") return stream as Buffer[];
  if (v === "OpenSSL in place, a buffer a packet") {
    return stream.map((p) => {
      const b = Buffer.allocUnsafeSlow(p.length);
      p.copy(b);
      return b;
    });
  }
  const arena = Buffer.allocUnsafeSlow(stream.reduce((n, p) => n + p.length, 0));
  let at = 0;
  return stream.map((p) => {
    p.copy(arena, at);
    at += p.length;
    return arena.subarray(at - p.length, at);
  });
}

interface Row {
  cpuUs: number[];
  heapB: number[];
  bufB: number[];
  withGc: number;
}

function measure(profile: SrtpProfile): Map<Variant, Row> {
  const stream = protectedStream(profile, PACKETS, 0);
  const tag = profile === SRTP_AEAD_AES_128_GCM ? 16 : 10;
  const rows = new Map<Variant, Row>(VARIANTS.map((v) => [v, { cpuUs: [], heapB: [], bufB: [], withGc: 0 }]));
  for (let round = 0; round <= ROUNDS; round++) {
    for (const v of VARIANTS) {
      const packets = packetsFor(v, stream);
      const rx: SrtpUnprotect =
        v === "node:crypto"
          ? new SrtpReceiver(profile, STREAM_KEY, streamSalt(profile))
          : new OpensslSrtpReceiver(profile, STREAM_KEY, streamSalt(profile));
      let delivered = 0;
      gc();
      gc();
      const g0 = gcs;
      const m0 = process.memoryUsage();
      const c0 = process.cpuUsage();
      for (const p of packets) if (rx.unprotect(p, rtpHeaderLength(p, p.length - tag)) !== null) delivered++;
      const c1 = process.cpuUsage(c0);
      const m1 = process.memoryUsage();
      if (delivered !== PACKETS) throw new Error(`${v}: ${delivered} of ${PACKETS} delivered`);
      if (round === 0) continue;
      const row = rows.get(v)!;
      row.cpuUs.push((c1.user + c1.system) / PACKETS);
      row.heapB.push((m1.heapUsed - m0.heapUsed) / PACKETS);
      row.bufB.push((m1.arrayBuffers - m0.arrayBuffers) / PACKETS);
      if (gcs !== g0) row.withGc++;
    }
  }
  return rows;
}

const lines = [
  `${native.version}; 1100-byte payloads, ${PACKETS} packets per window, medians of ${ROUNDS} rounds`,
  "",
  "| profile | variant | CPU µs/packet | heap B/packet | buffer B/packet | windows with a GC |",
  "| --- | --- | ---: | ---: | ---: | ---: |",
];
for (const [name, profile] of [
  ["AEAD_AES_128_GCM", SRTP_AEAD_AES_128_GCM],
  ["AES_CM_128_HMAC_SHA1_80", SRTP_AES128_CM_HMAC_SHA1_80],
] as const) {
  for (const [v, r] of measure(profile)) {
    lines.push(
      `| ${name} | ${v} | ${fmtFixed(median(r.cpuUs), 2)} | ${fmtFixed(median(r.heapB), 0)} | ${fmtFixed(median(r.bufB), 0)} | ${r.withGc} of ${ROUNDS} |`,
    );
  }
}
process.stdout.write(`${lines.join("\n")}\n`);
