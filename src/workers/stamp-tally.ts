// Which clock stamped a viewer thread's media datagrams over a shard (docs/definitions.md#stamp-source):
// counts per source and the reasons the thread stamped any itself, for client.workers[].
import type { StampSource, StampSources } from "./protocol.ts";

/** Distinct reasons kept per shard; later ones repeat an earlier cause. */
const MAX_REASONS = 4;

export class StampTally {
  kernel = 0;
  thread = 0;
  private readonly reasons: string[] = [];

  /** Why datagrams are (or will be) stamped by the thread. */
  note(why: string): void {
    if (this.reasons.length < MAX_REASONS && !this.reasons.includes(why)) this.reasons.push(why);
  }

  sources(): StampSources {
    const k = this.kernel;
    const t = this.thread;
    // with nothing stamped yet: the source the next datagram would get
    const idle: StampSource = this.reasons.length === 0 ? "kernel" : "thread";
    return {
      source: k + t === 0 ? idle : t === 0 ? "kernel" : k === 0 ? "thread" : "mixed",
      kernelStamped: k,
      threadStamped: t,
      ...(this.reasons.length > 0 ? { threadReason: this.reasons.join("; ") } : {}),
    };
  }
}
