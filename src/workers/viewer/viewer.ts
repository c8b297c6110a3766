// One WHEP viewer (docs/definitions.md#viewer-pipeline,
// docs/definitions.md#whip-and-whep-http-exchange): non-trickle offer, both WHEP flows (201 answer;
// 406 counter-offer answered by a fresh peer and PATCHed), the join clock from the first POST,
// every packet through the pure per-viewer pipeline with its arrival instant taken first, and a
// record at the end.

import { monoNs } from "../../core/clock/clock.ts";
import type { ViewerPipeline } from "../../core/delay/viewer-pipeline.ts";
import { errorMessage, type ViewerErrorKind } from "../../core/errors.ts";
import { countsOf, zeroCounts } from "../../core/figures/pooled-keys.ts";
import { cohortLayerSpec, type LayerSwitchSpec } from "../../core/layer/layer-switch.ts";
import type { ViewerRecord } from "../../core/types.ts";
import { emptyRecord } from "../../core/viewer-record.ts";
import { ABS_CAPTURE_TIME_URI, filterCandidates, gatheringComplete, sdpHasExtension } from "../../net/rtc.ts";
import { deleteResource, HttpExchangeError, patchAnswer, postOffer } from "../../net/sdp-http.ts";
import { ViewerLink } from "../receive/link.ts";
import { handshakeSeen, watchHandshake } from "./handshake-watch.ts";
import { LayerDriver } from "./layer-driver.ts";
import { audioRecord } from "./viewer-audio.ts";
import type { ShardContext, ViewerLive } from "./viewer-context.ts";
import { joinFailure } from "./viewer-errors.ts";
import { type AttachedPeer, answeringPeer, offeringPeer, type ViewerState } from "./viewer-peer.ts";

/** The viewer's WHEP session and peer connection, closed at the end whatever happened. */
interface Session {
  location: string | null;
  /** the answer's Link header values (the WHEP extensions it offers) */
  links: string | null;
  peer: AttachedPeer | null;
  link: ViewerLink | null;
  /** the viewer's layer choice, if it makes one; its driver starts with the WHEP answer */
  layerSpec: LayerSwitchSpec | null;
  layers: LayerDriver | null;
}

/** Runs one viewer from its start instant to the shard's deadline; never throws. */
export async function runViewer(
  ctx: ShardContext,
  id: number,
  live: ViewerLive,
  cohort?: number,
): Promise<ViewerRecord> {
  const rec = emptyRecord(id, ctx.sendLog !== null);
  const c = cohort === undefined ? undefined : ctx.cohorts[cohort];
  const link = c === undefined ? null : new ViewerLink(c, id, ctx.t0MonoNs);
  // a cohort's own choice, else the scenario's (docs/definitions.md#cohort-layers)
  const layerSpec = (c === undefined ? undefined : cohortLayerSpec(c)) ?? ctx.layerSwitch?.spec ?? null;
  const session: Session = { location: null, links: null, peer: null, link, layerSpec, layers: null };
  let resolveWake: () => void = () => {};
  const woken = new Promise<void>((r) => {
    resolveWake = r;
  });
  const state = initialState(() => resolveWake(), link);
  try {
    // an early return leaves the record as its failure set it (no pipeline figures)
    const joinDeadline = await signal(ctx, live, state, rec, session);
    if (joinDeadline === null) return rec;
    rec.signallingNs = monoNs() - state.postNs;
    await Promise.race([woken, aborted(joinDeadline)]);
    await joinOutcome(ctx, live, state, rec);
  } catch (err) {
    setCaughtFailure(rec, err, ctx.stop.aborted);
    live.failed();
  } finally {
    rec.stopMonoNs = monoNs();
    // the viewer's end: nothing that arrives while its DELETE is answered and its peer closes is
    // its own any more (a frame shown then would lie after the end: docs/definitions.md#freezes-and-pauses)
    session.peer?.receive.stop(rec.stopMonoNs);
    if (state.joined && !state.droppedAfterJoin) live.left();
    await session.layers?.end();
    await deleteResource(session.location, { bearer: ctx.bearer });
    await session.peer?.close();
    link?.close();
  }
  finishRecord(rec, state);
  if (session.layers !== null && ctx.layerSwitch !== null)
    rec.layerChoice = session.layers.record(state.pipeline, ctx.layerSwitch.rids, ctx.table?.ticks ?? 0);
  if (ctx.audio && state.postNs > 0) rec.audio = audioRecord(ctx, state);
  if (link !== null) {
    rec.cohort = link.cohort;
    rec.link = link.record();
  }
  return rec;
}

