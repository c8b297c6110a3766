// The relay's send path alone, in this process (bench:relay's first table): N legs, each with a
// socket of its own sending to its viewer's socket on 127.0.0.1, one publisher frame of K packets
// of 1 100 B forwarded to every leg per round. `native`: the relay's fan-out (src/main/relay/
// native.ts: header, OpenSSL protect in place, one sendmmsg per leg per frame); `werift`: what
// werift's sender does at least per leg and packet (a header and packet object, werift's SRTP
// session's protect, one dgram send) — a floor of today's path, its promise chain and ICE layers
// not counted. CPU of this process over the synchronous forwarding loop only, per forwarded packet;
// the viewers' sockets are drained between rounds, outside the measurement.
import { createSocket, type Socket } from "node:dgram";
import { RtpHeader, RtpPacket, SrtpSession } from "werift";
import { SRTP_AEAD_AES_128_GCM } from "../src/core/srtp/kdf.ts";
import type { LegPacket } from "../src/main/relay/leg-faults.ts";
import { NativeFanout, NativeLeg } from "../src/main/relay/native.ts";
import { growReceiveBuffer } from "../src/net/batch-read.ts";
import { socketFd } from "../src/net/kernel.ts";

const bind = (): Promise<Socket> =>
  new Promise((resolve) => {
    const s = createSocket("udp4");
    s.bind(0, "127.0.0.1", () => resolve(s));
  });

const KEY = Buffer.alloc(16, 0x11);
const SALT = Buffer.alloc(12, 0x22);

/** µs of process CPU per forwarded packet, per path, over `rounds` frames of `k` packets to `n` legs. */
export async function fanoutCost(
  n: number,
  k: number,
  rounds: number,
): Promise<{ native: number; werift: number }> {
  const legSockets: Socket[] = [];
  const viewers: Socket[] = [];
  for (let i = 0; i < n; i++) {
    legSockets.push(await bind());
    const v = await bind();
    growReceiveBuffer(socketFd(v), 4 << 20);
    v.on("message", () => {});
    viewers.push(v);
  }
  const fan = new NativeFanout();
  const legs = legSockets.map((s, i) => {
    const leg = { absId: 2 };
    const port = viewers[i]!.address().port;
    return new NativeLeg(leg, {
      fd: socketFd(s),
      ip: 0x7f000001,
      port,
      profile: SRTP_AEAD_AES_128_GCM,
      localMasterKey: KEY,
      localMasterSalt: SALT,
      ssrc: 1000 + i,
      payloadType: 96,
      rtxPayloadType: -1,
      rtxSsrc: 0,
      twccId: 0,
      live: () => true,
      sent: () => {},
      onNack: () => {},
      retransmitted: () => {},
    });
  });
  const sessions = legs.map(
    () =>
      new SrtpSession({
        keys: { localMasterKey: KEY, localMasterSalt: SALT, remoteMasterKey: KEY, remoteMasterSalt: SALT },
        profile: SRTP_AEAD_AES_128_GCM,
      }),
  );
  const abs = Buffer.alloc(8, 3);
  const cpu = { native: 0, werift: 0 };
  let seq = 0;
  for (let r = 0; r < rounds; r++) {
    for (const path of r % 2 === 0 ? (["native", "werift"] as const) : (["werift", "native"] as const)) {
      const frame: LegPacket[] = [];
      for (let j = 0; j < k; j++)
        frame.push({
          seq: seq++ & 0xffff,
          ts: r * 3000,
          marker: j === k - 1,
          payload: Buffer.alloc(1100, j),
          abs,
        });
      const c0 = process.cpuUsage();
      if (path === "native") {
        for (const p of frame) for (const l of legs) fan.queue(l, p);
        fan.flush();
      } else {
        for (let i = 0; i < n; i++) {
          for (const p of frame) {
            const h = new RtpHeader({
              sequenceNumber: p.seq,
              timestamp: p.ts,
              marker: p.marker,
              payloadType: 96,
              ssrc: 1000 + i,
            });
            h.extension = true;
            h.extensions = [{ id: 2, payload: abs }];
            const pkt = new RtpPacket(h, p.payload);
            legSockets[i]!.send(
              sessions[i]!.encrypt(pkt.payload, pkt.header),
              viewers[i]!.address().port,
              "127.0.0.1",
            );
          }
        }
      }
      const c = process.cpuUsage(c0);
      cpu[path] += c.user + c.system;
      // the viewers' sockets drain (and dgram's queued sends leave) outside the measurement
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  for (const s of [...legSockets, ...viewers]) s.close();
  const packets = n * k * rounds;
  return { native: cpu.native / packets, werift: cpu.werift / packets };
}
