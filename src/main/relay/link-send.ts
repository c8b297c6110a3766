// The relay side of one viewer leg's impaired link (docs/definitions.md#relay-link): the pure model
// (core/link/leg-link.ts) decides each datagram's fate and this carries it out on every way a
// leg's datagrams leave the relay — werift's UDP transports' send (STUN, DTLS, RTCP, and werift's
// SRTP where werift sends the video) and the native fan-out (native.ts asks `offer` after SRTP
// protect). A delayed copy is held, copied, until its instant; one timer per leg, armed for the
// earliest held copy, stopped when the leg ends. At most HELD_MAX copies are held per leg; past
// that a copy is dropped and counted (`overflow`). Relay threads take no leg with a link
// (send-path.ts), so no datagram of such a leg leaves any other way. The viewer → relay
// direction is not impaired.
import { monoNs } from "../../core/clock/clock.ts";
import { LegLink, type LegLinkCounts, type LegLinkProfile } from "../../core/link/leg-link.ts";
import type { RTCPeerConnection } from "../../net/werift/api.ts";
import { gatherNow, peerUdpTransports, wrapSend } from "../../net/werift/transports.ts";
import { weriftInternals } from "../../net/werift/version.ts";

/** Copies held per leg at most (a 20 ms delay at 1 000 datagrams a second holds about 20). */
export const HELD_MAX = 4096;

export class LegLinkSend {
  readonly link: LegLink;
  private readonly out = new Float64Array(2);
  /** held copies, in order of their instants (ties in arrival order) */
  private readonly heldAt: number[] = [];
  private readonly heldFn: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;
  private armedFor = Number.POSITIVE_INFINITY;
  private closed = false;

  constructor(profile: LegLinkProfile, leg: number) {
    this.link = new LegLink(profile, leg);
  }

  get counts(): LegLinkCounts {
    return this.link.counts;
  }

  /** Copies held now. */
  get held(): number {
    return this.heldAt.length;
  }

  /**
   * One datagram the leg sends now: returns how many copies to send at once (0, 1 or 2); a copy
   * due later is copied and handed to `later` at its instant.
   */
  offer(data: Uint8Array, later: (copy: Buffer) => void): number {
    if (this.closed || data.length === 0) return 1;
    const now = monoNs();
    const out = this.out;
    const n = this.link.decide(data[0]!, now, out);
    let at = 0;
    for (let i = 0; i < n; i++) {
      const due = out[i]!;
      if (due <= now) at++;
      else {
        const copy = Buffer.from(data);
        this.hold(due, () => later(copy));
      }
    }
    return at;
  }

  /** Wraps the send of every UDP transport of the leg's peer; returns how many. */
  wrap(pc: RTCPeerConnection): number {
    let n = 0;
    for (const t of peerUdpTransports(pc)) {
      const ok = wrapSend(t, (own) => (data, addr) => {
        if (!Buffer.isBuffer(data)) return own(data, addr);
        const sendLater = (copy: Buffer): void => {
          Promise.resolve(own(copy, addr)).catch(() => {});
        };
        const now = this.offer(data, sendLater);
        if (now === 0) return Promise.resolve();
        if (now === 2) sendLater(data);
        return own(data, addr);
      });
      if (ok) n++;
    }
    return n;
  }

  private hold(atNs: number, fn: () => void): void {
    if (this.heldAt.length >= HELD_MAX) {
      this.link.counts.overflow++;
      return;
    }
    let i = this.heldAt.length;
    while (i > 0 && this.heldAt[i - 1]! > atNs) i--;
    this.heldAt.splice(i, 0, atNs);
    this.heldFn.splice(i, 0, fn);
    if (atNs < this.armedFor) this.arm();
  }

  private arm(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const first = this.heldAt[0];
    this.armedFor = first ?? Number.POSITIVE_INFINITY;
    if (first === undefined || this.closed) return;
    // libuv counts whole milliseconds and may fire up to 1 ms early: fire re-arms until due
    this.timer = setTimeout(this.fire, Math.max(0, Math.ceil((first - monoNs()) / 1e6)));
    this.timer.unref();
  }

  private readonly fire = (): void => {
    this.timer = null;
    const now = monoNs();
    let n = 0;
    while (n < this.heldAt.length && this.heldAt[n]! <= now) n++;
    this.heldAt.splice(0, n);
    const due = this.heldFn.splice(0, n);
    for (const fn of due) {
      try {
        fn();
      } catch {
        // a socket that closed meanwhile: the copy is lost, as on a wire
      }
    }
    this.armedFor = Number.POSITIVE_INFINITY;
    this.arm();
  };

  /** The leg ended: its timer stops and what is held is dropped. */
  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.heldAt.length = 0;
    this.heldFn.length = 0;
  }
}

/**
 * A leg's link, installed on its peer before its first connectivity check: the peer gathers its
 * candidates now (werift's setLocalDescription then gathers nothing more) and every UDP transport's
 * send is wrapped. Call after the remote offer is set (answerer) or the transceiver added (offerer).
 */
export async function linkLeg(
  pc: RTCPeerConnection,
  profile: LegLinkProfile,
  leg: number,
): Promise<LegLinkSend> {
  const l = new LegLinkSend(profile, leg);
  await gatherNow(pc);
  // a leg we could not impair must not pass for an impaired one
  if (l.wrap(pc) === 0) throw weriftInternals("the leg's UDP transports have no send to impair");
  return l;
}
