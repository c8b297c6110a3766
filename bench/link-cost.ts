// What the emulated link costs per datagram (docs/definitions.md#link-emulator): the pure
// model's decision alone, and the run-time hold (the model, the held queue, the timer and the
// hand-on) for a 20 ms delayed downlink at a viewer's packet rate, in thread CPU µs per datagram.
import { monoNs } from "../src/core/clock/clock.ts";
import { LinkDirection, LinkRandom } from "../src/core/link/model.ts";
import { parseCohorts } from "../src/core/link/parse.ts";
import { ViewerLink } from "../src/workers/receive/link.ts";

const cpuUs = (): number => {
  const u = process.threadCpuUsage?.() ?? process.cpuUsage();
  return u.user + u.system;
};

function model(label: string, profile: ConstructorParameters<typeof LinkDirection>[0], n = 2_000_000): void {
  const d = new LinkDirection(profile, [], "down", 0, new LinkRandom(1, 0, 0));
  let sink = 0;
  const c0 = cpuUs();
  for (let i = 0; i < n; i++) sink += d.decide(1100, i * 1e5);
  const us = (cpuUs() - c0) / n;
  console.log(`model ${label}: ${(us * 1000).toFixed(0)} ns a datagram (${sink > 0 ? "ok" : "?"})`);
}

/** `viewers` links at 70 datagrams a second each, for `seconds`, with the delivery handler a no-op. */
async function runtime(viewers: number, seconds: number): Promise<void> {
  const [c] = parseCohorts([{ name: "far", viewers: 1, down: { delay: "20ms", jitter: "2ms", loss: "1%" } }]);
  if (c === undefined) throw new Error("no cohort");
  let delivered = 0;
  const handlers = Array.from({ length: viewers }, (_, i) =>
    new ViewerLink(c, i, monoNs()).downStage({
      receive: () => {
        delivered++;
      },
      close: () => {},
    }),
  );
  const data = Buffer.alloc(1100);
  let sent = 0;
  const idle = cpuUs();
  await new Promise((r) => setTimeout(r, 1000 * seconds));
  const idleUs = cpuUs() - idle;
  const c0 = cpuUs();
  const end = monoNs() + seconds * 1e9;
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      // one 10 ms tick: 0.7 datagrams per viewer, spread over the viewers
      const now = monoNs();
      for (let k = 0; k < viewers * 0.7; k++) {
        handlers[sent % viewers]?.receive(data, data.length, now);
        sent++;
      }
      if (now > end) {
        clearInterval(tick);
        setTimeout(resolve, 100);
      }
    }, 10);
  });
  const us = (cpuUs() - c0 - idleUs) / sent;
  console.log(
    `runtime, ${viewers} viewers: ${us.toFixed(2)} µs a datagram over ${sent} (${delivered} delivered)`,
  );
}

model("transparent", {});
model("delay + uniform jitter", { delayNs: 20e6, jitterNs: 5e6 });
model("delay + loss + Gilbert–Elliott", {
  delayNs: 20e6,
  loss: 0.02,
  burst: { enter: 0.01, leave: 0.3, lossBad: 1, lossGood: 0 },
});
model("rate + queue + normal jitter", {
  rateBps: 800e3,
  queueNs: 100e6,
  jitterNs: 5e6,
  distribution: "normal",
  delayNs: 20e6,
});
await runtime(30, 3);
await runtime(200, 3);