function initialState(wake: () => void, link: ViewerLink | null): ViewerState {
  return {
    link,
    pipeline: null,
    connected: false,
    joined: false,
    failedBeforeJoin: false,
    droppedAfterJoin: false,
    receiveError: null,
    ...zeroCounts(),
    iceConnectedNs: -1,
    postNs: 0,
    audio: null,
    offset: null,
    absCaptureNegotiated: false,
    handshake: handshakeSeen(),
    layerAsks: [],
    wake,
  };
}

/**
 * Offer, gather, POST (the join clock starts here) and take the answer by either WHEP flow.
 * Returns the join deadline, or null when the viewer failed (the record says why).
 */
async function signal(
  ctx: ShardContext,
  live: ViewerLive,
  state: ViewerState,
  rec: ViewerRecord,
  session: Session,
): Promise<AbortSignal | null> {
  const stop = ctx.stop;
  const offering = offeringPeer(ctx, live, state);
  session.peer = offering;
  await offering.pc.setLocalDescription(await offering.pc.createOffer());
  await Promise.race([gatheringComplete(offering.pc, 5000), aborted(stop)]);
  // every datagram from here on crosses the emulated link, the handshakes included; what of the
  // server's handshake arrives is counted behind the link
  watchHandshake(offering.pc, state.handshake, () => state.connected);
  session.link?.attach(offering.pc);
  if (stop.aborted) {
    rec.errorKind = "not_started";
    rec.error = "the run ended before ICE gathering finished";
    return null;
  }
  live.started();
  state.postNs = monoNs();
  rec.postMonoNs = state.postNs;
  const joinDeadline = AbortSignal.any([stop, AbortSignal.timeout(ctx.joinTimeoutNs / 1e6)]);
  const offer = filterCandidates(offering.pc.localDescription?.sdp ?? "", ctx.ice);
  const res = await postOffer(ctx.whep, offer, { bearer: ctx.bearer, signal: joinDeadline });
  session.location = res.location;
  session.links = res.links;
  if (!/^m=video [1-9]/m.test(res.sdp)) {
    // werift would accept an answer without video and the viewer would wait out its timeout
    return failed(rec, live, "bad_answer", "the WHEP answer has no video");
  }
  state.absCaptureNegotiated = sdpHasExtension(res.sdp, ABS_CAPTURE_TIME_URI);
  // the start layer is asked for before the answer is applied, so the ask travels ahead of ICE and
  // DTLS and the leg's first packet is of that layer (docs/definitions.md#layer-switches)
  if (session.layerSpec !== null) {
    session.layers = new LayerDriver(session.layerSpec, res.links, ctx.whep, state.postNs, {
      bearer: ctx.bearer,
      stop: ctx.stop,
    });
    state.layerAsks = session.layers.asks;
    await Promise.race([session.layers.started, aborted(joinDeadline)]);
  }
  if (res.status === 406) {
    rec.whepFlow = "counter-offer";
    return (await counterOffer(ctx, live, state, rec, session, res.sdp, joinDeadline)) ? joinDeadline : null;
  }
  rec.whepFlow = "answer";
  try {
    await offering.pc.setRemoteDescription({ type: "answer", sdp: res.sdp });
  } catch (err) {
    return failed(rec, live, "bad_answer", `the WHEP answer was refused: ${errorMessage(err)}`);
  }
  return joinDeadline;
}

