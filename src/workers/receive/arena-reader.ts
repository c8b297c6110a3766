// The arena receive path's reader (docs/definitions.md#receive-paths): one per thread, it reads
// every registered socket of the thread's viewers in batches into one arena (src/net/batch-read.ts)
// after libuv stopped reading them. Each datagram's arrival instant is the kernel's stamp that
// came with it, and its socket's drop count comes too (SO_RXQ_OVFL: docs/definitions.md#udp-drops).
// Media datagrams (core/wire/first-byte.ts) go at once to the head of their viewer's chain
// (chain.ts) as a view into the arena, valid during the call only: the intake only counts them.
// Anything else (STUN, DTLS) is copied and goes to werift with its source, each in a macrotask of
// its own and in arrival order, as libuv hands a socket's datagrams: werift's DTLS counts on its
// promises settling between two datagrams (a flight it gets twice in one synchronous run makes
// its server derive the keys again over the wrong transcript: test/unit/arena-handoff.test.ts).
// The thread sleeps until a socket of its set is ready (arena-pace.ts). A wake reads for at most
// READ_SLICE_NS, then the loop turns (NACKs, reports, ticks), and the set, still ready, wakes it again.
import type { Socket } from "node:dgram";
import { performance } from "node:perf_hooks";
import { monoNs } from "../../core/clock/clock.ts";
import { isMediaByte } from "../../core/wire/first-byte.ts";
import { BATCH, DatagramArena, ReadySet, stopLibuvReading } from "../../net/batch-read.ts";
import { realToMonoNs, socketFd } from "../../net/kernel.ts";
import { SharedTransport } from "../../net/werift/shared-udp.ts";
import { beforeClose, hasClose, type UdpTransport } from "../../net/werift/transports.ts";
import { type Demux, deliver, deliverOwn, nobody, type OtherHandler, type Route } from "./arena-demux.ts";
import { ArenaPace } from "./arena-pace.ts";
import type { Intake } from "./intake.ts";
import type { ChainHead } from "./stages.ts";

export type { Demux, DemuxTarget, OtherHandler } from "./arena-demux.ts";

/** Longest run of reading and processing before the loop may turn (1 ms). */
const READ_SLICE_NS = 1e6;

/** One per thread, in its context (../thread.ts). */
export class ArenaReader {
  private readonly arena = new DatagramArena();
  private readonly set = new ReadySet();
  private readonly routes = new Map<number, Route>();
  private readonly ready = new Int32Array(256);
  private readonly stamp = new Float64Array(2);
  private nextToken = 1;
  private resumed = false;
  /** drops of the sockets that left the reader */
  private leftDrops = 0;
  /** when it looks at the set: when a socket is ready (a timer where that cannot run) */
  readonly pace = new ArenaPace(this.set.fd, () => this.poll());
  private readonly intake: Intake;

  constructor(intake: Intake) {
    this.intake = intake;
  }

  /** Sockets registered now (tests, diagnostics). */
  get registered(): number {
    return this.routes.size;
  }

  /** Datagrams dropped on the sockets it read, as their datagrams told (SO_RXQ_OVFL; cumulative). */
  get socketDrops(): number {
    let n = this.leftDrops;
    for (const r of this.routes.values()) n += r.drops;
    return n;
  }

  /** Registers a socket; returns its removal, or why it could not be read in batches. */
  add(socket: Socket, media: ChainHead, other: OtherHandler): (() => void) | string {
    return this.register(socket, { fd: -1, media, other, demux: null, removed: false, drops: 0 });
  }

  /** Registers a socket shared by several viewers; returns its removal, or why it could not. */
  addShared(socket: Socket, demux: Demux): (() => void) | string {
    return this.register(socket, { fd: -1, media: null, other: nobody, demux, removed: false, drops: 0 });
  }

  private register(socket: Socket, route: Route): (() => void) | string {
    const fd = socketFd(socket);
    if (fd < 0) return "the socket's descriptor could not be read";
    const token = this.nextToken++;
    const why = this.set.add(fd, token);
    if (why !== null) return why;
    if (!stopLibuvReading(socket)) {
      this.set.remove(fd);
      return "libuv's reading of the socket could not be stopped";
    }
    route.fd = fd;
    this.routes.set(token, route);
    this.pace.added();
    return () => {
      if (route.removed) return;
      route.removed = true;
      this.set.remove(fd);
      this.routes.delete(token);
      this.leftDrops += route.drops;
      if (this.routes.size === 0) this.pace.emptied();
    };
  }

