// Whether this viewer thread's arena-path viewers share one socket (shared-socket.ts;
// docs/definitions.md#receive-paths), decided once per thread: its first two viewers probe
// the server with sockets of their own, and sharing starts when their media came from two
// addresses (a server that gives each session its own port). It stays off, with the reason,
// where the server sent both from one address, ICE gathers on more than one address, the
// thread's stamps are its own, batched reads cannot run, or a server answered two viewers of
// the shared socket from one address.
import { errorMessage } from "../../core/errors.ts";
import type { ViewerSockets } from "../../core/scenario/defaults.ts";
import type { IceOptions } from "../../net/rtc.ts";
import type { RTCPeerConnection } from "../../net/werift/api.ts";
import { SharedTransport } from "../../net/werift/shared-udp.ts";
import type { UdpTransport } from "../../net/werift/transports.ts";
import { arenaReader } from "./arena-reader.ts";
import { intake } from "./intake.ts";
import { provideShared, SharedSocket } from "./shared-socket.ts";

/** Where a thread's shared socket is bound: loopback-only ICE's one host address. */
const LOOPBACK = "127.0.0.1";

/** What a viewer thread says of its viewers' sockets (the report's client.workers[]). */
export interface SocketsRan {
  viewerSockets: "shared" | "own" | "mixed";
  viewerSocketsReason?: string;
  /**
   * datagrams the shared socket dropped: from a source no viewer had; 0 when none, and on a thread
   * that never shared (the count is written wherever viewerSockets is, so a report's keys do not
   * depend on whether a server happened to send late)
   */
  unroutedDatagrams: number;
}

class SocketSharing {
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
    if (!intake.wantKernel) return "the thread's own stamps (stampSource thread) are taken on the lean path";
    const reader = arenaReader();
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
      const reader = arenaReader();
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
    const why =
      this.state === "off"
        ? this.reason
        : "the thread's first viewers probe the server with sockets of their own";
    return {
      viewerSockets: this.shared === 0 ? "own" : "mixed",
      viewerSocketsReason: why,
      unroutedDatagrams,
    };
  }

  /** The shared socket's counters (tests, diagnostics). */
  counters(): { unrouted: number; collisions: number; members: number } | null {
    const h = this.hub;
    return h === null ? null : { unrouted: h.unrouted, collisions: h.collisions, members: h.members };
  }
}

/** This thread's decision. */
export const sharing = new SocketSharing();
