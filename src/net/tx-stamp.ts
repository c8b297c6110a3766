// The kernel's transmit stamp of a UDP socket's datagrams, through koffi (./koffi.ts;
// docs/definitions.md#send-instant): SO_TIMESTAMPING with software transmit stamps, each reported
// with the socket's datagram counter (OPT_ID) and no copy of the datagram (OPT_TSONLY), read back
// from the socket's error queue with recvmsg(MSG_ERRQUEUE). A non-empty error queue makes epoll
// report EPOLLERR, and libuv, which polls the socket for werift's reads, then calls its read
// handler on every loop turn until the queue is empty (its plain recvmsg finds nothing, and
// nothing reaches JavaScript): the caller drains the queue right after each write, before the loop
// polls again. Linux x86-64 and arm64 only (their struct layouts); `txStamps()` says why not.
import { kernelLibc } from "./kernel.ts";
import { NativeOnce, type NativeVerdict } from "./koffi.ts";

const SOL_SOCKET = 1;
const SO_TIMESTAMPING = 37; // SO_TIMESTAMPING_OLD: 64-bit timespecs on LP64
const SOL_IP = 0;
const IP_RECVERR = 11;
const SOL_IPV6 = 41;
const IPV6_RECVERR = 25;
const MSG_ERRQUEUE = 0x2000;
const MSG_DONTWAIT = 0x40;
const SO_EE_ORIGIN_TIMESTAMPING = 4;
const SCM_TSTAMP_SND = 0;
/** SOF_TIMESTAMPING_TX_SOFTWARE | SOFTWARE | OPT_ID | OPT_TSONLY (linux/net_tstamp.h) */
export const TX_FLAGS = (1 << 1) | (1 << 4) | (1 << 7) | (1 << 11);

const HDR = 56; // struct msghdr (LP64)
const IOV = 16;
const DATA = 64;
const CTL = 256;

interface Native {
  setsockopt: (fd: number, level: number, name: number, val: Int32Array, len: number) => number;
  recvmsg: (fd: number, msg: unknown, flags: number) => number;
  errno: () => number;
  /** msghdr, iovec, data and control in one native block, and its view */
  ptr: unknown;
  dv: DataView;
}

const lib = new NativeOnce<Native>("libc's setsockopt/recvmsg", () => {
  const l = kernelLibc();
  if (typeof l === "string") return l;
  const { koffi: kf, libc } = l;
  const total = HDR + IOV + DATA + CTL;
  const ptr = kf.alloc("uint8_t", total);
  const dv = new DataView(kf.view(ptr, total));
  const base = kf.address(ptr);
  dv.setBigUint64(16, base + BigInt(HDR), true); // msg_iov
  dv.setBigUint64(24, 1n, true); // msg_iovlen
  dv.setBigUint64(32, base + BigInt(HDR + IOV + DATA), true); // msg_control
  dv.setBigUint64(HDR, base + BigInt(HDR + IOV), true); // iov_base
  dv.setBigUint64(HDR + 8, BigInt(DATA), true); // iov_len
  return {
    setsockopt: libc.func(
      "int setsockopt(int fd, int level, int name, void *val, unsigned int len)",
    ) as Native["setsockopt"],
    recvmsg: libc.func("long recvmsg(int fd, void *msg, int flags)") as Native["recvmsg"],
    errno: () => kf.errno(),
    ptr,
    dv,
  };
});

/** Whether this thread can have the kernel's transmit stamps, and why not. */
export function txStamps(): NativeVerdict {
  return lib.load();
}

/**
 * Turns the kernel's transmit stamps on for `fd`; its datagram counter starts at 0 with the next
 * datagram the kernel takes. Null, or why not.
 */
export function enableTxStamps(fd: number): string | null {
  const a = txStamps();
  if (!a.ok) return a.reason;
  if (fd < 0) return "the socket's descriptor could not be read";
  const n = lib.native as Native;
  if (n.setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, new Int32Array([TX_FLAGS]), 4) !== 0) {
    return `setsockopt(SO_TIMESTAMPING) failed (errno ${n.errno()})`;
  }
  return null;
}

/** One transmit stamp: the datagram's counter value and the kernel's CLOCK_REALTIME instant. */
export type TxStampSink = (id: number, sec: number, nsec: number) => void;

/**
 * Reads every entry of `fd`'s error queue without blocking; each transmit stamp goes to `sink`.
 * Returns the entries read (other errors, an ICMP error for one, are read and dropped: werift's
 * sends learn nothing from them either).
 */
export function drainTxStamps(fd: number, sink: TxStampSink): number {
  const n = lib.native as Native;
  const dv = n.dv;
  let read = 0;
  for (;;) {
    dv.setBigUint64(40, BigInt(CTL), true); // msg_controllen
    dv.setBigUint64(0, 0n, true); // msg_name
    dv.setUint32(48, 0, true); // msg_flags
    if (n.recvmsg(fd, n.ptr, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) return read;
    read++;
    parseControl(dv, HDR + IOV + DATA, Number(dv.getBigUint64(40, true)), sink);
  }
}

/**
 * The control messages of one error-queue entry, at `at` for `len` bytes: a timestamping message
 * (three timespecs, the first the software stamp) and the extended error that carries the counter.
 * Exported for the unit tests, which give it hand-made control messages.
 */
export function parseControl(dv: DataView, at: number, len: number, sink: TxStampSink): boolean {
  let sec = -1;
  let nsec = 0;
  let id = -1;
  for (let c = at; c + 16 <= at + len; ) {
    const clen = Number(dv.getBigUint64(c, true));
    if (clen < 16 || c + clen > at + len) break;
    const level = dv.getInt32(c + 8, true);
    const type = dv.getInt32(c + 12, true);
    if (level === SOL_SOCKET && type === SO_TIMESTAMPING && clen >= 16 + 16) {
      sec = dv.getUint32(c + 16, true) + dv.getInt32(c + 20, true) * 4294967296;
      nsec = dv.getUint32(c + 24, true);
    } else if (
      ((level === SOL_IP && type === IP_RECVERR) || (level === SOL_IPV6 && type === IPV6_RECVERR)) &&
      clen >= 16 + 16 &&
      dv.getUint8(c + 16 + 4) === SO_EE_ORIGIN_TIMESTAMPING &&
      dv.getUint32(c + 16 + 8, true) === SCM_TSTAMP_SND
    ) {
      id = dv.getUint32(c + 16 + 12, true);
    }
    c += (clen + 7) & ~7;
  }
  if (sec < 0 || id < 0 || (sec === 0 && nsec === 0)) return false;
  sink(id, sec, nsec);
  return true;
}