/** The 406 flow: a fresh answering peer takes the server's offer; its answer goes back by PATCH. */
async function counterOffer(
  ctx: ShardContext,
  live: ViewerLive,
  state: ViewerState,
  rec: ViewerRecord,
  session: Session,
  sdp: string,
  joinDeadline: AbortSignal,
): Promise<boolean> {
  const location = session.location;
  if (!location) throw new HttpExchangeError("bad_answer", "the counter-offer carried no Location");
  await session.peer?.close();
  session.peer = null;
  let peer: AttachedPeer;
  try {
    peer = await answeringPeer(ctx, live, state, sdp);
    session.peer = peer;
    await peer.pc.setLocalDescription(await peer.pc.createAnswer());
  } catch (err) {
    failed(rec, live, "bad_answer", `the WHEP counter-offer was refused: ${errorMessage(err)}`);
    return false;
  }
  await Promise.race([gatheringComplete(peer.pc, 5000), aborted(joinDeadline)]);
  watchHandshake(peer.pc, state.handshake, () => state.connected);
  session.link?.attach(peer.pc);
  await patchAnswer(location, filterCandidates(peer.pc.localDescription?.sdp ?? "", ctx.ice), {
    bearer: ctx.bearer,
    signal: joinDeadline,
  });
  return true;
}

/** After the join wait: a failure with its kind, or (joined) stay until the run stops. */
async function joinOutcome(
  ctx: ShardContext,
  live: ViewerLive,
  state: ViewerState,
  rec: ViewerRecord,
): Promise<void> {
  if (!state.joined && state.receiveError !== null) {
    failed(rec, live, "webrtc", `local WebRTC setup failed: ${state.receiveError.message}`);
  } else if (!state.joined) {
    const f = joinFailure({
      failedBeforeJoin: state.failedBeforeJoin,
      runEnded: ctx.stop.aborted,
      connected: state.connected,
      gotRtp: (state.pipeline?.firstRtpNs ?? -1) >= 0,
      joinTimeoutNs: ctx.joinTimeoutNs,
      handshake: state.handshake,
    });
    failed(rec, live, f.kind, f.message);
  } else {
    await aborted(ctx.stop);
  }
}

/** Records a failure before joining; returns null (no join deadline). */
function failed(rec: ViewerRecord, live: ViewerLive, kind: ViewerErrorKind, message: string): null {
  rec.errorKind = kind;
  rec.error = message;
  live.failed();
  return null;
}

function setCaughtFailure(rec: ViewerRecord, err: unknown, runEnded: boolean): void {
  if (err instanceof HttpExchangeError && !(runEnded && err.kind === "transport")) {
    rec.errorKind = err.kind === "http_status" ? `http_${err.status}` : err.kind;
    rec.error = err.message;
  } else if (runEnded) {
    rec.errorKind = "run_ended";
    rec.error = "the run ended before the viewer joined (the connection was not established)";
  } else {
    rec.errorKind = "webrtc";
    rec.error = `local WebRTC setup failed: ${errorMessage(err)}`;
  }
}

function finishRecord(rec: ViewerRecord, state: ViewerState): void {
  rec.joined = state.joined;
  Object.assign(rec, countsOf(state));
  if (state.iceConnectedNs >= 0) rec.iceConnectedNs = state.iceConnectedNs;
  if (state.droppedAfterJoin) {
    rec.droppedAfterJoin = true;
    rec.errorKind = "dropped";
    rec.error = "the connection failed after the viewer had joined";
  }
  const p: ViewerPipeline | null = state.pipeline;
  if (!p) return;
  const { codec, ...figures } = p.finish(rec.stopMonoNs ?? monoNs());
  Object.assign(rec, figures);
  rec.codec = codec;
  if (p.firstRtpNs >= 0) rec.firstRtpNs = p.firstRtpNs;
  if (p.firstKeyframeNs >= 0 && state.joined) rec.firstKeyframeNs = p.firstKeyframeNs;
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
