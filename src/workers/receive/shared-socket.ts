// The viewer thread's shared socket on the arena path (docs/definitions.md#receive-paths): the
// viewers of one thread gather their host candidate on one UDP socket, told apart by the address
// the server sends from (its session's own port), so one recvmmsg reads every viewer's datagrams
// at once instead of one per viewer. Each viewer's ICE connection gets a transport of ours
// (SharedTransport) in place of werift's own UDP socket; werift's STUN, DTLS and sends go through
// it unchanged. A server's first check may come before we sent to it: it is routed by the
// USERNAME it carries (our ICE ufrag first). Only a server that gives each session its own
// address can be told apart this way, so the thread first probes: its first two viewers keep
// their own sockets, and sharing starts only once their media came from two addresses.
import { createSocket, type Socket } from "node:dgram";
import { isIPv4 } from "node:net";
import { growReceiveBuffer } from "../../net/batch-read.ts";
import { socketFd } from "../../net/kernel.ts";
import type { RTCPeerConnection } from "../../net/werift/api.ts";
import {
  provideTransports,
  SharedTransport,
  type TransportHost,
  type TransportRequest,
} from "../../net/werift/shared-udp.ts";
import type { Demux } from "./arena-reader.ts";

/** The shared socket's receive buffer asked for: ~0.5 s of 1 000 viewers' media on loopback. */
export const SHARED_RCVBUF = 32 << 20;
const DONE: Promise<void> = Promise.resolve();

interface Entry {
  ip: number;
  t: SharedTransport;
  next: Entry | null;
}

/** 127.0.0.1 → 0x7f000001. */
function ip4(s: string): number {
  const p = s.split(".");
  return ((+p[0]! << 24) >>> 0) + (+p[1]! << 16) + (+p[2]! << 8) + +p[3]!;
}

/** The USERNAME of a STUN request (RFC 8489 section 14.3), or null. */
export function stunUsername(d: Buffer): string | null {
  if (d.length < 20 || d[0]! > 1 || d.readUInt32BE(4) !== 0x2112a442) return null;
  let at = 20;
  const end = Math.min(d.length, 20 + d.readUInt16BE(2));
  while (at + 4 <= end) {
    const type = d.readUInt16BE(at);
    const len = d.readUInt16BE(at + 2);
    if (type === 0x0006) return at + 4 + len <= end ? d.toString("utf8", at + 4, at + 4 + len) : null;
    at += 4 + ((len + 3) & ~3);
  }
  return null;
}

/** One bound socket shared by a thread's viewers, and who receives what arrives on it. */
export class SharedSocket implements Demux, TransportHost {
  readonly fd: number;
  readonly address: { address: string; port: number; family: string };
  private readonly byPort = new Map<number, Entry>();
  private readonly byUfrag = new Map<string, SharedTransport>();
  /** datagrams from a source no viewer has (dropped) */
  unrouted = 0;
  /** a source that two viewers sent to (the server answered both from one address) */
  collisions = 0;

  readonly socket: Socket;
  private readonly onMembers: (n: number) => void;

  private constructor(socket: Socket, onMembers: (n: number) => void) {
    this.socket = socket;
    this.onMembers = onMembers;
    this.fd = socketFd(socket);
    const a = socket.address();
    this.address = { address: a.address, port: a.port, family: "IPv4" };
    // a failed send is emitted here (without a listener it would end the thread); what it lost
    // shows in the viewer's own figures, as on a socket of its own
    socket.on("error", () => {});
    // the thread's viewers and timers keep it alive, not this socket
    socket.unref();
  }

  /** Binds a socket on `address`; `onMembers` hears the count of viewers on it as it changes. */
  static open(address: string, onMembers: (n: number) => void): Promise<SharedSocket> {
    return new Promise((resolve, reject) => {
      const socket = createSocket("udp4");
      socket.once("error", reject);
      socket.bind({ address, port: 0 }, () => {
        socket.off("error", reject);
        growReceiveBuffer(socketFd(socket), SHARED_RCVBUF);
        resolve(new SharedSocket(socket, onMembers));
      });
    });
  }

