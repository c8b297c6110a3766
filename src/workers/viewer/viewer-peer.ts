// A viewer's peer connection with its receive path and state watch attached. The 201 flow uses
// the peer that made the offer; the 406 flow answers the server's counter-offer with a fresh
// peer, whose transceiver, codecs, payload types and header extensions all come from that offer
// (a peer that already offered keeps its own offer's state after a remote offer).

import { monoNs, wallOf } from "../../core/clock/clock.ts";
import type { LayerAsk } from "../../core/delay/layer-switches.ts";
import { ViewerPipeline, type ViewerPipelineOptions } from "../../core/delay/viewer-pipeline.ts";
import type { ViewerCountKey } from "../../core/figures/pooled-keys.ts";
import { newPeer, videoCodecs, viewerCodecExtras, viewerExtensions } from "../../net/rtc.ts";
import { HttpExchangeError } from "../../net/sdp-http.ts";
import type { RTCPeerConnection, RTCRtpTransceiver } from "../../net/werift/api.ts";
import { abandonDtls } from "../../net/werift/patches.ts";
import { buildReceiveChain, type ReceiveChain } from "../receive/chain.ts";
import type { ViewerLink } from "../receive/link.ts";
import { layerStayHooks } from "./layer-live.ts";
import { type AudioState, audioSink, offsetOf } from "./viewer-audio.ts";
import type { ShardContext, ViewerLive } from "./viewer-context.ts";
import type { HandshakeSeen } from "./viewer-errors.ts";

/**
 * What the viewer's callbacks share; the viewer reads it after the run. Its counts that the
 * aggregate sums (core/figures/pooled-keys.ts) go to its record as they are.
 */
export interface ViewerState extends AudioState, Record<ViewerCountKey, number> {
  pipeline: ViewerPipeline | null;
  connected: boolean;
  joined: boolean;
  /** the connection failed before the viewer joined */
  failedBeforeJoin: boolean;
  /** the connection failed after the viewer joined (dropped) */
  droppedAfterJoin: boolean;
  receiveError: Error | null;
  iceConnectedNs: number;
  /** the WHEP POST instant; set before any media can arrive */
  postNs: number;
  /** the server's SDP negotiated abs-capture-time (decided from that SDP, not werift's state) */
  absCaptureNegotiated: boolean;
  /** what of the server's handshake arrived before the viewer connected (handshake-watch.ts) */
  handshake: HandshakeSeen;
  /** the viewer's emulated link (docs/definitions.md#cohorts); null: unimpaired */
  link: ViewerLink | null;
  /** the layer driver's asks, with layerSwitch (docs/definitions.md#layer-switches); else empty */
  layerAsks: readonly LayerAsk[];
  /** wake the viewer: joined, failed before joining, or the receive path failed */
  wake: () => void;
}

export interface AttachedPeer {
  pc: RTCPeerConnection;
  tr: RTCRtpTransceiver;
  receive: ReceiveChain;
  close(): Promise<void>;
}

