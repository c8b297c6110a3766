// The relay's threads (docs/definitions.md#relay-send-path; `whipbench relay --workers N`): legs'
// video sent off the main thread. The main thread writes each publisher packet once into the
// shared ring (core/relay/packet-ring.ts); each connected leg is handed, round robin, to one
// relay thread (relay-thread.ts) with a duplicate of its socket's descriptor, its destination
// and its SRTP keys; werift keeps the leg's ICE, DTLS and RTCP here: its NACKs are passed on to
// the leg's thread, and four times a second the sender's counters its reports read are brought up
// to what the ring carried since the leg joined. Only legs no per-leg knob touches are handed over
// (send-path.ts).
import { Worker } from "node:worker_threads";
import { PacketRing } from "../../core/relay/packet-ring.ts";
import { dupFd } from "../../net/batch-write.ts";
import { ABS_CAPTURE_TIME_URI } from "../../net/rtc.ts";
import { type LegWire, legWire, ntpNow } from "../../net/werift/leg-wire.ts";
import type { Leg } from "./leg.ts";
import type { LegPacket } from "./leg-faults.ts";
import type { FromRelayThread, ThreadLeg, ToRelayThread } from "./relay-thread.ts";

const SYNC_MS = 250;

interface Handed {
  worker: Worker;
  id: number;
  wire: LegWire;
  /** ring count and payload bytes already counted for werift's sender */
  count: number;
  bytes: number;
}

export class RelayThreads {
  readonly ring = new PacketRing();
  readonly size: number;
  private readonly workers: Worker[] = [];
  private readonly legs = new Map<Leg, Handed>();
  private next = 0;
  private nextId = 1;
  private bytes = 0;
  private lastTs = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(n: number) {
    this.size = n;
    const file = `./relay-thread${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`;
    for (let i = 0; i < n; i++) {
      const w = new Worker(new URL(file, import.meta.url), { workerData: { sab: this.ring.sab } });
      w.on("error", () => {});
      this.workers.push(w);
    }
    this.timer = setInterval(() => this.sync(), SYNC_MS);
    this.timer.unref();
  }

  /** Legs on the threads now. */
  get legCount(): number {
    return this.legs.size;
  }

  /** One publisher packet for every handed leg (written once, whatever the number of legs). */
  write(p: LegPacket): void {
    if (this.legs.size === 0) return;
    if (this.ring.write(p.seq, p.ts, p.marker, p.payload, p.abs ?? null)) {
      this.bytes += p.payload.length;
      this.lastTs = p.ts;
    }
  }

  /** Hands the leg's video to a thread; returns null, or why it stays here. */
  attach(leg: Leg): string | null {
    const wire = legWire(leg.tr, [ABS_CAPTURE_TIME_URI]);
    if (typeof wire === "string") return wire;
    // the thread sends on a descriptor of its own, closed when it lets the leg go
    const fd = dupFd(wire.fd);
    if (fd < 0) return "the leg's socket could not be duplicated for a relay thread";
    const worker = this.workers[this.next++ % this.workers.length]!;
    const id = this.nextId++;
    const count = this.ring.count;
    const t: ThreadLeg = {
      id,
      fd,
      ip: wire.ip,
      port: wire.port,
      profile: wire.profile,
      key: new Uint8Array(wire.localMasterKey),
      salt: new Uint8Array(wire.localMasterSalt),
      ssrc: wire.ssrc,
      payloadType: wire.payloadType,
      absId: leg.absId,
      from: count,
    };
    this.post(worker, { t: "add", leg: t });
    wire.onNack((seq) => {
      this.post(worker, { t: "nack", id, seq });
      return true;
    });
    this.legs.set(leg, { worker, id, wire, count, bytes: this.bytes });
    leg.threaded = true;
    return null;
  }

  /** The leg closed or failed: its thread stops sending to it. */
  ended(leg: Leg): void {
    const h = this.legs.get(leg);
    if (h === undefined) return;
    this.legs.delete(leg);
    this.post(h.worker, { t: "remove", id: h.id });
  }

  private post(w: Worker, m: ToRelayThread): void {
    w.postMessage(m);
  }

  /** werift's sender counters brought up to the ring; a leg werift would no longer send on, ended. */
  private sync(): void {
    if (this.legs.size === 0) return;
    const ntp = ntpNow();
    const count = this.ring.count;
    for (const [leg, h] of this.legs) {
      if (!h.wire.live()) {
        this.ended(leg);
        continue;
      }
      if (count > h.count) h.wire.sent(count - h.count, this.bytes - h.bytes, 0, this.lastTs, ntp);
      h.count = count;
      h.bytes = this.bytes;
    }
  }

  /** Stops the threads; returns what they wrote. */
  async close(): Promise<{ written: number; resent: number; dropped: number }> {
    clearInterval(this.timer);
    const sum = { written: 0, resent: 0, dropped: 0 };
    await Promise.all(
      this.workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            const done = setTimeout(() => void w.terminate().then(() => resolve()), 1000);
            w.once("message", (m: FromRelayThread) => {
              sum.written += m.written;
              sum.resent += m.resent;
              sum.dropped += m.dropped;
              clearTimeout(done);
              void w.terminate().then(() => resolve());
            });
            w.postMessage({ t: "stop" } satisfies ToRelayThread);
          }),
      ),
    );
    this.workers.length = 0;
    return sum;
  }
}
