// The per-leg knobs of the built-in relay installed on each new viewer leg, and what each did, by
// leg number (the n-th WHEP offer the relay took, from 1): the leg's impaired link (link-send.ts),
// LoseEvery (leg.ts), DropEvery's frame cuts (frame-cuts.ts) and a test's leg fault
// (leg-faults.ts). At most KEPT legs' records are kept, the oldest forgotten first.
import type { LegLinkCounts } from "../../core/link/leg-link.ts";
import type { RTCPeerConnection } from "../../net/werift/api.ts";
import { type FrameCutCounts, FrameCuts } from "./frame-cuts.ts";
import { installLoss, type Leg } from "./leg.ts";
import { LegFaultState } from "./leg-faults.ts";
import { type LegLinkSend, linkLeg } from "./link-send.ts";
import type { RelayOptions } from "./options.ts";

const KEPT = 4096;

function keep<T>(m: Map<number, T>, n: number, v: T): void {
  m.set(n, v);
  if (m.size > KEPT) m.delete(m.keys().next().value as number);
}

export class LegKnobs {
  private readonly opts: RelayOptions;
  private readonly faults = new Map<number, LegFaultState>();
  private readonly cuts = new Map<number, FrameCuts>();
  private readonly links = new Map<number, LegLinkSend>();

  constructor(opts: RelayOptions) {
    this.opts = opts;
  }

  /** Leg n's link, before its first connectivity check (after the remote offer or the transceiver). */
  async link(pc: RTCPeerConnection, leg: Leg, n: number): Promise<void> {
    if (this.opts.link === undefined) return;
    leg.link = await linkLeg(pc, this.opts.link, n);
    keep(this.links, n, leg.link);
  }

  /** The knobs that act on leg n's forwarded packets, once it is answered. */
  install(leg: Leg, n: number): void {
    if (this.opts.loseEvery) installLoss(leg, this.opts.loseEvery);
    if (this.opts.dropEvery) {
      leg.cuts = new FrameCuts();
      keep(this.cuts, n, leg.cuts);
    }
    const fault = this.opts.test?.legFaults?.[n];
    if (fault) {
      leg.fault = new LegFaultState(fault);
      keep(this.faults, n, leg.fault);
    }
  }

  /** The relay closes: every link's timer stops and what it holds is dropped. */
  close(): void {
    for (const l of this.links.values()) l.close();
  }

  fault = (n: number): LegFaultState | undefined => this.faults.get(n);
  frameCuts = (n: number): FrameCutCounts | undefined => this.cuts.get(n)?.counts();
  linkCounts = (n: number): LegLinkCounts | undefined => this.links.get(n)?.counts;
}
