// Datagrams the kernel dropped on one UDP socket (docs/definitions.md#udp-drops): the socket's
// inode from its descriptor (/proc/self/fd/N links to socket:[inode]) and the per-socket drop
// column of /proc/net/udp and /proc/net/udp6 (sk_drops: receive buffer full, checksum errors),
// read by inode. Linux only; elsewhere, or where /proc cannot be read, a reason. The arena path
// does not need this: SO_RXQ_OVFL brings the same counter with its reads (batch-read.ts).
import type { Socket } from "node:dgram";
import { readFileSync, readlinkSync } from "node:fs";
import { socketFd } from "./kernel.ts";

/** The socket inode behind descriptor `fd`, or −1. */
export function fdInode(fd: number): number {
  if (fd < 0) return -1;
  try {
    const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
    return m ? Number(m[1]) : -1;
  } catch {
    return -1;
  }
}

/** A dgram socket's inode, or −1 (no descriptor, not Linux). */
export function socketInode(socket: Socket | undefined): number {
  return fdInode(socketFd(socket));
}

/** Appends each socket line of one /proc/net/udp* table to `out`: inode → drops. */
function readTable(path: string, want: ReadonlySet<number>, out: Map<number, number>): boolean {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return false;
  }
  const lines = text.split("\n");
  // the header names the columns; inode and drops are the 10th and 13th on every kernel since 2.6
  for (let i = 1; i < lines.length; i++) {
    const f = lines[i]!.trim().split(/\s+/);
    if (f.length < 13) continue;
    const inode = Number(f[9]);
    if (want.has(inode)) out.set(inode, Number(f[12]));
  }
  return true;
}

/**
 * The drop count of each of `inodes` that is still open (absent: closed, or not a UDP socket of
 * this network namespace), or why /proc/net/udp could not be read.
 */
export function dropsByInode(inodes: Iterable<number>): Map<number, number> | string {
  if (process.platform !== "linux") return `not Linux (${process.platform})`;
  const want = new Set(inodes);
  const out = new Map<number, number>();
  if (want.size === 0) return out;
  const v4 = readTable("/proc/net/udp", want, out);
  const v6 = readTable("/proc/net/udp6", want, out);
  return v4 || v6 ? out : "/proc/net/udp could not be read";
}

/** Drops of the sockets `inodes` summed (closed ones count 0), or why they could not be read. */
export function sumDrops(inodes: Iterable<number>): number | string {
  const m = dropsByInode(inodes);
  if (typeof m === "string") return m;
  let n = 0;
  for (const v of m.values()) n += v;
  return n;
}
