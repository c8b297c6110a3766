// What our SRTP and RTP stage (receiver.ts: the lean and arena paths) is told when its chain folds
// (chain.ts).
import type { ViewerProfile } from "../../core/scenario/defaults.ts";
import type { SrtpProfile } from "../../core/srtp/kdf.ts";
import type { KeyframeSource } from "./nack-sender.ts";
import type { PacketStage } from "./stages.ts";

export interface OwnSrtpOptions {
  profile: SrtpProfile;
  remoteMasterKey: Uint8Array;
  remoteMasterSalt: Uint8Array;
  /** unprotect in place with the OpenSSL inside node where it loads (the arena path), else node:crypto */
  inPlace?: boolean;
  /** payload types of the negotiated codecs; others are dropped (as werift drops them) */
  payloadTypes: readonly number[];
  clockRate: number;
  /** negotiated abs-capture-time extension id, 0 when none */
  absId: number;
  /** negotiated dependency descriptor extension id, 0 when none; each packet's goes to onDescriptor */
  ddId?: number;
  /** a video packet's dependency descriptor at b[off, off + len), before the packet is handed on */
  onDescriptor?: (seq: number, b: Uint8Array, off: number, len: number) => void;
  /** negotiated transport-wide sequence number extension id, 0 when none (no transport feedback) */
  twccId?: number;
  /** payload types of the negotiated rtx codecs (RFC 4588), none when rtx was not negotiated */
  rtxPayloadTypes?: readonly number[];
  /** our SSRC in RTCP (the receiver's rtcpSsrc) */
  senderSsrc: number;
  sendRtcp: (rtcp: Buffer) => void;
  /** the stage each video packet goes to (the pipeline's feed) */
  next: PacketStage;
  /** one NACK message written */
  onNack: () => void;
  /** one transport feedback message written */
  onTransportFeedback?: () => void;
  /** one retransmission received on the RTX payload type (its packet restored) */
  onRtx?: () => void;
  /** the viewer's keyframe-request rule, once its pipeline exists (it then sends PLIs); absent: never */
  keyframes?: () => KeyframeSource | null;
  /** the audio track: its payload types and where its packets go (docs/definitions.md#audio-track) */
  audio?: { payloadTypes: readonly number[]; next: PacketStage };
  /**
   * receiver report interval bounds, ms: 500..1500 drawn uniformly, libwebrtc's for video (a 1 s
   * interval varied over ½..1½ of it; werift's are the same)
   */
  rrMinMs?: number;
  rrMaxMs?: number;
  /**
   * the viewer's profile: browser (absent) sends its reports as libwebrtc M106, no SDES and each
   * NACK or PLI compound re-drawing the periodic report; minimal, with an SDES and no re-draw
   * (receiver-reports.ts, docs/definitions.md#nacks)
   */
  viewerProfile?: ViewerProfile;
  /** told at the end of each of its timer callbacks (the thread's intake marks it, intake.ts) */
  timerDone?: () => void;
}
