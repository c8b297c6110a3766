// A relay thread (docs/definitions.md#relay-send-path): the native fan-out of the legs the main
// thread hands it, off the main thread. It reads the publisher's packets from the shared ring
// (core/relay/packet-ring.ts) in place, waking when the ring's count moves (Atomics.waitAsync, no
// poll), and writes each of its legs' packets as native.ts does (header, OpenSSL protect, one
// sendmmsg per leg per wake) on the leg's own socket, through a duplicate of its descriptor that
// this thread closes when it lets the leg go. The main thread keeps werift (ICE, DTLS, RTCP) and
// tells it of legs added and gone and of NACKs; the thread tells it of each NACK's resend once the
// kernel took it (a NACK of a packet gone from the leg's history is sent nothing and counts nothing).
// A leg's LoseEvery is applied here, beneath the thread's NACK responder, as native.ts does.
import { parentPort, workerData } from "node:worker_threads";
import { LossEvery } from "../../core/relay/loss-every.ts";
import { PacketRing, RING_SLOTS } from "../../core/relay/packet-ring.ts";
import type { SrtpProfile } from "../../core/srtp/kdf.ts";
import { closeFd } from "../../net/batch-write.ts";
import { NativeFanout, NativeLeg } from "./native.ts";

/** A leg handed to a relay thread: its wire, keys and the ring count its media starts at. */
export interface ThreadLeg {
  id: number;
  /** the thread's own descriptor of the leg's socket (dupFd), closed by the thread */
  fd: number;
  ip: number;
  port: number;
  profile: SrtpProfile;
  key: Uint8Array;
  salt: Uint8Array;
  ssrc: number;
  payloadType: number;
  /** the leg's rtx (−1: none) and transport-wide sequence number id (0: none), as LegWire */
  rtxPayloadType: number;
  rtxSsrc: number;
  twccId: number;
  absId: number;
  from: number;
  /** the relay's LoseEvery on this leg (docs/definitions.md#built-in-relay); 0: none */
  loseEvery: number;
}

export type ToRelayThread =
  | { t: "add"; leg: ThreadLeg }
  | { t: "remove"; id: number }
  | { t: "nack"; id: number; seq: number }
  | { t: "stop" };

export type FromRelayThread =
  | { t: "stopped"; written: number; resent: number; dropped: number }
  /** NACK resends of leg `id` the kernel took */
  | { t: "resent"; id: number; packets: number };

const port = parentPort;
if (port !== null) {
  const ring = new PacketRing(workerData.sab as SharedArrayBuffer);
  const fan = new NativeFanout();
  const legs = new Map<number, { n: NativeLeg; next: number }>();
  let seen = 0;
  let stopped = false;

  const add = (l: ThreadLeg): void => {
    const n = new NativeLeg(
      { absId: l.absId, ...(l.loseEvery > 0 ? { loss: new LossEvery(l.loseEvery) } : {}) },
      {
        fd: l.fd,
        ip: l.ip,
        port: l.port,
        profile: l.profile,
        localMasterKey: Buffer.from(l.key),
        localMasterSalt: Buffer.from(l.salt),
        ssrc: l.ssrc,
        payloadType: l.payloadType,
        rtxPayloadType: l.rtxPayloadType,
        rtxSsrc: l.rtxSsrc,
        twccId: l.twccId,
        live: () => true,
        sent: () => {},
        onNack: () => {},
        retransmitted: (packets) =>
          port.postMessage({ t: "resent", id: l.id, packets } satisfies FromRelayThread),
      },
    );
    legs.set(l.id, { n, next: l.from });
  };

  port.on("message", (m: ToRelayThread) => {
    if (m.t === "add") add(m.leg);
    else if (m.t === "remove") {
      const l = legs.get(m.id);
      legs.delete(m.id);
      if (l !== undefined) closeFd(l.n.wire.fd);
    } else if (m.t === "nack") {
      const l = legs.get(m.id);
      if (l !== undefined && fan.resend(l.n, m.seq)) fan.flush();
    } else {
      stopped = true;
      for (const l of legs.values()) closeFd(l.n.wire.fd);
      legs.clear();
      const done: FromRelayThread = {
        t: "stopped",
        written: fan.written,
        resent: fan.resent,
        dropped: fan.dropped,
      };
      port.postMessage(done);
      port.close();
    }
  });

  // each leg has its own cursor (from the ring count it joined at), so a leg added after the
  // ring moved, or before this thread started, still gets every packet from its own start
  const forward = (): void => {
    const end = ring.count;
    seen = end;
    if (legs.size === 0) return;
    const oldest = Math.max(0, end - RING_SLOTS + 1);
    let first = end;
    for (const l of legs.values()) first = Math.min(first, Math.max(l.next, oldest));
    const packets = [];
    for (let i = first; i < end; i++) packets.push(ring.read(i));
    for (const l of legs.values()) {
      for (let i = Math.max(l.next, oldest); i < end; i++) fan.queue(l.n, packets[i - first]!);
      l.next = end;
    }
    fan.flush();
  };

  // Atomics.waitAsync (ES2024; Node 22 has it, this project's lib setting predates it)
  type WaitAsync = (
    a: Int32Array,
    i: number,
    v: number,
    ms: number,
  ) => { async: boolean; value: Promise<string> | string };
  const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;
  const loop = async (): Promise<void> => {
    while (!stopped) {
      const w = waitAsync(ring.counter, 0, seen, 1000);
      if (w.async) await w.value;
      forward();
    }
  };
  void loop();
}
