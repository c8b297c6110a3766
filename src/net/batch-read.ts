// Batched reads of UDP sockets through koffi (./koffi.ts; docs/definitions.md#receive-paths): one
// epoll set per thread and recvmmsg into one preallocated native arena, each datagram with the
// kernel's receive stamp as a control message (SO_TIMESTAMPNS) and its source address, so a
// read costs one syscall per batch and nothing is allocated per datagram. Linux x86-64 and arm64
// only (their struct layouts are written below). Where it cannot load, `batchReads()` says why.
import type { Socket } from "node:dgram";
import { RunError } from "../core/errors.ts";
import { kernelLibc } from "./kernel.ts";
import { type Koffi, NativeOnce, type NativeVerdict } from "./koffi.ts";

const SOL_SOCKET = 1;
const SO_TIMESTAMPNS = 35;
/** with each datagram, the socket's drop count so far (a uint32 control message) once it is non-zero */
const SO_RXQ_OVFL = 40;
const SO_RCVBUF = 8;
const SO_RCVBUFFORCE = 33;
const MSG_DONTWAIT = 0x40;
const EPOLLIN = 1;
const EPOLL_CTL_ADD = 1;
const EPOLL_CTL_DEL = 2;
const EAGAIN = 11;
/** Datagrams one recvmmsg may return. */
export const BATCH = 32;
/** Bytes of one datagram's slot: larger than an MTU-sized datagram. */
export const SLOT_BYTES = 2048;
const MMSG = 64; // struct mmsghdr (LP64)
const IOV = 16;
const NAME = 32; // sockaddr_in6 is 28
const CTL = 64; // cmsghdr (16) + timespec (16), then cmsghdr (16) + uint32 padded to 8
// struct epoll_event is packed on x86-64 (12 bytes), natural on arm64 (16)
const EV = process.arch === "x64" ? 12 : 16;
const EV_DATA = process.arch === "x64" ? 4 : 8;
const MAX_EVENTS = 256;

interface Native {
  recvmmsg: (fd: number, msgs: unknown, vlen: number, flags: number, timeout: null) => number;
  setsockopt: (fd: number, level: number, name: number, val: Int32Array, len: number) => number;
  epollCreate: (flags: number) => number;
  epollCtl: (ep: number, op: number, fd: number, ev: Uint8Array | null) => number;
  epollWait: (ep: number, evs: Uint8Array, max: number, timeoutMs: number) => number;
  close: (fd: number) => number;
  errno: () => number;
  koffi: Koffi;
}

const lib = new NativeOnce<Native>("libc's recvmmsg/epoll", () => {
  const l = kernelLibc();
  if (typeof l === "string") return l;
  const { koffi: kf, libc } = l;
  return {
    recvmmsg: libc.func(
      "int recvmmsg(int fd, void *msgs, unsigned int vlen, int flags, void *timeout)",
    ) as Native["recvmmsg"],
    setsockopt: libc.func(
      "int setsockopt(int fd, int level, int name, void *val, unsigned int len)",
    ) as Native["setsockopt"],
    epollCreate: libc.func("int epoll_create1(int flags)") as Native["epollCreate"],
    epollCtl: libc.func("int epoll_ctl(int ep, int op, int fd, void *ev)") as Native["epollCtl"],
    epollWait: libc.func("int epoll_wait(int ep, void *evs, int max, int timeout)") as Native["epollWait"],
    close: libc.func("int close(int fd)") as Native["close"],
    errno: () => kf.errno(),
    koffi: kf,
  };
});

/** Whether this thread can read its sockets in batches, and why not. */
export function batchReads(): NativeVerdict {
  return lib.load();
}

/**
 * Stops libuv reading a dgram socket (its handle's recvStop), so that only the batch reader
 * reads it; werift still sends through it. False when the handle is not reachable.
 */
export function stopLibuvReading(socket: Socket | undefined): boolean {
  if (socket === undefined) return false;
  const sym = Object.getOwnPropertySymbols(socket).find((s) => s.description === "state symbol");
  const handle =
    sym === undefined
      ? undefined
      : (socket as unknown as Record<symbol, { handle?: { recvStop?: unknown } }>)[sym]?.handle;
  if (typeof handle?.recvStop !== "function") return false;
  (handle.recvStop as () => number).call(handle);
  return true;
}

/**
 * Asks for a receive buffer of `bytes` on `fd`: past net.core.rmem_max where the process may
 * (SO_RCVBUFFORCE, CAP_NET_ADMIN), else up to rmem_max (SO_RCVBUF). False when both failed; the
 * size granted is the socket's getRecvBufferSize().
 */
