// What the built-in relay can be told. The first group is what `whipbench relay` offers on its
// command line (see its --help); `test` is the one injection point of the knobs only tests use,
// so that no production path reads a test switch by accident.

import type { LegLinkProfile } from "../../core/link/leg-link.ts";
import type { IceOptions } from "../../net/rtc.ts";
import type { RTCRtpTransceiver } from "../../net/werift/api.ts";
import type { BurstOptions } from "./conformance.ts";
import type { LegFault } from "./leg-faults.ts";
import type { PaddingOptions } from "./stream-padding.ts";
import type { StallOptions } from "./stream-stall.ts";

export interface RelayOptions {
  ice: IceOptions;
  /** require `Authorization: Bearer <token>` on every request */
  token?: string | undefined;
  /** refuse WHEP attempts past this many with 503 (0 = no limit) */
  maxViewers?: number;
  /** over this many viewer legs, every leg drops every 20th packet unrecoverably (capacity.ts) */
  capacity?: number;
  /** drop every n-th packet per leg before the leg's NACK responder sees it (unrecoverable) */
  dropEvery?: number;
  /** lose every n-th packet per leg beneath the NACK responder (a NACK repairs it) */
  loseEvery?: number;
  /**
   * every leg's impaired link: every datagram the relay sends a leg (STUN, DTLS, SRTP, RTCP) lost,
   * delayed, reordered or duplicated, seeded per leg (docs/definitions.md#relay-link)
   */
  link?: LegLinkProfile;
  /**
   * a simulcast leg whose viewer chose no layer takes the highest its transport feedback's estimate
   * carries (docs/definitions.md#relay-layer-estimate); absent: the highest, always
   */
  layerEstimate?: boolean;
  /** forward with every marker bit cleared */
  clearMarker?: boolean;
  /** forward with no header extension at all */
  stripExtensions?: boolean;
  /** WHEP answers with 406 + the relay's own offer; the viewer PATCHes its answer */
  counterOffer?: boolean;
  /** how legs' video is sent: the native fan-out where it can run (default), or werift's sender */
  send?: "native" | "werift";
  /** relay threads the native fan-out runs in (0 or absent: the main thread; threads.ts) */
  threads?: number;
  /** told, in one line, when a relay thread stops unasked (its legs are ended; threads.ts) */
  onThreadLost?: (line: string) => void;
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
  /** how long an answered leg may take to connect before the relay ends it (leg-watch.ts), ms */
  legConnectMs?: number;
  /** close the publisher's peer connection this long after it connected (WHIP fails mid-run) */
  closePublisherAfterMs?: number;
  /** DropEvery drops only among each leg's first n packets (its cut frames expire before the run ends) */
  dropUntilPacket?: number;
  /**
   * drop, on every leg, the publisher's packets whose sequence number is a multiple of n
   * (unrecoverable): every viewer loses the same packets, so two receivers can be laid side by side
   */
  dropStreamEvery?: number;
  /**
   * drop, on every leg, every packet of every n-th VP8 frame of an upper temporal layer (TID ≥ 1;
   * without TIDs, of every second frame), unrecoverable (temporal-drop.ts)
   */
  dropTopLayerEvery?: number;
  /**
   * hold the stream for every leg the last `forMs` of every `everyMs`, then forward everything held
   * at once (a server that pauses, then bursts; stream-stall.ts)
   */
  stallStream?: StallOptions;
  /** while true, forward with every marker bit cleared (the calibration switches it on and off) */
  clearMarkerStream?: boolean;
  /** while true, VP8 is forwarded with 7-bit PictureIDs (vp8-pictureid7.ts) */
  pictureId7?: boolean;
  /** VP8 forwarded without PictureIDs (vp8-pictureid7.ts): receivers fall back to the sequence numbers */
  noPictureId?: boolean;
  /** while set, padding-only packets between frames, as a server probing bandwidth (stream-padding.ts) */
  paddingStream?: PaddingOptions;
  /** a broken answer on WHIP or WHEP (see AnswerFault) */
  answerFault?: AnswerFault;
  /** the publisher's sockets unread from `afterMs` after it connected, for `forMs` (buffers made small) */
  pauseReading?: { afterMs: number; forMs: number; receiveBufferBytes?: number };
  /** bench:truth and its test: the relay's own instants on the process's monotonic clock (ground truth) */
  taps?: RelayTaps;
  /** the relay threads' entry file (a test's wrapper that makes a thread fail; threads.ts) */
  relayThreadEntry?: URL;
}

/** Ground truth of the in-process relay: when media reached it and when it left, per datagram. */
export interface RelayTaps {
  /** a publisher's media datagram reached the relay's JavaScript (before werift parsed it) */
  publisherReceive(data: Buffer, nowNs: number): void;
  /**
   * a viewer leg's media datagram was written to its socket (after werift protected it); the leg's
   * local port
   */
  legSend(localPort: number, data: Buffer, nowNs: number): void;
}

/**
 * Answers of servers that misbehave: `no-video` turns the answer's video m-line into an audio one
 * (same mid); `not-sdp` sends 201 with a Location and a body that is not SDP; `silent-dtls`
 * answers as the DTLS server (`a=setup:passive`) and does ICE but never DTLS.
 */
export interface AnswerFault {
  on: "whip" | "whep";
  kind: "no-video" | "not-sdp" | "silent-dtls";
}
