// Whether this viewer thread's arena-path viewers share one UDP socket, and that socket
// (docs/definitions.md#receive-paths): one recvmmsg then reads every viewer's datagrams, told apart
// by the address the server sends from (its session's own port). Each viewer's ICE gets a
// transport of ours (SharedTransport, the werift seam's net/werift/shared-udp.ts) in place of its
// own socket; a server's first check, before we sent to it, is routed by its USERNAME (our ufrag).
// Decided once per thread (in its context, ../thread.ts): its first two viewers probe with sockets
// of their own, and sharing starts when their media came from two addresses. It stays off, with
// the reason, where the server sent both from one address, ICE gathers on more than one address,
// the thread's stamps are its own, batched reads cannot run, or the server answered two viewers
// of the shared socket from one address.
import { createSocket, type Socket } from "node:dgram";
import { isIPv4 } from "node:net";
import { errorMessage } from "../../core/errors.ts";
import type { ViewerSockets } from "../../core/scenario/defaults.ts";
import { SourceTable } from "../../core/wire/sources.ts";
import { ip4, stunUsername } from "../../core/wire/stun.ts";
import { growReceiveBuffer } from "../../net/batch-read.ts";
import { socketFd } from "../../net/kernel.ts";
import type { IceOptions } from "../../net/rtc.ts";
import type { RTCPeerConnection } from "../../net/werift/api.ts";
import {
  provideTransports,
  SharedTransport,
  type TransportHost,
  type TransportRequest,
} from "../../net/werift/shared-udp.ts";
import type { UdpTransport } from "../../net/werift/transports.ts";
import { gather } from "../../net/write-gather.ts";
import type { ShardProfile } from "../protocol.ts";
import type { ArenaReader, Demux } from "./arena-reader.ts";
import type { Intake } from "./intake.ts";

/** The shared socket's receive buffer asked for: ~0.5 s of 1 000 viewers' media on loopback. */
export const SHARED_RCVBUF = 32 << 20;
const DONE: Promise<void> = Promise.resolve();

