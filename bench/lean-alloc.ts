// CPU and allocation per packet of the lean path's SRTP unprotect and of its whole receive
// function, next to werift's own SRTP decrypt, in one thread without sockets: what each
// received packet costs before the viewer's pipeline, and how much garbage it leaves.
//
//   npm run bench:lean-alloc -- [--packets 20000] [--rounds 5] [--profile gcm|cm]
//
// One pre-protected stream (1100-byte payloads, abs-capture-time on every packet, 4 packets a
// frame). Each variant and round gets a fresh receiver (its own SRTP state) fed the same
// stream: a warm-up slice, then the measured one; rounds interleave the variants. Allocation:
// the process re-runs itself with --expose-gc and a 256 MiB young generation, forces a full GC
// before each window, and takes the growth of heapUsed (JS objects) and arrayBuffers (buffer
// contents) across it; a window that saw a GC is reported as such (its growth would undercount).
import { PerformanceObserver } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { SrtpSession } from "werift";
import { fmtFixed } from "../src/core/go-compat/fmt.ts";
import {
  SRTP_AEAD_AES_128_GCM,
  SRTP_AES128_CM_HMAC_SHA1_80,
  type SrtpProfile,
} from "../src/core/srtp/kdf.ts";
import { SrtpReceiver } from "../src/core/srtp/srtp.ts";
import { OwnSrtpStage } from "../src/workers/receive/receiver.ts";
import { rtpHeaderLength } from "../src/workers/receive/rtp-read.ts";
import { allocationGc } from "./allocation-gc.ts";
import { median } from "./median.ts";
import { protectedStream, STREAM_KEY, streamReceiverOptions, streamSalt } from "./srtp-stream.ts";

// re-runs itself with the flags the allocation figure needs
const gc = allocationGc(import.meta.url);

const { values: args } = parseArgs({
  options: {
    packets: { type: "string", default: "20000" },
    rounds: { type: "string", default: "5" },
    profile: { type: "string", default: "gcm" },
  },
});
const PACKETS = Number(args.packets);
const ROUNDS = Number(args.rounds);
const WARM = 2000;
const profile: SrtpProfile = args.profile === "cm" ? SRTP_AES128_CM_HMAC_SHA1_80 : SRTP_AEAD_AES_128_GCM;
const KEY = STREAM_KEY;
const SALT = streamSalt(profile);
const TAG = profile === SRTP_AEAD_AES_128_GCM ? 16 : 10;

type Variant = "werift decrypt" | "lean unprotect" | "lean receive function";
const VARIANTS: Variant[] = ["werift decrypt", "lean unprotect", "lean receive function"];

// one stream, replayed to every fresh receiver; no sequence wrap inside it
const total = WARM + PACKETS;
if (total > 60_000) throw new Error("--packets: at most 58000 (the stream must not wrap)");
const stream = protectedStream(profile, total, 0);

let gcs = 0;
new PerformanceObserver((l) => {
  gcs += l.getEntries().length;
}).observe({ entryTypes: ["gc"] });

/** A fresh receiver of the variant: returns the per-packet function and a check that it worked. */
function receiver(v: Variant): { take: (p: Buffer) => void; delivered: () => number; close: () => void } {
  let n = 0;
  if (v === "werift decrypt") {
    const s = new SrtpSession({
      keys: { localMasterKey: KEY, localMasterSalt: SALT, remoteMasterKey: KEY, remoteMasterSalt: SALT },
      profile,
    });
    return {
      take: (p) => {
        if (s.decrypt(p).length > 0) n++;
      },
      delivered: () => n,
      close: () => {},
    };
  }
  if (v === "lean unprotect") {
    const s = new SrtpReceiver(profile, KEY, SALT);
    return {
      take: (p) => {
        if (s.unprotect(p, rtpHeaderLength(p, p.length - TAG)) !== null) n++;
      },
      delivered: () => n,
      close: () => {},
    };
  }
  const rx = new OwnSrtpStage({
    ...streamReceiverOptions(profile),
    next: {
      receive: () => {
        n++;
      },
      close: () => {},
    },
  });
  return { take: (p) => rx.receive(p, p.length, 0), delivered: () => n, close: () => rx.close() };
}

interface Row {
  cpuUs: number[];
  heapB: number[];
  bufB: number[];
  withGc: number;
}
const rows = new Map<Variant, Row>(VARIANTS.map((v) => [v, { cpuUs: [], heapB: [], bufB: [], withGc: 0 }]));
for (let round = 0; round <= ROUNDS; round++) {
  for (const v of VARIANTS) {
    const r = receiver(v);
    for (let i = 0; i < WARM; i++) r.take(stream[i]!);
    gc();
    gc();
    const g0 = gcs;
    const m0 = process.memoryUsage();
    const c0 = process.cpuUsage();
    for (let i = WARM; i < total; i++) r.take(stream[i]!);
    const c1 = process.cpuUsage(c0);
    const m1 = process.memoryUsage();
    r.close();
    if (r.delivered() !== WARM + PACKETS)
      throw new Error(`${v}: ${r.delivered()} of ${WARM + PACKETS} delivered`);
    if (round === 0) continue; // warm-up round
    const row = rows.get(v)!;
    row.cpuUs.push((c1.user + c1.system) / PACKETS);
    row.heapB.push((m1.heapUsed - m0.heapUsed) / PACKETS);
    row.bufB.push((m1.arrayBuffers - m0.arrayBuffers) / PACKETS);
    if (gcs !== g0) row.withGc++;
  }
}

const lines = [
  `${args.profile === "cm" ? "AES_CM_128_HMAC_SHA1_80" : "AEAD_AES_128_GCM"}, 1100-byte payloads, ${PACKETS} packets per window, medians of ${ROUNDS} rounds`,
  "",
  "| variant | CPU µs/packet | heap B/packet | buffer B/packet | windows with a GC |",
  "| --- | ---: | ---: | ---: | ---: |",
];
for (const [v, r] of rows) {
  lines.push(
    `| ${v} | ${fmtFixed(median(r.cpuUs), 2)} | ${fmtFixed(median(r.heapB), 0)} | ${fmtFixed(median(r.bufB), 0)} | ${r.withGc} of ${ROUNDS} |`,
  );
}
process.stdout.write(`${lines.join("\n")}\n`);
