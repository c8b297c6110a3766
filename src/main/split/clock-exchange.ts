// The UDP clock exchange on sockets (docs/definitions.md#clock-exchange): `publish --clock-listen`
// answers, `view --clock-peer` measures. Addresses never reach an error message: the UDP layer's
// errors are replaced by fixed texts.

import { randomInt } from "node:crypto";
import { createSocket, type Socket } from "node:dgram";
import { monoNs, type WallAnchor, wallOf } from "../../core/clock/clock.ts";
import {
  bestProbe,
  CLOCK_PACKET_BYTES,
  decodeResponse,
  encodeRequest,
  encodeResponse,
  isRequest,
  type Probe,
  probeOf,
} from "../../core/clock/exchange.ts";
import { ClockPeerError, RunError } from "../../core/errors.ts";
import { sleepUnless } from "../process/exit.ts";

function wallBig(anchor: WallAnchor): bigint {
  return BigInt(Math.round(wallOf(anchor, monoNs())));
}

export interface Responder {
  port: number;
  close(): Promise<void>;
}

/** Answers well-formed requests only; anything else is dropped silently. */
export async function startResponder(host: string, port: number, anchor: WallAnchor): Promise<Responder> {
  const sock = createSocket(host.includes(":") ? "udp6" : "udp4");
  sock.on("message", (msg, rinfo) => {
    const t2 = wallBig(anchor);
    if (!isRequest(msg)) return;
    const out = encodeResponse(msg, t2, 0n);
    out.writeBigInt64BE(wallBig(anchor), 24);
    sock.send(out, rinfo.port, rinfo.address);
  });
  sock.on("error", () => {});
  await new Promise<void>((resolve, reject) => {
    sock.once("error", (err) => reject(new RunError("cannot listen for the clock exchange", { cause: err })));
    sock.bind(port, host === "" ? undefined : host, () => resolve());
  });
  return {
    port: sock.address().port,
    close: () => new Promise((resolve) => sock.close(() => resolve())),
  };
}

/** A client socket for the clock exchange, reused for every point of a run. */
export class ClockClient {
  private readonly sock: Socket;
  private readonly pending = new Map<number, { t1Wall: bigint; t1Mono: number }>();
  private probes: Probe[] = [];
  private readonly anchor: WallAnchor;

  private constructor(sock: Socket, anchor: WallAnchor) {
    this.sock = sock;
    this.anchor = anchor;
    sock.on("message", (msg) => {
      const t4 = monoNs();
      const r = decodeResponse(msg);
      if (!r) return;
      const sent = this.pending.get(r.nonce);
      // stale, duplicate or forged answers: nonce not pending, or t1 not the one we sent
      if (!sent || sent.t1Wall !== r.t1WallNs) return;
      this.pending.delete(r.nonce);
      const p = probeOf(r, sent.t1Mono, t4);
      if (p) this.probes.push(p);
    });
    sock.on("error", () => {});
  }

  static async open(anchor: WallAnchor, ipv6 = false): Promise<ClockClient> {
    const sock = createSocket(ipv6 ? "udp6" : "udp4");
    await new Promise<void>((resolve, reject) => {
      sock.once("error", () => reject(new ClockPeerError("no UDP socket for the clock exchange")));
      sock.bind(0, () => resolve());
    });
    return new ClockClient(sock, anchor);
  }

  /**
   * One point: `count` probes `spacingMs` apart; returns when all answered or 1 s after the last
   * was sent (or at `signal`, with the best so far). Throws when nothing answered.
   */
  async measure(
    host: string,
    port: number,
    signal?: AbortSignal,
    count = 16,
    spacingMs = 10,
  ): Promise<Probe> {
    this.probes = [];
    this.pending.clear();
    const base = randomInt(0, 0xffff_ffff);
    const buf = Buffer.alloc(CLOCK_PACKET_BYTES);
    for (let i = 0; i < count && !signal?.aborted; i++) {
      const nonce = (base + i) >>> 0;
      const t1Mono = monoNs();
      const t1Wall = BigInt(Math.round(wallOf(this.anchor, t1Mono)));
      encodeRequest(nonce, t1Wall, buf);
      this.pending.set(nonce, { t1Wall, t1Mono });
      this.sock.send(buf, port, host);
      if (i < count - 1) await sleepUnless(spacingMs, signal);
    }
    const until = monoNs() + 1e9;
    while (this.pending.size > 0 && monoNs() < until && !signal?.aborted) await sleepUnless(5, signal);
    this.pending.clear();
    const best = bestProbe(this.probes);
    if (!best) throw new ClockPeerError("the clock peer did not answer");
    return best;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.sock.close(() => resolve()));
  }
}