export function growReceiveBuffer(fd: number, bytes: number): boolean {
  const n = lib.native;
  if (n === null || fd < 0) return false;
  const v = new Int32Array([bytes]);
  return (
    n.setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, v, 4) === 0 ||
    n.setsockopt(fd, SOL_SOCKET, SO_RCVBUF, v, 4) === 0
  );
}

/** One thread's arena: BATCH slots, each a datagram, its length, source and kernel stamp. */
export class DatagramArena {
  /** the whole arena as bytes; slot i's datagram starts at `dataOffset(i)` */
  readonly bytes: Uint8Array;
  /**
   * each slot's datagram as a Buffer of SLOT_BYTES (made once); the datagram is its first
   * `length(i)` bytes
   */
  readonly slots: Buffer[] = [];
  private readonly dv: DataView;
  private readonly ptr: unknown;
  private readonly n: Native;
  private used = BATCH;
  /**
   * the drop count of the socket the last `stamp` call's datagram came from, as the kernel gave
   * it with the datagram (SO_RXQ_OVFL: every datagram the socket dropped since it was opened), or
   * −1 when none came (none dropped yet)
   */
  drops = -1;
  private readonly offMsg = 0;
  private readonly offIov = MMSG * BATCH;
  private readonly offName = this.offIov + IOV * BATCH;
  private readonly offCtl = this.offName + NAME * BATCH;
  private readonly offData = this.offCtl + CTL * BATCH;

  constructor() {
    const n = lib.native;
    // internal: invariant, the reader is made only where batchReads() said ok
    if (n === null) throw new Error("batch reads are not available on this thread");
    this.n = n;
    const total = this.offData + SLOT_BYTES * BATCH;
    this.ptr = n.koffi.alloc("uint8_t", total);
    const ab = n.koffi.view(this.ptr, total);
    this.bytes = new Uint8Array(ab);
    this.dv = new DataView(ab);
    const base = n.koffi.address(this.ptr);
    for (let i = 0; i < BATCH; i++) {
      const m = this.offMsg + MMSG * i;
      this.dv.setBigUint64(m, base + BigInt(this.offName + NAME * i), true);
      this.dv.setBigUint64(m + 16, base + BigInt(this.offIov + IOV * i), true);
      this.dv.setBigUint64(m + 24, 1n, true);
      this.dv.setBigUint64(m + 32, base + BigInt(this.offCtl + CTL * i), true);
      this.dv.setBigUint64(this.offIov + IOV * i, base + BigInt(this.dataOffset(i)), true);
      this.dv.setBigUint64(this.offIov + IOV * i + 8, BigInt(SLOT_BYTES), true);
      this.slots.push(Buffer.from(ab, this.dataOffset(i), SLOT_BYTES));
    }
  }

  dataOffset(i: number): number {
    return this.offData + SLOT_BYTES * i;
  }

  /** Reads up to BATCH datagrams of `fd` without blocking: their count, 0 when none, −1 on error. */
  read(fd: number): number {
    const dv = this.dv;
    // the kernel wrote the lengths of the last read's names and control messages: reset them
    for (let i = 0; i < this.used; i++) {
      const m = this.offMsg + MMSG * i;
      dv.setUint32(m + 8, NAME, true);
      dv.setUint32(m + 40, CTL, true);
      dv.setUint32(m + 44, 0, true);
      dv.setInt32(m + 48, 0, true);
    }
    const got = this.n.recvmmsg(fd, this.ptr, BATCH, MSG_DONTWAIT, null);
    if (got < 0) {
      this.used = 0;
      return this.n.errno() === EAGAIN ? 0 : -1;
    }
    this.used = got;
    return got;
  }

  /** Bytes of slot i's datagram (truncated to SLOT_BYTES). */
  length(i: number): number {
    return Math.min(this.dv.getUint32(this.offMsg + MMSG * i + 56, true), SLOT_BYTES);
  }

