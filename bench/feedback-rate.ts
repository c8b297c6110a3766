// Transport feedback messages per second per viewer, libwebrtc M106 (bench/libwebrtc-viewer.ts, a
// child process) beside our browser-profile viewer (`whipbench view`, a child process), one after
// the other on the same relay and the same published clip: the relay counts each leg's messages
// (Relay.legFeedback, docs/definitions.md#built-in-relay), read when the leg has run 2 s and again
// `seconds` − 1 s later. Issue 39's target: ours within ±25 % of libwebrtc's.
//
//   node bench/feedback-rate.ts [--seconds 8] [--send native|werift]
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadClip } from "../src/core/clip/clip.ts";
import { takeWallAnchor } from "../src/core/clock/clock.ts";
import { Publisher } from "../src/main/publisher/publisher.ts";
import { Relay } from "../src/main/relay/relay.ts";
import type { IceOptions } from "../src/net/rtc.ts";

const { values: args } = parseArgs({
  options: { seconds: { type: "string", default: "8" }, send: { type: "string", default: "native" } },
});
const SECONDS = Number(args.seconds);
const ICE: IceOptions = { loopbackOnly: true, includeLoopback: false };
const BIN = fileURLToPath(new URL("../bin/whipbench.js", import.meta.url));
const VIEWER = fileURLToPath(new URL("./libwebrtc-viewer.ts", import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Messages per second on the one leg the child opens, between its 2nd second and its last. */
async function rate(relay: Relay, cmd: string[]): Promise<number> {
  const before = relay.viewers("fb");
  const child = spawn(process.execPath, cmd, { stdio: ["ignore", "ignore", "inherit"] });
  const done = new Promise((r) => child.on("close", r));
  for (let i = 0; i < 200 && relay.viewers("fb") === before; i++) await sleep(50);
  // the child's leg is the newest (a leg whose viewer sent no DELETE stays open)
  const mine = () => relay.legFeedback("fb").at(-1) ?? 0;
  await sleep(2000);
  const a = mine();
  const t0 = performance.now();
  await sleep((SECONDS - 3) * 1000);
  const b = mine();
  const s = (performance.now() - t0) / 1000;
  await done;
  return (b - a) / s;
}

const relay = new Relay({ ice: ICE, send: args.send === "werift" ? "werift" : "native" });
const base = await relay.listen();
const publisher = new Publisher({
  whip: `${base}/fb/whip`,
  bearer: undefined,
  clip: loadClip("vp8"),
  ice: ICE,
  noStamp: false,
  sendLog: null,
  anchor: takeWallAnchor(),
});
const stop = new AbortController();
try {
  await publisher.connect();
  const streaming = publisher.stream(stop.signal);
  await relay.ready("fb");
  const whep = `${base}/fb/whep`;
  const lib = await rate(relay, [VIEWER, whep, String(SECONDS)]);
  const ours = await rate(relay, [
    BIN,
    "view",
    "--whep",
    whep,
    "-n",
    "1",
    "--duration",
    `${SECONDS}s`,
    "--loopback-only",
    "--out",
    "/tmp/whipbench-feedback-rate",
  ]);
  console.log(
    `transport feedback messages per second, one viewer each, ${SECONDS} s, relay send path ${args.send}: libwebrtc ${lib.toFixed(2)}, ` +
      `ours ${ours.toFixed(2)}${lib > 0 ? ` (${(((ours - lib) / lib) * 100).toFixed(1)} %)` : ""}`,
  );
  stop.abort();
  await streaming;
} finally {
  stop.abort();
  await publisher.close();
  await relay.close();
}
