// The relay's threads (docs/definitions.md#relay-send-path; `whipbench relay --workers N`): legs'
// video sent off the main thread. The main thread writes each publisher packet once into the shared
// ring (core/relay/packet-ring.ts); each connected leg is handed, round robin, to one relay thread
// (relay-thread.ts) with a duplicate of its socket's descriptor, its destination and its SRTP keys;
// werift keeps the leg's ICE, DTLS and RTCP here: its NACKs are passed on to the leg's thread,
// which says which it sent again (the leg's werift sender counts those as retransmitted, and
// `resent` sums them), and four times a second the sender's counters its reports read are brought
// up to what the ring carried since the leg joined. Only legs no per-leg knob but LoseEvery touches
// are handed over (send-path.ts). A thread that stops unasked (an uncaught error, an exit) is
// counted and its legs are given to `lost` to be ended, as the server dropping them (the viewers
// count `dropped`): their SRTP state died with it. Legs connected later go to the threads still
// running, else stay here.
import { Worker } from "node:worker_threads";
import { PacketRing } from "../../core/relay/packet-ring.ts";
import { closeFd, dupFd } from "../../net/batch-write.ts";
import { ABS_CAPTURE_TIME_URI, TRANSPORT_CC_URI } from "../../net/rtc.ts";
import { type LegWire, legWire, ntpNow } from "../../net/werift/leg-wire.ts";
import type { Leg } from "./leg.ts";
import type { LegPacket } from "./leg-faults.ts";
import type { FromRelayThread, ThreadLeg, ToRelayThread } from "./relay-thread.ts";

const SYNC_MS = 250;

interface Handed {
  worker: Worker;
  id: number;
  /** the thread's duplicate of the leg's socket descriptor (closed here if the thread died) */
  fd: number;
  wire: LegWire;
  /** ring count and payload bytes already counted for werift's sender */
  count: number;
  bytes: number;
}

/** Where the threads come from and who hears of one that stopped unasked. */
export interface RelayThreadOptions {
  /** the legs of a thread that stopped, and why it stopped: the relay ends them */
  lost?: (legs: Leg[], why: string) => void;
  /** the thread's entry file (tests wrap the real one to make a thread fail) */
  entry?: URL;
}

export class RelayThreads {
  readonly ring = new PacketRing();
  readonly size: number;
  /** NACK resends the threads wrote, as they report them */
  resent = 0;
  /** threads that stopped unasked, and the last one's reason */
  lostThreads = 0;
  lastLoss: string | null = null;
  private readonly workers: Worker[] = [];
  private readonly dead = new Set<Worker>();
  private closing = false;
  private readonly onLost: (legs: Leg[], why: string) => void;
  private readonly legs = new Map<Leg, Handed>();
  /** the handed legs by their id on their thread */
  private readonly byId = new Map<number, Handed>();
  /** who waits for a thread's last word (close) */
  private readonly stopping = new Map<Worker, (m: FromRelayThread & { t: "stopped" }) => void>();
  private next = 0;
  private nextId = 1;
  private bytes = 0;
  private lastTs = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(n: number, o: RelayThreadOptions = {}) {
    this.size = n;
    this.onLost = o.lost ?? (() => {});
    const file = `./relay-thread${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`;
    const entry = o.entry ?? new URL(file, import.meta.url);
    for (let i = 0; i < n; i++) {
      const w = new Worker(entry, { workerData: { sab: this.ring.sab } });
      w.on("error", (err) => this.lost(w, `relay thread ${i + 1} failed: ${err.message}`));
      w.on("exit", (code) => this.lost(w, `relay thread ${i + 1} exited (code ${code})`));
      w.on("message", (m: FromRelayThread) => this.heard(w, m));
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
    const live = this.workers.filter((w) => !this.dead.has(w));
    if (live.length === 0) return "every relay thread stopped";
    const wire = legWire(leg.tr, [ABS_CAPTURE_TIME_URI, TRANSPORT_CC_URI]);
    if (typeof wire === "string") return wire;
    // the thread sends on a descriptor of its own, closed when it lets the leg go
    const fd = dupFd(wire.fd);
    if (fd < 0) return "the leg's socket could not be duplicated for a relay thread";
    const worker = live[this.next++ % live.length]!;
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
      rtxPayloadType: wire.rtxPayloadType,
      rtxSsrc: wire.rtxSsrc,
      twccId: wire.twccId,
      absId: leg.absId,
      from: count,
      loseEvery: leg.loss?.every ?? 0,
    };
    this.post(worker, { t: "add", leg: t });
    // not counted here: the thread says what it sent again (heard)
    wire.onNack((seq) => {
      this.post(worker, { t: "nack", id, seq });
      return 0;
    });
    const h: Handed = { worker, id, fd, wire, count, bytes: this.bytes };
    this.legs.set(leg, h);
    this.byId.set(id, h);
    leg.threaded = true;
    return null;
  }

  /** The leg closed or failed: its thread stops sending to it. */
  ended(leg: Leg): void {
    const h = this.legs.get(leg);
    if (h === undefined) return;
    this.legs.delete(leg);
    this.byId.delete(h.id);
    this.post(h.worker, { t: "remove", id: h.id });
  }

  /** A thread's message: a leg's resends written, or its last word when stopped. */
  private heard(w: Worker, m: FromRelayThread): void {
    if (m.t === "resent") {
      this.resent += m.packets;
      this.byId.get(m.id)?.wire.retransmitted(m.packets);
    } else this.stopping.get(w)?.(m);
  }

  private post(w: Worker, m: ToRelayThread): void {
    if (!this.dead.has(w)) w.postMessage(m);
  }

  /** A thread stopped unasked (once per thread): counted, its descriptors closed, its legs ended. */
  private lost(w: Worker, why: string): void {
    if (this.closing || this.dead.has(w)) return;
    this.dead.add(w);
    this.lostThreads++;
    this.lastLoss = why;
    const legs: Leg[] = [];
    for (const [leg, h] of this.legs) {
      if (h.worker !== w) continue;
      this.legs.delete(leg);
      this.byId.delete(h.id);
      closeFd(h.fd);
      legs.push(leg);
    }
    this.onLost(legs, why);
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
    this.closing = true;
    const sum = { written: 0, resent: 0, dropped: 0 };
    await Promise.all(
      this.workers
        .filter((w) => !this.dead.has(w))
        .map(
          (w) =>
            new Promise<void>((resolve) => {
              const done = setTimeout(() => void w.terminate().then(() => resolve()), 1000);
              this.stopping.set(w, (m) => {
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
