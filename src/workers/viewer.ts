// One WHEP viewer (§6.4, §6.19): non-trickle offer, both WHEP flows (201 answer, 406
// counter-offer + PATCH), the join clock from the first POST, every packet through the pure
// per-viewer pipeline with its arrival instant taken first, and a record at the end.
import type { RTCPeerConnection } from "werift";
import type { ViewerRecord } from "../core/types.ts";
import { ViewerPipeline, type ViewerPipelineOptions } from "../core/viewer-pipeline.ts";
import { monoNs, wallOf } from "../net/clock.ts";
import { absCaptureId, filterCandidates, gatheringComplete, newPeer, videoCodecs } from "../net/rtc.ts";
import { deleteResource, HttpExchangeError, patchAnswer, postOffer } from "../net/sdp-http.ts";
import { installReceivePath, type ReceiveHandle } from "./receive-path.ts";
import { emptyRecord, type ShardContext, type ViewerLive } from "./viewer-context.ts";
import { joinFailure } from "./viewer-errors.ts";

/** Runs one viewer from its start instant to the shard's deadline; never throws. */
export async function runViewer(ctx: ShardContext, id: number, live: ViewerLive): Promise<ViewerRecord> {
  const rec = emptyRecord(id, ctx.sendLog !== null);
  const stop = ctx.stop;
  let pc: RTCPeerConnection | null = null;
  let location: string | null = null;
  let receive: ReceiveHandle | null = null;
  // assigned from callbacks: a holder keeps TypeScript's narrowing honest
  const state: { pipeline: ViewerPipeline | null; connected: boolean } = { pipeline: null, connected: false };
  try {
    pc = newPeer(ctx.ice, videoCodecs("viewer"));
    const tr = pc.addTransceiver("video", { direction: "recvonly" });
    let receiveError: Error | null = null;
    let resolveJoin: () => void = () => {};
    let postNs = 0;
    receive = installReceivePath(ctx.receivePath, pc, tr, {
      counters: ctx.counters,
      make: (codec) => {
        const opts: ViewerPipelineOptions = {
          codec,
          stallNs: ctx.stallNs,
          excludeFirstNs: ctx.excludeFirstNs,
          postNs,
          wallMinusMonoNs: wallOf(ctx.anchor, 0),
          hasher: ctx.hasher,
          table: ctx.table,
          sendLog: ctx.sendLog,
          absCaptureNegotiated: absCaptureId(tr.headerExtensions) !== 0,
        };
        if (live.delaySample) opts.onDelaySample = live.delaySample;
        if (live.stampSample) opts.onStampSample = live.stampSample;
        if (live.transitSample) opts.onTransitSample = live.transitSample;
        if (ctx.stampClock) opts.publisherWallMinusMono = ctx.stampClock;
        state.pipeline = new ViewerPipeline(opts);
        return state.pipeline;
      },
      afterPacket: () => {
        if (!rec.joined && state.pipeline?.joined) {
          rec.joined = true;
          live.joined();
          resolveJoin();
        }
      },
      onNack: () => {
        rec.nacksSent++;
      },
      onError: (err) => {
        receiveError = err;
        resolveJoin();
      },
    });
    await pc.setLocalDescription(await pc.createOffer());
    await Promise.race([gatheringComplete(pc, 5000), aborted(stop)]);
    if (stop.aborted) {
      rec.errorKind = "not_started";
      rec.error = "the run ended before ICE gathering finished";
      return rec;
    }
    live.started();
    postNs = monoNs();
    const joinDeadline = AbortSignal.any([stop, AbortSignal.timeout(ctx.joinTimeoutNs / 1e6)]);
    const joinedP = new Promise<void>((r) => {
      resolveJoin = r;
    });
    let failedBeforeJoin = false;
    const st = state;
    pc.connectionStateChange.subscribe((state) => {
      if (state === "connected" && !st.connected) {
        st.connected = true;
        rec.iceConnectedNs = monoNs() - postNs;
      } else if (state === "failed") {
        if (rec.joined) {
          if (!rec.droppedAfterJoin) {
            rec.droppedAfterJoin = true;
            rec.errorKind = "dropped";
            rec.error = "the connection failed after the viewer had joined";
            live.dropped();
          }
        } else {
          failedBeforeJoin = true;
          resolveJoin();
        }
      }
    });
    const offer = filterCandidates(pc.localDescription?.sdp ?? "", ctx.ice);
    const res = await postOffer(ctx.whep, offer, { bearer: ctx.bearer, signal: joinDeadline });
    location = res.location;
    if (res.status === 406) {
      rec.whepFlow = "counter-offer";
      await pc.setRemoteDescription({ type: "offer", sdp: res.sdp });
      tr.setDirection("recvonly");
      await pc.setLocalDescription(await pc.createAnswer());
      await Promise.race([gatheringComplete(pc, 5000), aborted(joinDeadline)]);
      if (!location) throw new HttpExchangeError("bad_answer", "the counter-offer carried no Location");
      await patchAnswer(location, filterCandidates(pc.localDescription?.sdp ?? "", ctx.ice), {
        bearer: ctx.bearer,
        signal: joinDeadline,
      });
    } else {
      rec.whepFlow = "answer";
      try {
        await pc.setRemoteDescription({ type: "answer", sdp: res.sdp });
      } catch (err) {
        rec.errorKind = "bad_answer";
        rec.error = `the WHEP answer was refused: ${(err as Error).message}`;
        live.failed();
        return rec;
      }
    }
    rec.signallingNs = monoNs() - postNs;

    await Promise.race([joinedP, aborted(joinDeadline)]);
    if (!rec.joined && receiveError !== null) {
      rec.errorKind = "webrtc";
      rec.error = `local WebRTC setup failed: ${(receiveError as Error).message}`;
      live.failed();
    } else if (!rec.joined) {
      const f = joinFailure({
        failedBeforeJoin,
        runEnded: stop.aborted,
        connected: st.connected,
        gotRtp: (st.pipeline?.firstRtpNs ?? -1) >= 0,
        joinTimeoutNs: ctx.joinTimeoutNs,
      });
      rec.errorKind = f.kind;
      rec.error = f.message;
      live.failed();
    } else {
      await aborted(stop);
    }
  } catch (err) {
    if (err instanceof HttpExchangeError) {
      rec.errorKind = err.kind === "http_status" ? `http_${err.status}` : err.kind;
      rec.error = err.message;
    } else if (stop.aborted) {
      rec.errorKind = "run_ended";
      rec.error = "the run ended before the viewer joined (the connection was not established)";
    } else {
      rec.errorKind = "webrtc";
      rec.error = `local WebRTC setup failed: ${(err as Error).message}`;
    }
    live.failed();
  } finally {
    receive?.close();
    if (rec.joined && !rec.droppedAfterJoin) live.left();
    await deleteResource(location, { bearer: ctx.bearer });
    await pc?.close().catch(() => {});
  }
  finishRecord(rec, state.pipeline);
  return rec;
}

function finishRecord(rec: ViewerRecord, p: ViewerPipeline | null): void {
  if (!p) return;
  const out = p.finish();
  rec.codec = out.codec;
  if (p.firstRtpNs >= 0) rec.firstRtpNs = p.firstRtpNs;
  if (p.firstKeyframeNs >= 0 && rec.joined) rec.firstKeyframeNs = p.firstKeyframeNs;
  rec.rtp = out.rtp;
  rec.oneWayDelay = out.oneWayDelay;
  rec.oneWayDelayBlocker = out.oneWayDelayBlocker;
  rec.delayHist = out.delayHist;
  rec.delayKeyHist = out.delayKeyHist;
  rec.delayDeltaHist = out.delayDeltaHist;
  rec.packetTransit = out.packetTransit;
  rec.transitHist = out.transitHist;
  rec.stampDelay = out.stampDelay;
  rec.stampHist = out.stampHist;
  rec.stampKeyHist = out.stampKeyHist;
  rec.stampDeltaHist = out.stampDeltaHist;
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
