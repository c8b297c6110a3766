// The datagrams the kernel dropped on this viewer thread's own sockets (docs/definitions.md#udp-drops),
// over one shard: on the arena path each datagram brings its socket's count (SO_RXQ_OVFL, read
// by the arena reader); a socket libuv reads (lean and werift paths) is read from /proc/net/udp
// by its inode as werift closes it, or at the shard's end while still open. One per thread, in
// its context (thread.ts).
import { errorMessage } from "../core/errors.ts";
import { socketInode, sumDrops } from "../net/socket-drops.ts";
import { beforeClose, type UdpTransport } from "../net/werift/transports.ts";

/** What a shard reports: the count, or why the thread's own drops could not be read. */
export type OwnDropsRan = { socketDrops: number } | { socketDropsReason: string };

export class OwnDrops {
  /** sockets libuv reads, open now: inode → nothing */
  private readonly open = new Set<number>();
  /** drops read from sockets as they closed, since the thread started */
  private closed = 0;
  private reason: string | null = null;
  /** the thread's count when the shard began (counts are cumulative over the thread's life) */
  private base = 0;
  /** the drops the thread's arena reader saw (cumulative) */
  private readonly arenaDrops: () => number;

  constructor(arenaDrops: () => number) {
    this.arenaDrops = arenaDrops;
  }

  /** A shard begins: its drops are counted from now. */
  begin(): void {
    this.reason = null;
    const t = this.total();
    this.base = typeof t === "number" ? t : 0;
  }

  /** A socket libuv reads for one of this thread's viewers: its drops are ours. */
  watch(t: UdpTransport): void {
    const inode = socketInode(t.socket);
    if (inode < 0) {
      this.reason = "a viewer socket's inode could not be read (/proc/self/fd)";
      return;
    }
    this.open.add(inode);
    beforeClose(t, () => {
      if (!this.open.delete(inode)) return;
      const n = sumDrops([inode]);
      if (typeof n === "number") this.closed += n;
      else this.reason = n;
    });
  }

  /** Every drop on the thread's sockets so far, or why they could not all be read. */
  private total(): number | string {
    const live = sumDrops(this.open);
    if (typeof live === "string") return live;
    return this.closed + live + this.arenaDrops();
  }

  /** The shard's drops so far (its ticks, the live ceiling rule), or null where unreadable. */
  sinceBegin(): number | null {
    const r = this.ran();
    return "socketDrops" in r ? r.socketDrops : null;
  }

  /** The shard's drops, for its profile. */
  ran(): OwnDropsRan {
    try {
      const t = this.total();
      if (typeof t === "string") return { socketDropsReason: t };
      if (this.reason !== null) return { socketDropsReason: this.reason };
      return { socketDrops: Math.max(0, t - this.base) };
    } catch (err) {
      return { socketDropsReason: errorMessage(err) };
    }
  }
}
