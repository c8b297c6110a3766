// The viewer thread's context: what every viewer of the thread shares on its receive side — the
// intake (stamps, receive lag, the lean and werift paths' queue), the arena reader (made on first
// use, or why batched reads cannot run here), the shared-socket decision, the ledger of drops on
// its own sockets, the payload chunks of its reassemblers (PayloadStore, the arena path's copies of
// pending payloads) and our SRTP's diagnostics. One object per thread, made by the first
// shard that runs on it and handed explicitly from there (shard → viewer → chain.ts); nothing on
// the receive path reaches it any other way.
import { errorMessage } from "../core/errors.ts";
import { PayloadStore } from "../core/rtp/payload-store.ts";
import { batchReads } from "../net/batch-read.ts";
import { OwnDrops } from "./own-drops.ts";
import { ArenaReader } from "./receive/arena-reader.ts";
import { Intake } from "./receive/intake.ts";
import { SocketSharing } from "./receive/socket-sharing.ts";

/**
 * What our SRTP did on this thread, the lean and arena paths (tests and diagnostics): sessions taken over,
 * by SRTP profile and by who unprotects, the highest rollover counter reached, packets rejected
 * by SRTP, receiver reports sent. Written only when a session starts and when it closes.
 */
export interface OwnSrtpDiagnostics {
  sessions: number;
  gcm: number;
  cm: number;
  openssl: number;
  maxRoc: number;
  srtpRejected: number;
  reportsSent: number;
}

export class ViewerThread {
  readonly intake = new Intake();
  /** where every reassembler of the thread copies the payloads of pending frames (arena path) */
  readonly payloads = new PayloadStore();
  readonly diagnostics: OwnSrtpDiagnostics = {
    sessions: 0,
    gcm: 0,
    cm: 0,
    openssl: 0,
    maxRoc: 0,
    srtpRejected: 0,
    reportsSent: 0,
  };
  /** our SRTP sessions' RTCP out (docs/definitions.md#receive-paths): native, or werift's with why */
  readonly rtcpSends: { native: number; werift: number; reasons: string[] } = {
    native: 0,
    werift: 0,
    reasons: [],
  };
  private reader: ArenaReader | null = null;
  private unavailable: string | null = null;
  readonly sharing = new SocketSharing(this.intake, () => this.arena());
  readonly ownDrops = new OwnDrops(() => this.reader?.socketDrops ?? 0);

  /** This thread's arena reader, or why batch reads cannot run here. */
  arena(): ArenaReader | string {
    if (this.unavailable !== null) return this.unavailable;
    if (this.reader !== null) return this.reader;
    const a = batchReads();
    if (!a.ok) {
      this.unavailable = a.reason;
      return this.unavailable;
    }
    try {
      this.reader = new ArenaReader(this.intake);
    } catch (err) {
      this.unavailable = errorMessage(err);
      return this.unavailable;
    }
    return this.reader;
  }

  /**
   * Test hook (test/e2e/faulty-worker.ts, test/unit/arena-reader.test.ts): this thread's arena
   * path cannot run, for `reason`, as on a platform without batched reads. Production code never calls it.
   */
  setArenaUnavailable(reason: string): void {
    this.unavailable = reason;
  }

  /** A session's RTCP sender chosen: native (true), or werift's for `why`. */
  rtcpSendChosen(why: string | null): void {
    const s = this.rtcpSends;
    if (why === null) s.native++;
    else {
      s.werift++;
      if (s.reasons.length < 4 && !s.reasons.includes(why)) s.reasons.push(why);
    }
  }

  /** Our SRTP's diagnostics so far (a copy). */
  ownSrtpDiagnostics(): Readonly<OwnSrtpDiagnostics> {
    return { ...this.diagnostics };
  }
}

let thread: ViewerThread | null = null;

/** This thread's context (each thread has its own module instance, so its own context). */
export function viewerThread(): ViewerThread {
  thread ??= new ViewerThread();
  return thread;
}

/** This thread's diagnostics of our SRTP so far (tests and diagnostics; a copy). */
export function ownSrtpDiagnostics(): Readonly<OwnSrtpDiagnostics> {
  return viewerThread().ownSrtpDiagnostics();
}
