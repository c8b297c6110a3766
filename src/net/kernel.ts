// The kernel's side of a viewer's sockets, through koffi (./koffi.ts;
// docs/definitions.md#arrival-stamps): a UDP socket's descriptor, the kernel's receive stamp of the
// datagram a socket returned last (ioctl SIOCGSTAMPNS), and CLOCK_REALTIME read beside the
// monotonic clock to move those stamps onto it. Loaded once per thread, on first use; where it
// cannot load (not Linux, no koffi binary for this platform, a symbol missing) `kernelClock()` says
// why and nothing else here is usable. Linux x86-64 and arm64 only: the ioctl number and struct
// timespec (two int64) are theirs. Module state, by intent: the loaded bindings and the realtime −
// monotonic offset (`baseSec`, `offsetNs`, its error and age) are the thread's mapping between the
// process's two clocks, as global as the monotonic clock itself, and `ts` is the one out-buffer of
// the native calls that read them (consumed before the next call), so no viewer's state is here.
import type { Socket } from "node:dgram";
import { monoNs } from "../core/clock/clock.ts";
import { firstLine, type Koffi, koffi as loadKoffi, NativeOnce, type NativeVerdict } from "./koffi.ts";

/** SIOCGSTAMPNS (linux/sockios.h): the receive stamp of the last datagram read, as a timespec. */
const SIOCGSTAMPNS = 0x8907;
const CLOCK_REALTIME = 0;
const ENOENT = 2;
/** How often the realtime − monotonic offset is read again when nothing suggests a step. */
const RESYNC_NS = 1e9;
/** Tries per offset reading; the narrowest bracket wins. */
const SYNC_TRIES = 5;

type Native = {
  ioctl: (fd: number, req: number, out: Int32Array) => number;
  now: (out: Int32Array) => number;
  errno: () => number;
};

/** Whether this thread can read kernel stamps, and why not. */
export type KernelAvailability = NativeVerdict;

/** tv_sec of the first reading: realtime instants are kept as ns since it, exact in a double */
let baseSec = 0;
let offsetNs = 0;
let offsetErrorNs = Number.POSITIVE_INFINITY;
let syncedAtNs = Number.NEGATIVE_INFINITY;
const ts = new Int32Array(4);

const lib = new NativeOnce<Native>("libc's ioctl/clock_gettime", () => {
  if (process.platform !== "linux") return `not Linux (${process.platform})`;
  if (process.arch !== "x64" && process.arch !== "arm64") return `not x86-64 or arm64 (${process.arch})`;
  const koffi = loadKoffi();
  if (typeof koffi === "string") return koffi;
  const libc = koffi.load("libc.so.6");
  const ioctl = libc.func("int ioctl(int fd, unsigned long req, _Inout_ int32_t *arg)");
  const now = libc.func("int clock_gettime(int clk, _Out_ int32_t *ts)");
  const n: Native = {
    ioctl: ioctl as Native["ioctl"],
    now: (out) => now(CLOCK_REALTIME, out),
    errno: () => koffi.errno(),
  };
  if (n.now(ts) !== 0) return "clock_gettime(CLOCK_REALTIME) failed";
  baseSec = secOf(ts);
  sync(n);
  return n;
});

/** tv_sec of a timespec in `a` (little-endian int64 in two int32). */
function secOf(a: Int32Array): number {
  return (a[0]! >>> 0) + (a[1]! | 0) * 4294967296;
}

/** ns since `baseSec` of the timespec in `a`. */
function relNs(a: Int32Array): number {
  return (secOf(a) - baseSec) * 1e9 + (a[2]! >>> 0);
}

/** Reads realtime − monotonic, bracketed by two monotonic readings; the narrowest of a few tries. */
function sync(n = lib.native as Native): void {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < SYNC_TRIES; i++) {
    const a = monoNs();
    n.now(ts);
    const b = monoNs();
    if (b - a < best) {
      best = b - a;
      offsetNs = relNs(ts) - (a + b) / 2;
    }
  }
  offsetErrorNs = best / 2;
  syncedAtNs = monoNs();
}

/** Loads the native side once per thread and says whether kernel stamps can be had here. */
export function kernelClock(): KernelAvailability {
  return lib.load();
}

/**
 * libc through koffi, on a thread where kernel stamps can be had (batch-read.ts, tx-stamp.ts load
 * their own functions from it), or why not.
 */
export function kernelLibc(): { koffi: Koffi; libc: ReturnType<Koffi["load"]> } | string {
  const k = kernelClock();
  if (!k.ok) return k.reason;
  const koffi = loadKoffi();
  if (typeof koffi === "string") return koffi;
  try {
    return { koffi, libc: koffi.load("libc.so.6") };
  } catch (err) {
    return `libc not reachable through koffi (${firstLine(err)})`;
  }
}

/** The offset's reading error (half the narrowest bracket), ns; Infinity before the first reading. */
export function offsetErrorNsNow(): number {
  return offsetErrorNs;
}

/**
 * A dgram socket's descriptor, or −1. Read from the socket's internal handle without the
 * deprecated `_handle` getter (its DEP0112 warning must not reach the user).
 */
export function socketFd(socket: Socket | undefined): number {
  if (socket === undefined) return -1;
  const sym = Object.getOwnPropertySymbols(socket).find((s) => s.description === "state symbol");
  if (sym === undefined) return -1;
  const state = (socket as unknown as Record<symbol, { handle?: { fd?: unknown } } | undefined>)[sym];
  const fd = state?.handle?.fd;
  return typeof fd === "number" && fd >= 0 ? fd : -1;
}

/**
 * Turns on the kernel's receive stamps for this socket (the first SIOCGSTAMPNS does) and checks
 * that the call works. Returns null, or why the socket cannot be stamped.
 */
export function enableRxStamps(fd: number): string | null {
  const a = kernelClock();
  if (!a.ok) return a.reason;
  if (fd < 0) return "the socket's descriptor could not be read";
  const n = lib.native as Native;
  if (n.ioctl(fd, SIOCGSTAMPNS, ts) === 0) return null;
  const e = n.errno();
  return e === ENOENT ? null : `ioctl(SIOCGSTAMPNS) failed (errno ${e})`;
}

/**
 * The kernel's receive stamp of the datagram `fd` returned last, on the monotonic clock (ns), or
 * −1 when the call fails. `nowNs` is the caller's monotonic reading just taken.
 */
export function rxStampMonoNs(fd: number, nowNs: number): number {
  const n = lib.native as Native;
  if (n.ioctl(fd, SIOCGSTAMPNS, ts) !== 0) return -1;
  return realToMonoNs(secOf(ts), ts[2]! >>> 0, nowNs);
}

/**
 * A CLOCK_REALTIME instant (tv_sec, tv_nsec) on the monotonic clock (ns), read just before
 * `nowNs`: a stamp that lands after it, or more than a second before it, may mean realtime
 * stepped, so the offset is read again at once (and the stamp converted with it). Call only once
 * `kernelClock()` is ok.
 */
export function realToMonoNs(sec: number, nsec: number, nowNs: number): number {
  const real = (sec - baseSec) * 1e9 + nsec;
  if (nowNs - syncedAtNs > RESYNC_NS) sync();
  let mono = real - offsetNs;
  if (mono > nowNs + 2 * offsetErrorNs + 1000 || nowNs - mono > RESYNC_NS) {
    sync();
    mono = real - offsetNs;
  }
  return mono;
}