/** One bound socket shared by a thread's viewers, and who receives what arrives on it. */
export class SharedSocket implements Demux, TransportHost {
  readonly address: { address: string; port: number; family: string };
  private readonly bySource = new SourceTable<SharedTransport>();
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
    const a = socket.address();
    this.address = { address: a.address, port: a.port, family: "IPv4" };
    // a failed send is emitted here (unheard it ends the thread); its loss shows in the viewer's figures
    socket.on("error", () => {});
    // the thread's viewers and timers keep it alive, not this socket
    socket.unref();
  }

  /** Binds a socket on `address`; `onMembers` hears the count of viewers on it as it changes. */
  static open(address: string, onMembers: (n: number) => void): Promise<SharedSocket> {
    const socket = createSocket("udp4");
    return new Promise((resolve, reject) => {
      socket.once("error", reject).bind({ address, port: 0 }, () => {
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
    for (let i = 0; i < s.length; i += 2) this.bySource.remove(s[i]!, s[i + 1]!, t);
    s.length = 0;
    if (this.byUfrag.get(t.ufrag) === t) this.byUfrag.delete(t.ufrag);
    this.onMembers(this.byUfrag.size);
  }

  find(ip: number, port: number): SharedTransport | null {
    return this.bySource.find(ip, port);
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
    if (isIPv4(host) && !this.register(t, ip4(host), port)) return DONE;
    if (!gather(this.socket, data, host, port)) this.socket.send(data, port, host);
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
    this.bySource.add(ip, port, t);
    t.sources.push(ip, port);
    return true;
  }

  close(): void {
    try {
      this.socket.close();
    } catch {
      // already closed
    }
  }
}

/**
 * `pc`'s ICE asks the shared socket for its UDP transports as it gathers; false where werift had
 * no connection to give it.
 */
export function provideShared(pc: RTCPeerConnection, hub: SharedSocket): boolean {
  const provider = (req: TransportRequest) =>
    req.type !== "udp4" || req.portRange || req.bindAddress !== hub.address.address
      ? null
      : hub.join(req.ufrag);
  return provideTransports(pc, provider) > 0;
}

/** Where a thread's shared socket is bound: loopback-only ICE's one host address. */
const LOOPBACK = "127.0.0.1";

/**
 * What a viewer thread says of its viewers' sockets (the report's client.workers[]): the
 * unrouted count is written wherever viewerSockets is, 0 on a thread that never shared.
 */
export type SocketsRan = Required<Pick<ShardProfile, "viewerSockets" | "unroutedDatagrams">> &
  Pick<ShardProfile, "viewerSocketsReason">;

export class SocketSharing {
  private state: "probing" | "opening" | "shared" | "off" = "probing";
  private reason = "";
  private first: string | null = null;
  private hub: SharedSocket | null = null;
  private removeRoute: (() => void) | null = null;
  private shards = 0;
  /** viewers given a transport on the shared socket, and those that kept their own */
  shared = 0;
  own = 0;
  /** the unrouted datagrams of shared sockets closed during this thread's shards */
  private unrouted = 0;
  private readonly intake: Intake;
  private readonly arena: () => ArenaReader | string;

  constructor(intake: Intake, arena: () => ArenaReader | string) {
    this.intake = intake;
    this.arena = arena;
  }

  /**
   * A shard starts on this thread. The first of the thread's shards running at once (in-thread
   * runs may run several: tests, benches) probes again, perhaps another server.
   */
  begin(mode: ViewerSockets): void {
    if (this.shards++ === 0) {
      this.state = "probing";
      this.reason = "";
      this.first = null;
      this.shared = 0;
      this.own = 0;
      this.unrouted = 0;
    }
    if (mode === "own") this.stop("the scenario asks for a socket per viewer (viewerSockets own)");
  }

  /** A shard ended; after the last, the shared socket closes (its viewers have all closed). */
  end(): void {
    if (--this.shards > 0) return;
    this.shards = 0;
    this.removeRoute?.();
    this.removeRoute = null;
    this.unrouted += this.hub?.unrouted ?? 0;
    this.hub?.close();
    this.hub = null;
  }

  /** A new arena-path viewer's peer (before it gathers): on the shared socket where it is on. */
  offer(pc: RTCPeerConnection, ice: IceOptions): void {
    if (this.state === "off") return;
    const why = this.blocked(ice);
    if (why !== null) {
      this.stop(why);
      return;
    }
    if (this.state !== "shared" || this.hub === null) return;
    try {
      if (provideShared(pc, this.hub)) this.shared++;
    } catch (err) {
      this.stop(errorMessage(err));
    }
  }

  private blocked(ice: IceOptions): string | null {
    if (!ice.loopbackOnly) return "ICE gathers on every interface (loopbackOnly off)";
    if (!this.intake.wantKernel)
      return "the thread's own stamps (stampSource thread) are taken on the lean path";
    const reader = this.arena();
    if (typeof reader === "string") return reader;
    if (this.hub !== null && this.hub.collisions > 0)
      return "the server answered two viewers of the shared socket from one address";
    return null;
  }

  /** A viewer with a socket of its own was read in batches: where its media came from. */
  observe(t: UdpTransport): void {
    if (t instanceof SharedTransport) return;
    this.own++;
    const from = t.rinfo;
    if (this.state !== "probing" || from?.address === undefined) return;
    const source = `${from.address}:${from.port}`;
    if (this.first === null) {
      this.first = source;
      return;
    }
    if (source === this.first) {
      this.stop("the server sent two viewers' media from one address (one port for every session)");
      return;
    }
    this.state = "opening";
    SharedSocket.open(LOOPBACK, (n) => this.members(n)).then(
      (hub) => {
        if (this.state !== "opening" || this.shards === 0) {
          hub.close();
          return;
        }
        this.hub = hub;
        this.state = "shared";
      },
      (err: unknown) => this.stop(`the shared socket could not be bound (${errorMessage(err)})`),
    );
  }

  /** The shared socket is read while it has viewers. */
  private members(n: number): void {
    const hub = this.hub;
    if (hub === null) return;
    if (n > 0 && this.removeRoute === null) {
      const reader = this.arena();
      const remove = typeof reader === "string" ? reader : reader.addShared(hub.socket, hub);
      if (typeof remove === "string") this.stop(remove);
      else this.removeRoute = remove;
    } else if (n === 0 && this.removeRoute !== null) {
      this.removeRoute();
      this.removeRoute = null;
    }
  }

  private stop(why: string): void {
    if (this.state !== "off") this.reason = why;
    this.state = "off";
  }

  /** What ran, for the thread's record (arena path only). */
  ran(): SocketsRan {
    const unroutedDatagrams = this.unrouted + (this.hub?.unrouted ?? 0);
    if (this.own === 0 && this.shared > 0) return { viewerSockets: "shared", unroutedDatagrams };
    const probing = "the thread's first viewers probe the server with sockets of their own";
    const viewerSocketsReason = this.state === "off" ? this.reason : probing;
    return { viewerSockets: this.shared === 0 ? "own" : "mixed", viewerSocketsReason, unroutedDatagrams };
  }

  /** The shared socket's counters (tests, diagnostics). */
  counters(): Pick<SharedSocket, "unrouted" | "collisions" | "members"> | null {
    const h = this.hub;
    return h === null ? null : { unrouted: h.unrouted, collisions: h.collisions, members: h.members };
  }
}