  /**
   * The kernel's receive stamp of slot i into `out` as [tv_sec, tv_nsec]; false without one. Also
   * reads the socket's drop count that came with it (`drops`).
   */
  stamp(i: number, out: Float64Array): boolean {
    const dv = this.dv;
    const end = Math.min(dv.getUint32(this.offMsg + MMSG * i + 40, true), CTL);
    const base = this.offCtl + CTL * i;
    let at = 0;
    let found = false;
    this.drops = -1;
    // the control messages: {len (8), level (4), type (4), data}, each padded to 8 bytes
    while (at + 16 <= end) {
      const len = dv.getUint32(base + at, true);
      if (len < 16 || at + len > end) break;
      const c = base + at;
      if (dv.getInt32(c + 8, true) === SOL_SOCKET) {
        const type = dv.getInt32(c + 12, true);
        if (type === SO_TIMESTAMPNS && len >= 32) {
          out[0] = dv.getUint32(c + 16, true) + dv.getInt32(c + 20, true) * 4294967296;
          out[1] = dv.getUint32(c + 24, true);
          found = true;
        } else if (type === SO_RXQ_OVFL && len >= 20) {
          this.drops = dv.getUint32(c + 16, true);
        }
      }
      at += (len + 7) & ~7;
    }
    return found;
  }

  /** Slot i's source port. */
  sourcePort(i: number): number {
    return this.dv.getUint16(this.offName + NAME * i + 2, false);
  }

  /** Slot i's IPv4 source address as an unsigned 32-bit number, or −1 when not IPv4. */
  sourceIp4(i: number): number {
    const at = this.offName + NAME * i;
    return this.dv.getUint16(at, true) === 2 ? this.dv.getUint32(at + 4, false) : -1;
  }

  /** Slot i's source as werift's [address, port] (an allocation: for the rare non-media datagram). */
  source(i: number): [string, number] {
    const at = this.offName + NAME * i;
    const family = this.dv.getUint16(at, true);
    const port = this.dv.getUint16(at + 2, false);
    if (family === 2)
      return [
        `${this.bytes[at + 4]}.${this.bytes[at + 5]}.${this.bytes[at + 6]}.${this.bytes[at + 7]}`,
        port,
      ];
    const parts: string[] = [];
    for (let k = 0; k < 8; k++) parts.push(this.dv.getUint16(at + 8 + 2 * k, false).toString(16));
    return [parts.join(":").replace(/(^|:)0(:0)+(:|$)/, "::"), port];
  }
}

/** One thread's epoll set: descriptors with a caller's token each, polled without blocking. */
export class ReadySet {
  private readonly ep: number;
  private readonly n: Native;
  private readonly ev = new Uint8Array(16);
  private readonly evs = new Uint8Array(EV * MAX_EVENTS);
  private readonly evView = new DataView(this.evs.buffer);
  private readonly one = new Int32Array([1]);

  constructor() {
    const n = lib.native;
    // internal: invariant, the reader is made only where batchReads() said ok
    if (n === null) throw new Error("batch reads are not available on this thread");
    this.n = n;
    this.ep = n.epollCreate(0);
    if (this.ep < 0) throw new RunError(`epoll_create1 failed (errno ${n.errno()})`);
  }

  /**
   * Adds `fd` with `token` (SO_TIMESTAMPNS and SO_RXQ_OVFL turned on); null, or why it could not.
   */
  add(fd: number, token: number): string | null {
    if (this.n.setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, this.one, 4) !== 0) {
      return `setsockopt(SO_TIMESTAMPNS) failed (errno ${this.n.errno()})`;
    }
    if (this.n.setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, this.one, 4) !== 0) {
      return `setsockopt(SO_RXQ_OVFL) failed (errno ${this.n.errno()})`;
    }
    const dv = new DataView(this.ev.buffer);
    dv.setUint32(0, EPOLLIN, true);
    dv.setUint32(EV_DATA, token, true);
    dv.setUint32(EV_DATA + 4, 0, true);
    if (this.n.epollCtl(this.ep, EPOLL_CTL_ADD, fd, this.ev) !== 0)
      return `epoll_ctl(ADD) failed (errno ${this.n.errno()})`;
    return null;
  }

  /** The epoll set's own descriptor (a readiness wake watches it: ready-wake.ts). */
  get fd(): number {
    return this.ep;
  }

  /** Takes `fd` out of the set (before its socket closes). */
  remove(fd: number): void {
    this.n.epollCtl(this.ep, EPOLL_CTL_DEL, fd, null);
  }

  /** The tokens of the descriptors ready to read now, into `out`; returns how many. */
  ready(out: Int32Array): number {
    const got = this.n.epollWait(this.ep, this.evs, Math.min(MAX_EVENTS, out.length), 0);
    for (let i = 0; i < got; i++) out[i] = this.evView.getUint32(EV * i + EV_DATA, true);
    return Math.max(got, 0);
  }
}