function attach(
  ctx: ShardContext,
  live: ViewerLive,
  st: ViewerState,
  pc: RTCPeerConnection,
  tr: RTCRtpTransceiver,
  atr: RTCRtpTransceiver | undefined,
) {
  const receive = buildReceiveChain(ctx.thread, ctx.receivePath, pc, tr, {
    ...(atr !== undefined && ctx.audio ? { audio: { tr: atr, sink: audioSink(ctx, st) } } : {}),
    counters: ctx.counters,
    viewerProfile: ctx.viewerProfile,
    pipelineFor: (codec) => {
      const opts: ViewerPipelineOptions = {
        codec,
        stallNs: ctx.stallNs,
        excludeFirstNs: ctx.excludeFirstNs,
        postNs: st.postNs,
        wallMinusMonoNs: wallOf(ctx.anchor, 0),
        hasher: ctx.hasher,
        table: ctx.table,
        sendLog: ctx.sendLog,
        absCaptureNegotiated: st.absCaptureNegotiated,
        keyframeRequests: ctx.keyframeRequests,
      };
      if (live.delaySample) opts.onDelaySample = live.delaySample;
      if (live.stampSample) opts.onStampSample = live.stampSample;
      if (live.transitSample) opts.onTransitSample = live.transitSample;
      if (live.freeze) opts.onFreeze = live.freeze;
      if (ctx.publisherWallMinusMono) opts.publisherWallMinusMono = ctx.publisherWallMinusMono;
      if (ctx.logWaitNs > 0) opts.logWaitNs = ctx.logWaitNs;
      if (ctx.audio) opts.offset = offsetOf(st);
      st.pipeline = new ViewerPipeline(opts);
      const stays = st.pipeline.fingerprint?.stays;
      if (stays) stays.hooks = layerStayHooks(live, () => st.layerAsks, ctx.layerSwitch?.rids ?? []);
      return st.pipeline;
    },
    afterPacket: () => {
      if (!st.joined && st.pipeline?.joined) {
        st.joined = true;
        live.joined();
        st.wake();
      }
    },
    onNack: () => {
      st.nacksSent++;
    },
    onTransportFeedback: () => {
      st.transportFeedbackSent++;
      ctx.counters.transportFeedbackSent++;
    },
    onRtx: () => {
      st.rtxReceived++;
      ctx.counters.rtxReceived++;
    },
    onError: (err) => {
      st.receiveError = err;
      st.wake();
    },
    link: st.link,
    ice: ctx.ice,
  });
  pc.connectionStateChange.subscribe((state) => {
    if (state === "connected" && !st.connected) {
      st.connected = true;
      st.iceConnectedNs = monoNs() - st.postNs;
    } else if (state === "failed") {
      if (st.joined) {
        if (!st.droppedAfterJoin) {
          st.droppedAfterJoin = true;
          live.dropped();
        }
      } else {
        st.failedBeforeJoin = true;
        st.wake();
      }
    }
  });
  return {
    pc,
    tr,
    receive,
    async close() {
      receive.close();
      abandonDtls(pc);
      await pc.close().catch(() => {});
    },
  };
}

/** A viewer's peer with its profile's codecs and header extensions (docs/definitions.md#viewer-profile). */
function viewerPeer(ctx: ShardContext): RTCPeerConnection {
  const p = ctx.viewerProfile;
  return newPeer(ctx.ice, videoCodecs("viewer", viewerCodecExtras(p)), viewerExtensions(p));
}

/** The 201 flow's peer: a receive-only transceiver, ready to make the offer. */
export function offeringPeer(ctx: ShardContext, live: ViewerLive, st: ViewerState): AttachedPeer {
  const pc = viewerPeer(ctx);
  const tr = pc.addTransceiver("video", { direction: "recvonly" });
  const atr = ctx.audio ? pc.addTransceiver("audio", { direction: "recvonly" }) : undefined;
  return attach(ctx, live, st, pc, tr, atr);
}

/** The 406 flow's peer: a fresh one that takes the server's offer and will answer it. */
export async function answeringPeer(
  ctx: ShardContext,
  live: ViewerLive,
  st: ViewerState,
  serverOffer: string,
): Promise<AttachedPeer> {
  const pc = viewerPeer(ctx);
  try {
    await pc.setRemoteDescription({ type: "offer", sdp: serverOffer });
  } catch (err) {
    await pc.close().catch(() => {});
    throw err;
  }
  const tr = pc.getTransceivers().find((t) => t.kind === "video");
  if (!tr) {
    await pc.close().catch(() => {});
    // the server's answer was unusable: the record's kind is bad_answer (docs/definitions.md#error-kinds)
    throw new HttpExchangeError("bad_answer", "the counter-offer has no video");
  }
  tr.setDirection("recvonly");
  const atr = pc.getTransceivers().find((t) => t.kind === "audio");
  atr?.setDirection(ctx.audio ? "recvonly" : "inactive");
  return attach(ctx, live, st, pc, tr, atr);
}