  get members(): number {
    return this.byUfrag.size;
  }

  /** A new viewer's transport, or null where its ufrag already has one (a second candidate). */
  join(ufrag: string): SharedTransport | null {
    if (ufrag === "" || this.byUfrag.has(ufrag)) return null;
    const t = new SharedTransport(this, ufrag);
    this.byUfrag.set(ufrag, t);
    this.onMembers(this.byUfrag.size);
    return t;
  }

  leave(t: SharedTransport): void {
    const s = t.sources;
    for (let i = 0; i < s.length; i += 2) this.unlink(s[i]!, s[i + 1]!, t);
    s.length = 0;
    if (this.byUfrag.get(t.ufrag) === t) this.byUfrag.delete(t.ufrag);
    this.onMembers(this.byUfrag.size);
  }

  find(ip: number, port: number): SharedTransport | null {
    for (let e = this.byPort.get(port) ?? null; e !== null; e = e.next) if (e.ip === ip) return e.t;
    return null;
  }

  /** A datagram from a source nobody sent to yet: a STUN check names its viewer by USERNAME. */
  claim(data: Buffer, from: [string, number]): SharedTransport | null {
    const user = stunUsername(data);
    const t = user === null ? undefined : this.byUfrag.get(user.split(":")[0]!);
    if (t === undefined || t.closed || !isIPv4(from[0]) || !this.register(t, ip4(from[0]), from[1])) {
      this.unrouted++;
      return null;
    }
    return t;
  }

  send(t: SharedTransport, data: unknown, addr: unknown): Promise<void> {
    if (t.closed) return DONE;
    const a = Array.isArray(addr) ? (addr as [string, number]) : undefined;
    const host = a?.[0] ?? t.rinfo?.address;
    const port = a?.[1] ?? t.rinfo?.port;
    if (typeof host !== "string" || typeof port !== "number" || !Buffer.isBuffer(data)) return DONE;
    if (isIPv4(host)) {
      const ip = ip4(host);
      if (this.find(ip, port) !== t && !this.register(t, ip, port)) return DONE;
    }
    this.socket.send(data, port, host);
    return DONE;
  }

  /** `t` receives what comes from (ip, port); false where another viewer already does. */
  private register(t: SharedTransport, ip: number, port: number): boolean {
    const owner = this.find(ip, port);
    if (owner === t) return true;
    if (owner !== null) {
      this.collisions++;
      return false;
    }
    this.byPort.set(port, { ip, t, next: this.byPort.get(port) ?? null });
    t.sources.push(ip, port);
    return true;
  }

  private unlink(ip: number, port: number, t: SharedTransport): void {
    let prev: Entry | null = null;
    for (let e = this.byPort.get(port) ?? null; e !== null; prev = e, e = e.next) {
      if (e.ip !== ip || e.t !== t) continue;
      if (prev !== null) prev.next = e.next;
      else if (e.next !== null) this.byPort.set(port, e.next);
      else this.byPort.delete(port);
      return;
    }
  }

  close(): void {
    try {
      this.socket.close();
    } catch {
      // already closed
    }
  }
}

/** Hands out the shared socket's transports as werift asks for them. */
export function sharedProvider(hub: SharedSocket): (req: TransportRequest) => object | null {
  return (req) => {
    if (req.type !== "udp4" || req.portRange || req.bindAddress !== hub.address.address) return null;
    return hub.join(req.ufrag);
  };
}

/** Whether `pc`'s ICE got the provider; false where werift had no connection to give it. */
export function provideShared(pc: RTCPeerConnection, hub: SharedSocket): boolean {
  return provideTransports(pc, sharedProvider(hub)) > 0;
}