  private readonly poll = (): void => {
    this.resumed = false;
    const startNs = monoNs();
    const n = this.set.ready(this.ready);
    this.pace.polled(n);
    for (let i = 0; i < n; i++) {
      const route = this.routes.get(this.ready[i]!);
      if (route === undefined) continue;
      this.drain(route, startNs);
      if (monoNs() - startNs > READ_SLICE_NS && i + 1 < n) {
        // the rest stay ready in the kernel: read after the loop has turned (a ready set wakes again)
        if (!this.resumed && !this.pace.watching) {
          this.resumed = true;
          setImmediate(this.poll);
        }
        return;
      }
    }
    this.intake.mark();
  };

  /**
   * Reads one socket until it has nothing more, or after two full batches (fairness to the
   * others; a shared socket, which is every viewer's, until the slice is spent).
   */
  private drain(route: Route, pollStartNs: number): void {
    const arena = this.arena;
    const rounds = route.demux === null ? 2 : Number.POSITIVE_INFINITY;
    for (let round = 0; round < rounds; round++) {
      if (round > 1 && monoNs() - pollStartNs > READ_SLICE_NS) break;
      const got = arena.read(route.fd);
      if (got <= 0) return;
      // one monotonic reading per batch; per datagram the high-resolution clock's elapsed time
      const readNs = monoNs();
      const perf0 = performance.now();
      for (let j = 0; j < got; j++) {
        const len = arena.length(j);
        const data = arena.slots[j]!;
        const media = isMediaByte(data[0]!);
        const startNs = readNs + (performance.now() - perf0) * 1e6;
        const kernel = arena.stamp(j, this.stamp);
        if (arena.drops > route.drops) route.drops = arena.drops;
        const at = kernel ? realToMonoNs(this.stamp[0]!, this.stamp[1]!, readNs) : readNs;
        let head = route.media;
        const demux = route.demux;
        if (demux !== null) {
          const to = demux.find(arena.sourceIp4(j), arena.sourcePort(j));
          if (to === null || to.media === null || !media) {
            const copy = Buffer.from(data.subarray(0, len));
            const from = arena.source(j);
            const whose = to ?? demux.claim(copy, from);
            // a server's first media, read before the viewer's SRTP started: werift hands it on
            const stampNs = kernel && media ? at : -1;
            if (whose !== null) setImmediate(deliver, this.intake, whose, copy, from, stampNs);
            continue;
          }
          head = to.media;
        }
        if (media && head !== null) {
          this.intake.arrived(at, readNs, startNs, kernel, data, arena.sourcePort(j));
          try {
            head.receive(data, len, at);
          } catch {
            // the viewer's own failure (counted there)
          }
        } else {
          setImmediate(deliverOwn, route, Buffer.from(data.subarray(0, len)), arena.source(j));
        }
      }
      if (got < BATCH) return;
    }
    if (!this.resumed && !this.pace.watching) {
      this.resumed = true;
      setImmediate(this.poll);
    }
  }
}

/**
 * Hands a UDP transport's reading to the thread's arena reader: media to `head`, the rest to
 * `other`, werift's own handler. Its socket leaves the reader's set before werift closes it (the
 * transport's close), so the reader never reads a descriptor that is no longer this viewer's.
 * False, with the reason kept, where batched reads cannot run: the caller then routes it itself.
 * A transport on the thread's shared socket (socket-sharing.ts) is read already; its media go to
 * `head` from now on.
 */
export function readInArena(
  thread: { readonly intake: Intake; arena(): ArenaReader | string },
  t: UdpTransport,
  head: ChainHead,
  other: OtherHandler,
): boolean {
  const intake = thread.intake;
  if (!intake.wantKernel) {
    // batched reads carry the kernel's stamps; the thread's own (forced) need the lean path
    intake.stats.readBy("dgram", "the thread's own stamps (stampSource thread) are taken on the lean path");
    return false;
  }
  if (t instanceof SharedTransport) {
    // the thread's shared socket is read already: its media now go to the viewer's chain
    t.media = head;
    intake.stats.readBy("arena");
    return true;
  }
  const reader = thread.arena();
  const socket = t.socket;
  if (typeof reader === "string" || socket === undefined || !hasClose(t)) {
    intake.stats.readBy(
      "dgram",
      typeof reader === "string" ? reader : "the transport has no socket or close",
    );
    return false;
  }
  const remove = reader.add(socket, head, other);
  if (typeof remove === "string") {
    intake.stats.readBy("dgram", remove);
    return false;
  }
  intake.stats.readBy("arena");
  beforeClose(t, remove);
  socket.once("close", remove);
  return true;
}
