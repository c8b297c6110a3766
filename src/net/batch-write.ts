// Batched writes of UDP datagrams through koffi (./koffi.ts): `sendmmsg` of up to BATCH datagrams
// built in one preallocated native arena, each with its own IPv4 destination, so the relay's
// native fan-out (docs/definitions.md#built-in-relay) writes a leg's packets of one turn of the
// event loop with one syscall and allocates nothing per datagram. A datagram is built in place in
// its slot (`bytes` at `offset(i)`), then `push`ed with its length and destination; `flush(fd)`
// writes what was pushed. Linux x86-64 and arm64 (LP64 struct layouts below); where it cannot
// load, `batchWrites()` says why.
import { kernelLibc } from "./kernel.ts";
import { type Koffi, NativeOnce, type NativeVerdict } from "./koffi.ts";

/** Datagrams one sendmmsg may write. */
export const WRITE_BATCH = 64;
/** Bytes of one datagram's slot: larger than an MTU-sized datagram and its SRTP tag. */
export const WRITE_SLOT_BYTES = 1536;
const MMSG = 64; // struct mmsghdr (LP64): msghdr (56) + msg_len, padded
const IOV = 16; // struct iovec
const NAME = 16; // struct sockaddr_in
const AF_INET = 2;
const EINTR = 4;

interface Native {
  sendmmsg: (fd: number, msgs: unknown, vlen: number, flags: number) => number;
  dup: (fd: number) => number;
  close: (fd: number) => number;
  errno: () => number;
  koffi: Koffi;
}

const lib = new NativeOnce<Native>("libc's sendmmsg", () => {
  if (process.arch !== "x64" && process.arch !== "arm64") return `no struct layout for ${process.arch}`;
  const l = kernelLibc();
  if (typeof l === "string") return l;
  const { koffi: kf, libc } = l;
  return {
    sendmmsg: libc.func(
      "int sendmmsg(int fd, void *msgs, unsigned int vlen, int flags)",
    ) as Native["sendmmsg"],
    dup: libc.func("int dup(int fd)") as Native["dup"],
    close: libc.func("int close(int fd)") as Native["close"],
    errno: () => kf.errno(),
    koffi: kf,
  };
});

/** Whether this thread can write datagrams in batches, and why not. */
export function batchWrites(): NativeVerdict {
  return lib.load();
}

/**
 * A descriptor of its own for the socket `fd` (dup), so a thread that sends on it is not undone,
 * or misled by a reused number, when the socket's owner closes it; −1 where it cannot be had.
 */
export function dupFd(fd: number): number {
  const n = batchWrites().ok ? lib.native : null;
  if (n === null || fd < 0) return -1;
  return n.dup(fd);
}

/** Closes a descriptor dupFd gave. */
export function closeFd(fd: number): void {
  if (lib.native !== null && fd >= 0) lib.native.close(fd);
}

/** One thread's send arena: WRITE_BATCH slots, their iovecs, destinations and mmsghdrs. */
export class SendBatch {
  /** the whole arena; slot i's datagram is built at `offset(i)` */
  readonly bytes: Uint8Array;
  /** datagrams pushed and not yet written */
  count = 0;
  /** after `flush`: 1 where the kernel took the datagram of that slot, 0 where it refused it */
  readonly wrote = new Uint8Array(WRITE_BATCH);
  /** datagrams the kernel refused (a full buffer, an error), since the start */
  failed = 0;
  /** sendmmsg calls made, since the start */
  calls = 0;
  private readonly dv: DataView;
  private readonly ptr: unknown;
  private readonly n: Native;
  private readonly offIov = MMSG * WRITE_BATCH;
  private readonly offName = this.offIov + IOV * WRITE_BATCH;
  private readonly offData = this.offName + NAME * WRITE_BATCH;

  constructor() {
    const a = batchWrites();
    const n = lib.native;
    // internal: invariant, a SendBatch is made only where batchWrites() said ok
    if (!a.ok || n === null)
      throw new Error(`batch writes are not available here (${a.ok ? "not loaded" : a.reason})`);
    this.n = n;
    const total = this.offData + WRITE_SLOT_BYTES * WRITE_BATCH;
    this.ptr = n.koffi.alloc("uint8_t", total);
    const ab = n.koffi.view(this.ptr, total);
    this.bytes = new Uint8Array(ab);
    this.dv = new DataView(ab);
    const base = n.koffi.address(this.ptr);
    for (let i = 0; i < WRITE_BATCH; i++) {
      const m = MMSG * i;
      this.dv.setBigUint64(m, base + BigInt(this.offName + NAME * i), true); // msg_name
      this.dv.setUint32(m + 8, NAME, true); // msg_namelen
      this.dv.setBigUint64(m + 16, base + BigInt(this.offIov + IOV * i), true); // msg_iov
      this.dv.setBigUint64(m + 24, 1n, true); // msg_iovlen
      this.dv.setBigUint64(this.offIov + IOV * i, base + BigInt(this.offset(i)), true); // iov_base
      this.dv.setUint16(this.offName + NAME * i, AF_INET, true);
    }
  }

  /** Where slot i's datagram starts in `bytes`. */
  offset(i: number): number {
    return this.offData + WRITE_SLOT_BYTES * i;
  }

  /** Whether every slot holds a pushed datagram (flush before building the next). */
  get full(): boolean {
    return this.count === WRITE_BATCH;
  }

  /** The datagram built in slot `count` is `len` bytes, for IPv4 `ip` (a uint32) and `port`. */
  push(len: number, ip: number, port: number): void {
    const i = this.count++;
    const dv = this.dv;
    const iov = this.offIov + IOV * i + 8;
    dv.setUint32(iov, len, true); // iov_len, low half
    dv.setUint32(iov + 4, 0, true);
    const name = this.offName + NAME * i;
    dv.setUint16(name + 2, port); // sin_port, network order
    dv.setUint32(name + 4, ip); // sin_addr, network order
  }

  /**
   * Writes the pushed datagrams on `fd`; returns how many the kernel took. One it refuses (a full
   * buffer, an error) is dropped, counted in `failed`, and the rest are tried.
   */
  flush(fd: number): number {
    const total = this.count;
    this.count = 0;
    let at = 0;
    let took = 0;
    while (at < total) {
      this.calls++;
      // the arena's mmsghdrs from the first not yet written
      const msgs = at === 0 ? this.ptr : this.bytes.subarray(MMSG * at);
      const r = this.n.sendmmsg(fd, msgs, total - at, 0);
      if (r > 0) {
        this.wrote.fill(1, at, at + r);
        at += r;
        took += r;
      } else if (r < 0 && this.n.errno() === EINTR) {
        // interrupted before anything was written: again
      } else {
        this.failed++;
        this.wrote[at] = 0;
        at++;
      }
    }
    return took;
  }
}
