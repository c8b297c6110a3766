// Where werift's ICE makes a UDP transport, a peer may be given one of ours instead
// (SharedTransport, on the viewer thread's shared socket: src/workers/receive/socket-sharing.ts). werift
// 0.25.2 internals used: Connection.prototype.getCandidatePromises (which makes a StunProtocol
// per host address and calls UdpTransport.init for it synchronously, before its first await),
// Connection.{options.interfaceAddresses, localUsername}, RTCPeerConnection.iceTransports[]
// .connection and the static UdpTransport.init(type, {portRange, interfaceAddresses}) with the
// transport's shape (type, socketType, closed, rinfo, onData, send, close, address, host, port,
// addressFamily).

import { Connection, UdpTransport } from "werift";
import type { RTCPeerConnection } from "./api.ts";
import type { UdpReceive } from "./transports.ts";
import { weriftInternals } from "./version.ts";

/** The head of a viewer's receive chain: a media datagram of `length` bytes at the start of `data`. */
export interface MediaStage {
  receive(data: Buffer, length: number, arrivalNs: number): void;
}

/** Where a SharedTransport's socket is: it sends for the transport and hears that it closed. */
export interface TransportHost {
  readonly address: { address: string; port: number; family: string };
  send(t: SharedTransport, data: unknown, addr: unknown): Promise<void>;
  leave(t: SharedTransport): void;
}

const DONE: Promise<void> = Promise.resolve();

/** A viewer's ICE transport on the thread's shared socket: werift's UdpTransport, as werift uses it. */
export class SharedTransport {
  readonly type = "udp";
  readonly socketType = "udp4";
  readonly options = {};
  closed = false;
  rinfo: { address: string; port: number } | undefined;
  /** werift's handler (the STUN protocol's), wrapped by links and the lean path as for werift's own */
  onData: UdpReceive = () => {};
  /** the head of this viewer's chain once its SRTP runs (arena path); null: they go to onData */
  media: MediaStage | null = null;
  /** the sources registered for it, (ip, port) pairs */
  readonly sources: number[] = [];

  private readonly hub: TransportHost;
  readonly ufrag: string;

  constructor(hub: TransportHost, ufrag: string) {
    this.hub = hub;
    this.ufrag = ufrag;
  }

  send = (data: unknown, addr: unknown): Promise<void> => this.hub.send(this, data, addr);

  close = (): Promise<void> => {
    if (!this.closed) {
      this.closed = true;
      this.media = null;
      this.hub.leave(this);
    }
    return DONE;
  };

  /** A datagram that is not this viewer's media (or all of them before its SRTP runs): werift's. */
  other(data: Buffer, from: [string, number]): void {
    // handed over a macrotask after it was read: the viewer may have closed since
    if (this.closed) return;
    this.rinfo = { address: from[0], port: from[1] };
    this.onData(data, from);
  }

  get address(): { address: string; port: number; family: string } {
    return this.hub.address;
  }
  get host(): string {
    return this.hub.address.address;
  }
  get port(): number {
    return this.hub.address.port;
  }
  get addressFamily(): number {
    return 4;
  }
}

/** What a provider is told of the transport werift is about to make. */
export interface TransportRequest {
  /** "udp4" or "udp6" */
  type: string;
  /** the address werift would bind (its interfaceAddresses' entry for the family), if any */
  bindAddress: string | undefined;
  /** the ICE connection's local username fragment (the USERNAME of the server's checks to us) */
  ufrag: string;
  /** werift was asked for a port range */
  portRange: boolean;
}

/** Makes the transport for a request, or null: werift makes its own. */
export type TransportProvider = (req: TransportRequest) => object | null;

type GatherFn = (this: Connection, ...args: unknown[]) => unknown;
type InitFn = (
  type: string,
  opts?: { portRange?: unknown; interfaceAddresses?: unknown },
) => Promise<unknown>;

const providers = new WeakMap<object, TransportProvider>();
/** the connection whose getCandidatePromises is running now (synchronously) */
let gathering: { conn: Connection; provider: TransportProvider } | null = null;
let installed = false;

function install(): void {
  if (installed) return;
  const proto = Connection.prototype as unknown as { getCandidatePromises?: GatherFn };
  const gather = proto.getCandidatePromises;
  const cls = UdpTransport as unknown as { init?: InitFn };
  const init = cls.init;
  if (typeof gather !== "function" || typeof init !== "function") {
    throw weriftInternals(
      "Connection.getCandidatePromises or UdpTransport.init is missing: shared sockets cannot be given",
    );
  }
  installed = true;
  proto.getCandidatePromises = function (this: Connection, ...args: unknown[]): unknown {
    const provider = providers.get(this);
    if (provider === undefined) return gather.apply(this, args);
    gathering = { conn: this, provider };
    try {
      return gather.apply(this, args);
    } finally {
      gathering = null;
    }
  };
  cls.init = function (this: unknown, type: string, opts = {}): Promise<unknown> {
    const g = gathering;
    if (g !== null) {
      const self = g.conn as unknown as { localUsername?: unknown };
      const ifs = opts.interfaceAddresses as Record<string, string> | undefined;
      const t = g.provider({
        type,
        bindAddress: ifs?.[type],
        ufrag: typeof self.localUsername === "string" ? self.localUsername : "",
        portRange: opts.portRange !== undefined,
      });
      if (t !== null) return Promise.resolve(t);
    }
    return init.call(this, type, opts);
  };
}

/**
 * The peer's ICE connections (those it has now: call after its transceivers are added, or
 * after the remote offer) ask `provider` for their UDP transports when they gather. Throws
 * WeriftInternalsError where werift's internals do not match; returns how many were marked.
 */
export function provideTransports(pc: RTCPeerConnection, provider: TransportProvider): number {
  install();
  const ice = (pc as unknown as { iceTransports?: { connection?: object }[] }).iceTransports;
  let n = 0;
  for (const it of ice ?? []) {
    if (it.connection === undefined) continue;
    providers.set(it.connection, provider);
    n++;
  }
  return n;
}
