// A relay's send path (docs/definitions.md#relay-send-path): werift's sender, or the native
// fan-out in the main thread (native.ts), or in relay threads of their own (threads.ts) for the
// legs no per-leg knob touches; which one runs, why not another, and how many legs each took.
import type { Leg } from "./leg.ts";
import { NativeFanout, nativeSendPath, type SendPath } from "./native.ts";
import type { RelayOptions } from "./options.ts";
import { type RelayThreadOptions, RelayThreads } from "./threads.ts";

export interface SendPathOptions {
  send?: "native" | "werift" | undefined;
  /** relay threads for the legs' video (0: the main thread) */
  threads?: number | undefined;
  /** a per-leg knob is set (drop, capacity, a link, a test's fault or burst): legs stay here */
  perLegKnobs: boolean;
  /** the tests' taps read werift's sends */
  taps: boolean;
  /** the relay threads' entry file and who ends the legs of a thread that stopped (threads.ts) */
  threadOptions?: RelayThreadOptions;
}

export class RelaySend {
  readonly path: SendPath;
  readonly fanout: NativeFanout | null;
  readonly threads: RelayThreads | null;
  /** legs the native fan-out sends (either thread), legs werift sends (all on the werift path) */
  nativeLegs = 0;
  weriftLegs = 0;
  /** why the last leg werift kept on the native path was kept (null: none was) */
  lastFallback: string | null = null;
  private readonly threadsNote: string;
  /** what the relay threads wrote, once they stopped */
  threadsWrote: { written: number; resent: number; dropped: number } | null = null;

  constructor(o: SendPathOptions) {
    if (o.send === "werift") this.path = { path: "werift", reason: "asked for" };
    else if (o.taps) this.path = { path: "werift", reason: "the tests' taps read werift's sends" };
    else this.path = nativeSendPath();
    const native = this.path.path === "native";
    this.fanout = native ? new NativeFanout() : null;
    const n = o.threads ?? 0;
    this.threads = native && n > 0 && !o.perLegKnobs ? new RelayThreads(n, o.threadOptions) : null;
    this.threadsNote = native && n > 0 && o.perLegKnobs ? "; per-leg knobs set: legs in the main thread" : "";
  }

  /** A leg connected: a relay thread, else the main thread's fan-out, takes its video where it can. */
  connected(leg: Leg): void {
    // attach's null is "taken" (not "no threads"): a leg a thread took is not the main fan-out's too,
    // whose NACK hook would otherwise answer the leg's NACKs from an empty history
    // a simulcast leg takes its own layer (docs/definitions.md#relay-layer-choice): the main thread sends it
    const threads = leg.layer === undefined ? this.threads : null;
    let why: string | null = threads === null ? "no relay threads" : threads.attach(leg);
    if (why !== null) why = this.fanout === null ? "werift path" : this.fanout.attach(leg);
    if (why === null) this.nativeLegs++;
    else {
      this.weriftLegs++;
      if (this.fanout !== null) this.lastFallback = why;
    }
  }

  /** The leg closed or failed. */
  ended(leg: Leg): void {
    this.threads?.ended(leg);
  }

  async close(): Promise<void> {
    if (this.threads !== null) this.threadsWrote = await this.threads.close();
  }

  /** The startup line's words: where the native fan-out runs, or "werift (reason)". */
  describe(): string {
    if (this.path.path !== "native") return `werift (native fan-out not used: ${this.path.reason})`;
    const where = this.threads !== null ? `${this.threads.size} relay thread(s)` : "the main thread";
    return `native in ${where} (OpenSSL SRTP, sendmmsg)${this.threadsNote}`;
  }
}

/**
 * The send path of a relay with these options: a per-leg knob keeps legs in the main thread;
 * `lost` ends the legs of a relay thread that stopped unasked.
 */
export function relaySend(opts: RelayOptions, lost: (legs: Leg[], why: string) => void): RelaySend {
  const t = opts.test;
  // LoseEvery is not among them: a relay thread applies it too (relay-thread.ts)
  const knobs: unknown[] = [opts.dropEvery, opts.capacity, t?.burst, t?.wrapAfterPackets, t?.legFaults];
  knobs.push(t?.dropStreamEvery, t?.dropTopLayerEvery, opts.link);
  return new RelaySend({
    send: opts.send,
    threads: opts.threads,
    perLegKnobs: knobs.some((k) => k !== undefined && k !== 0),
    taps: t?.taps !== undefined,
    threadOptions: { lost, ...(t?.relayThreadEntry !== undefined ? { entry: t.relayThreadEntry } : {}) },
  });
}
