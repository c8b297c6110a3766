// What the built-in relay can be told. The first group is what `whipbench relay` offers on its
// command line (see its --help); `test` is the one injection point of the knobs only tests use,
// so that no production path reads a test switch by accident.
import type { RTCRtpTransceiver } from "werift";
import type { IceOptions } from "../../net/rtc.ts";
import type { BurstOptions } from "./conformance.ts";
import type { LegFault } from "./leg-faults.ts";

export interface RelayOptions {
  ice: IceOptions;
  /** require `Authorization: Bearer <token>` on every request */
  token?: string | undefined;
  /** refuse WHEP attempts past this many with 503 (0 = no limit) */
  maxViewers?: number;
  /** drop every n-th packet per leg before the leg's NACK responder sees it (unrecoverable) */
  dropEvery?: number;
  /** lose every n-th packet per leg beneath the NACK responder (a NACK repairs it) */
  loseEvery?: number;
  /** forward with every marker bit cleared */
  clearMarker?: boolean;
  /** forward with no header extension at all */
  stripExtensions?: boolean;
  /** WHEP answers with 406 + the relay's own offer; the viewer PATCHes its answer (issue 6) */
  counterOffer?: boolean;
  /** knobs for tests only; never set by the command line */
  test?: RelayTestHooks;
}

export interface RelayTestHooks {
  /**
   * called with each viewer leg's transceiver once its local description is set, before ICE
   * gathering (the receive-path test restricts the leg's SRTP profiles here)
   */
  prepareLeg?: (tr: RTCRtpTransceiver) => void;
  /** start every leg on the same packet once `legs` are connected, stop each after `packets` */
  burst?: BurstOptions;
  /** shift sequence numbers and timestamps so both wrap this many packets into the stream */
  wrapAfterPackets?: number;
  /** faults of single viewer legs, by leg number (the n-th WHEP offer the relay took, from 1) */
  legFaults?: Record<number, LegFault>;
  /** close the publisher's peer connection this long after it connected (WHIP fails mid-run) */
  closePublisherAfterMs?: number;
}
