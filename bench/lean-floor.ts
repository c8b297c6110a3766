// The floor beneath a viewer's receive path, measured the way bench/density.ts measures a
// viewer thread: N plain UDP sockets in one worker thread, each receiving an SRTP stream of
// 132 packets/s (30 fps, 4 × 1100-byte packets a frame) from the main thread on 127.0.0.1, and
// the worker thread's own CPU over a fixed window divided by the packets it received.
//
//   node bench/lean-floor.ts [--viewers 100,200] [--seconds 8] [--profile gcm|cm] [--variants udp,udp+srtp,udp+lean]
//
// Variants, run one after the other for each N:
//   udp        receive and count (the socket floor)
//   udp+srtp   + SRTP unprotect with node:crypto (src/core/srtp): the floor the lean path is held to
//   udp+lean   + the whole lean receive function (src/workers/receive/receiver.ts): header fields,
//              abs-capture-time, replay window, NACK generator, reception statistics and its
//              receiver-report timer — everything but werift and the viewer's pipeline
import { createSocket, type Socket } from "node:dgram";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import {
  SRTP_AEAD_AES_128_GCM,
  SRTP_AES128_CM_HMAC_SHA1_80,
  type SrtpProfile,
} from "../src/core/srtp/kdf.ts";
import { SrtpReceiver } from "../src/core/srtp/srtp.ts";
import { OwnSrtpStage } from "../src/workers/receive/receiver.ts";
import { rtpHeaderLength } from "../src/workers/receive/rtp-read.ts";
import { protectedStream, STREAM_KEY, streamReceiverOptions, streamSalt } from "./srtp-stream.ts";

type Variant = "udp" | "udp+srtp" | "udp+lean";
const VARIANTS: Variant[] = ["udp", "udp+srtp", "udp+lean"];
const PPS = 132;

interface Job {
  variant: Variant;
  viewers: number;
  seconds: number;
  profile: SrtpProfile;
}

interface Result {
  ports: number[];
}

interface Done {
  packets: number;
  cpuUs: number;
  eldP99Ms: number;
  rejected: number;
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

if (!isMainThread) {
  const job = workerData as Job;
  const salt = streamSalt(job.profile);
  const sockets: Socket[] = [];
  let packets = 0;
  let rejected = 0;
  const leans: OwnSrtpStage[] = [];
  for (let i = 0; i < job.viewers; i++) {
    const s = createSocket("udp4");
    if (job.variant === "udp") {
      s.on("message", () => {
        packets++;
      });
    } else if (job.variant === "udp+srtp") {
      const rx = new SrtpReceiver(job.profile, STREAM_KEY, salt);
      const tag = rx.tagLength;
      s.on("message", (d: Buffer) => {
        const out = rx.unprotect(d, rtpHeaderLength(d, d.length - tag));
        if (out === null) rejected++;
        else packets++;
      });
    } else {
      const lean = new OwnSrtpStage({
        ...streamReceiverOptions(job.profile),
        next: {
          receive: () => {
            packets++;
          },
          close: () => {},
        },
      });
      leans.push(lean);
      s.on("message", (d: Buffer) => lean.receive(d, d.length, Number(process.hrtime.bigint())));
    }
    sockets.push(s);
  }
  await Promise.all(sockets.map((s) => new Promise<void>((r) => s.bind(0, "127.0.0.1", () => r()))));
  const port = parentPort!;
  port.postMessage({ ports: sockets.map((s) => s.address().port) } satisfies Result);
  const eld = monitorEventLoopDelay({ resolution: 2 });
  let cpu0 = 0;
  let packets0 = 0;
  port.on("message", (m: string) => {
    if (m === "start") {
      eld.enable();
      const u = process.threadCpuUsage();
      cpu0 = u.user + u.system;
      packets0 = packets;
    } else if (m === "stop") {
      const u = process.threadCpuUsage();
      eld.disable();
      for (const l of leans) {
        rejected += l.dropped.srtp;
        l.close();
      }
      for (const s of sockets) s.close();
      port.postMessage({
        packets: packets - packets0,
        cpuUs: u.user + u.system - cpu0,
        eldP99Ms: Math.max(0, eld.percentile(99) / 1e6 - 2),
        rejected,
      } satisfies Done);
    }
  });
} else {
  const viewerRows = arg("viewers", "100,200").split(",").map(Number);
  const seconds = Number(arg("seconds", "8"));
  const profile: SrtpProfile =
    arg("profile", "gcm") === "cm" ? SRTP_AES128_CM_HMAC_SHA1_80 : SRTP_AEAD_AES_128_GCM;
  // one pre-protected stream, sent to every socket (each receiver has its own SRTP state)
  const total = Math.ceil((seconds + 4) * PPS);
  const stream = protectedStream(profile, total, 40000);
  const lines: string[] = [
    `| viewers | variant | packets/s | µs thread CPU/packet | ELD p99 | rejected |`,
    `| ---: | --- | ---: | ---: | ---: | ---: |`,
  ];
  const variants = arg("variants", VARIANTS.join(","))
    .split(",")
    .filter((v): v is Variant => VARIANTS.includes(v as Variant));
  for (const n of viewerRows) {
    for (const variant of variants) {
      const w = new Worker(new URL(import.meta.url), {
        workerData: { variant, viewers: n, seconds, profile },
      });
      const ports = await new Promise<number[]>((r) => w.once("message", (m: Result) => r(m.ports)));
      const tx = createSocket("udp4");
      const t0 = performance.now();
      let sent = 0;
      // frames of 4 packets every 1/33 s, paced by a 5 ms tick
      const timer = setInterval(() => {
        const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * PPS));
        for (; sent < due; sent++) for (const p of ports) tx.send(stream[sent]!, p, "127.0.0.1");
      }, 5);
      await new Promise((r) => setTimeout(r, 2000));
      w.postMessage("start");
      const startSent = sent;
      await new Promise((r) => setTimeout(r, seconds * 1000));
      w.postMessage("stop");
      const done = await new Promise<Done>((r) => w.once("message", r));
      const pps = ((sent - startSent) * n) / seconds;
      clearInterval(timer);
      tx.close();
      await w.terminate();
      const us = done.packets > 0 ? done.cpuUs / done.packets : Number.NaN;
      lines.push(
        `| ${n} | ${variant} | ${Math.round(pps)} | ${us.toFixed(2)} | ${done.eldP99Ms.toFixed(1)} ms | ${done.rejected} |`,
      );
      process.stderr.write(`${lines[lines.length - 1]}\n`);
    }
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}
