// One WHEP viewer (docs/definitions.md#viewer-pipeline, docs/definitions.md#whip-and-whep-http-exchange): non-trickle offer, both WHEP flows (201 answer; 406 counter-offer
// answered by a fresh peer and PATCHed), the join clock from the first POST, every packet through
// the pure per-viewer pipeline with its arrival instant taken first, and a record at the end.

import { monoNs } from "../core/clock/clock.ts";
import type { ViewerPipeline } from "../core/delay/viewer-pipeline.ts";
import type { ViewerRecord } from "../core/types.ts";
import { emptyRecord } from "../core/viewer-record.ts";
import { ABS_CAPTURE_TIME_URI, filterCandidates, gatheringComplete, sdpHasExtension } from "../net/rtc.ts";
import { deleteResource, HttpExchangeError, patchAnswer, postOffer } from "../net/sdp-http.ts";
import type { ShardContext, ViewerLive } from "./viewer-context.ts";
import { joinFailure } from "./viewer-errors.ts";
import { type AttachedPeer, answeringPeer, offeringPeer, type ViewerState } from "./viewer-peer.ts";

/** Runs one viewer from its start instant to the shard's deadline; never throws. */
export async function runViewer(ctx: ShardContext, id: number, live: ViewerLive): Promise<ViewerRecord> {
  const rec = emptyRecord(id, ctx.sendLog !== null);
  const stop = ctx.stop;
  let location: string | null = null;
  let peer: AttachedPeer | null = null;
  let resolveWake: () => void = () => {};
  const woken = new Promise<void>((r) => {
    resolveWake = r;
  });
  const st: ViewerState = {
    pipeline: null,
    connected: false,
    joined: false,
    failedBeforeJoin: false,
    droppedAfterJoin: false,
    receiveError: null,
    nacksSent: 0,
    iceConnectedNs: -1,
    postNs: 0,
    absCaptureNegotiated: false,
    wake: () => resolveWake(),
  };
  try {
    peer = offeringPeer(ctx, live, st);
    await peer.pc.setLocalDescription(await peer.pc.createOffer());
    await Promise.race([gatheringComplete(peer.pc, 5000), aborted(stop)]);
    if (stop.aborted) {
      rec.errorKind = "not_started";
      rec.error = "the run ended before ICE gathering finished";
      return rec;
    }
    live.started();
    st.postNs = monoNs();
    const joinDeadline = AbortSignal.any([stop, AbortSignal.timeout(ctx.joinTimeoutNs / 1e6)]);
    const offer = filterCandidates(peer.pc.localDescription?.sdp ?? "", ctx.ice);
    const res = await postOffer(ctx.whep, offer, { bearer: ctx.bearer, signal: joinDeadline });
    location = res.location;
    if (!/^m=video [1-9]/m.test(res.sdp)) {
      // werift would accept an answer without video and the viewer would wait out its timeout
      rec.errorKind = "bad_answer";
      rec.error = "the WHEP answer has no video";
      live.failed();
      return rec;
    }
    st.absCaptureNegotiated = sdpHasExtension(res.sdp, ABS_CAPTURE_TIME_URI);
    if (res.status === 406) {
      rec.whepFlow = "counter-offer";
      if (!location) throw new HttpExchangeError("bad_answer", "the counter-offer carried no Location");
      await peer.close();
      peer = null;
      try {
        peer = await answeringPeer(ctx, live, st, res.sdp);
        await peer.pc.setLocalDescription(await peer.pc.createAnswer());
      } catch (err) {
        rec.errorKind = "bad_answer";
        rec.error = `the WHEP counter-offer was refused: ${(err as Error).message}`;
        live.failed();
        return rec;
      }
      await Promise.race([gatheringComplete(peer.pc, 5000), aborted(joinDeadline)]);
      await patchAnswer(location, filterCandidates(peer.pc.localDescription?.sdp ?? "", ctx.ice), {
        bearer: ctx.bearer,
        signal: joinDeadline,
      });
    } else {
      rec.whepFlow = "answer";
      try {
        await peer.pc.setRemoteDescription({ type: "answer", sdp: res.sdp });
      } catch (err) {
        rec.errorKind = "bad_answer";
        rec.error = `the WHEP answer was refused: ${(err as Error).message}`;
        live.failed();
        return rec;
      }
    }
    rec.signallingNs = monoNs() - st.postNs;

    await Promise.race([woken, aborted(joinDeadline)]);
    if (!st.joined && st.receiveError !== null) {
      rec.errorKind = "webrtc";
      rec.error = `local WebRTC setup failed: ${st.receiveError.message}`;
      live.failed();
    } else if (!st.joined) {
      const f = joinFailure({
        failedBeforeJoin: st.failedBeforeJoin,
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
    if (err instanceof HttpExchangeError && !(stop.aborted && err.kind === "transport")) {
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
    if (st.joined && !st.droppedAfterJoin) live.left();
    await deleteResource(location, { bearer: ctx.bearer });
    await peer?.close();
  }
  finishRecord(rec, st);
  return rec;
}

function finishRecord(rec: ViewerRecord, st: ViewerState): void {
  rec.joined = st.joined;
  rec.nacksSent = st.nacksSent;
  if (st.iceConnectedNs >= 0) rec.iceConnectedNs = st.iceConnectedNs;
  if (st.droppedAfterJoin) {
    rec.droppedAfterJoin = true;
    rec.errorKind = "dropped";
    rec.error = "the connection failed after the viewer had joined";
  }
  const p: ViewerPipeline | null = st.pipeline;
  if (!p) return;
  const { codec, ...figures } = p.finish();
  Object.assign(rec, figures);
  rec.codec = codec;
  if (p.firstRtpNs >= 0) rec.firstRtpNs = p.firstRtpNs;
  if (p.firstKeyframeNs >= 0 && st.joined) rec.firstKeyframeNs = p.firstKeyframeNs;
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
