// One viewer's emulated link at run time (docs/definitions.md#link-emulator): the pure model
// (core/link/model.ts) decides each datagram's fate; this holds a delayed datagram until its
// emulated instant (one timer per direction, armed for the earliest held datagram) and then
// hands it on. Downlink: media datagrams after they were stamped, as a stage of the viewer's
// receive chain (`downStage`, chain.ts; the arrival instant handed on is the stamp plus what the
// link added), and everything else (STUN, DTLS, media before SRTP is up) on werift's UDP transports'
// onData, one datagram per macrotask. Uplink: every datagram at the transports' send (STUN,
// DTLS, RTCP). Installed after ICE gathering, before the WHEP POST, so every handshake crosses
// the emulated link.
import { monoNs } from "../../core/clock/clock.ts";
import { LinkDirection, LinkRandom } from "../../core/link/model.ts";
import type { Cohort, LinkRecord } from "../../core/link/types.ts";
import type { RTCPeerConnection } from "../../net/werift/api.ts";
import {
  peerUdpTransports,
  receiveOf,
  sendOf,
  type UdpReceive,
  type UdpSend,
  wrapReceive,
  wrapSend,
} from "../../net/werift/transports.ts";
import { atMonoNs, type Timer } from "../timers.ts";
import type { ReceiveStage } from "./stages.ts";

/** Datagrams held by one direction, in delivery order. */
class Held {
  private readonly at: number[] = [];
  private readonly fns: (() => void)[] = [];
  private timer: Timer | null = null;
  private armedFor = Number.POSITIVE_INFINITY;
  private closed = false;

  /** Runs `fn` at `atNs` (monotonic); in order of `atNs`, ties in arrival order. */
  hold(atNs: number, fn: () => void): void {
    if (this.closed) return;
    let i = this.at.length;
    while (i > 0 && (this.at[i - 1] ?? 0) > atNs) i--;
    if (i === this.at.length) {
      this.at.push(atNs);
      this.fns.push(fn);
    } else {
      this.at.splice(i, 0, atNs);
      this.fns.splice(i, 0, fn);
    }
    if (atNs < this.armedFor) this.arm();
  }

  private arm(): void {
    this.timer?.cancel();
    const first = this.at[0];
    if (first === undefined) {
      this.timer = null;
      this.armedFor = Number.POSITIVE_INFINITY;
      return;
    }
    this.armedFor = first;
    this.timer = atMonoNs(first, this.fire);
  }

  private readonly fire = (): void => {
    const now = monoNs();
    let n = 0;
    while (n < this.at.length && (this.at[n] ?? 0) <= now) n++;
    const due = this.fns.splice(0, n);
    this.at.splice(0, n);
    this.armedFor = Number.POSITIVE_INFINITY;
    this.timer = null;
    for (const fn of due) {
      try {
        fn();
      } catch {
        // the receiver's own failure, as for a datagram that was never held
      }
    }
    if (!this.closed) this.arm();
  };

  close(): void {
    this.closed = true;
    this.timer?.cancel();
    this.at.length = 0;
    this.fns.length = 0;
  }
}

export class ViewerLink {
  readonly cohort: string;
  private readonly down: LinkDirection;
  private readonly up: LinkDirection;
  private readonly heldDown = new Held();
  private readonly heldUp = new Held();

  constructor(cohort: Cohort, viewerId: number, originNs: number) {
    this.cohort = cohort.name;
    const make = (pick: "down" | "up", dir: 0 | 1) =>
      new LinkDirection(
        cohort[pick],
        cohort.steps,
        pick,
        originNs,
        new LinkRandom(cohort.seed, viewerId, dir),
      );
    this.down = make("down", 0);
    this.up = make("up", 1);
  }

  /**
   * The chain's link stage in front of `next` (itself where the downlink is transparent): each
   * media datagram held, dropped or handed on at once, its arrival moved by what the link added.
   * Once the stage is closed, what it still holds goes no further.
   */
  downStage(next: ReceiveStage): ReceiveStage {
    if (this.down.transparent) return next;
    const down = this.down;
    const held = this.heldDown;
    let open = true;
    return {
      receive(view, length, arrivalNs) {
        const at = down.decide(length, arrivalNs);
        if (at < 0) return;
        if (at === arrivalNs) {
          next.receive(view, length, at);
          return;
        }
        // the view may be a slot of the arena, reused after the call: keep a copy
        const data = Buffer.from(view.subarray(0, length));
        held.hold(at, () => {
          if (open) next.receive(data, length, at);
        });
      },
      close() {
        open = false;
      },
    };
  }

  /**
   * Wraps what each UDP transport of the peer's ICE connections receives and sends (the werift
   * seam's peerUdpTransports); returns how many.
   */
  attach(pc: RTCPeerConnection): number {
    let n = 0;
    for (const t of peerUdpTransports(pc)) {
      if (receiveOf(t) === null || sendOf(t) === null) continue;
      if (!this.down.transparent) wrapReceive(t, (onData) => this.downlink(onData));
      if (!this.up.transparent) wrapSend(t, (send) => this.uplink(send));
      n++;
    }
    return n;
  }

  private downlink(onData: UdpReceive): UdpReceive {
    return (data, addr) => {
      const now = monoNs();
      const at = this.down.decide(Buffer.isBuffer(data) ? data.length : 0, now);
      if (at < 0) return;
      if (at === now) onData(data, addr);
      // several may fall due at once: each reaches werift in a macrotask of its own, as libuv
      // hands them (werift's DTLS needs its promises settled in between: arena-reader.ts)
      else this.heldDown.hold(at, () => setImmediate(onData, data, addr));
    };
  }

  private uplink(send: UdpSend): UdpSend {
    return (data, addr) => {
      const now = monoNs();
      const at = this.up.decide(Buffer.isBuffer(data) ? data.length : 0, now);
      if (at < 0) return Promise.resolve();
      if (at === now) return send(data, addr);
      this.heldUp.hold(at, () => {
        Promise.resolve(send(data, addr)).catch(() => {});
      });
      return Promise.resolve();
    };
  }

  /** Drops what is still held (the viewer stops). */
  close(): void {
    this.heldDown.close();
    this.heldUp.close();
  }

  record(): LinkRecord {
    return { down: { ...this.down.counts }, up: { ...this.up.counts } };
  }
}
