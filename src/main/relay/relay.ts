// The built-in WHIP/WHEP relay (docs/definitions.md#built-in-relay): one publisher per stream, any
// number of viewer legs, every RTP packet forwarded to every leg with the same sequence number and
// timestamp (SFU-like), abs-capture-time re-mapped per leg, other extensions dropped. Fault knobs
// let the tests check that the benchmark survives what real servers do. Not a production server.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { monoNs } from "../../core/clock/clock.ts";
import { RelayOfferError } from "../../core/errors.ts";
import type { LegLinkCounts } from "../../core/link/leg-link.ts";
import {
  absCaptureId,
  filterCandidates,
  gatheringComplete,
  newPeer,
  SIMULCAST_EXTENSIONS,
  sendInStream,
  videoCodecs,
} from "../../net/rtc.ts";
import { tapMediaReceive, tapMediaSend } from "../../net/send-stamp.ts";
import type { RTCPeerConnection } from "../../net/werift/api.ts";
import { faultyAnswer } from "./answer-fault.ts";
import { legAudio, receiveAll } from "./audio.ts";
import { CapacityGate } from "./capacity.ts";
import { burstSent } from "./conformance.ts";
import { forwardKeyframeRequests, type Stream } from "./forward.ts";
import type { FrameCutCounts } from "./frame-cuts.ts";
import { patchAnswer, readBody, reply, sdpReply } from "./http.ts";
import { layerRoute, legLayers } from "./layer-ext.ts";
import { offeredLayers } from "./layers.ts";
import { type Leg, legPeer } from "./leg.ts";
import type { LegFaultState } from "./leg-faults.ts";
import { LegKnobs } from "./leg-knobs.ts";
import { watchLeg } from "./leg-watch.ts";
import type { RelayOptions } from "./options.ts";
import { receivePublisher } from "./publisher-in.ts";
import { type RelaySend, relaySend } from "./send-path.ts";
import { pausePublisherReading, RelayDrops } from "./socket-drops.ts";

export type { AnswerFault, RelayOptions, RelayTaps, RelayTestHooks } from "./options.ts";

export class Relay {
  readonly opts: RelayOptions;
  private server: Server | null = null;
  private readonly streams = new Map<string, Stream>();
  private readonly sessions = new Map<string, { stream: Stream; leg: Leg | null; pc: RTCPeerConnection }>();
  private nextLeg = 1;
  private nextPublisher = 1;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly knobs: LegKnobs;
  /** Test-only: the monotonic instant (ns) each WHEP POST reached the handler, in arrival order. */
  readonly whepPostsMonoNs: number[] = [];
  /** DELETEs of a session this relay had created (tests check that every session got its DELETE) */
  deletes = 0;
  private readonly gate: CapacityGate | null;
  /** how legs' video is sent (native.ts): the path, the fan-out, legs on each */
  readonly send: RelaySend;

  constructor(opts: RelayOptions) {
    this.opts = opts;
    this.gate = opts.capacity ? new CapacityGate(opts.capacity, this.streams) : null;
    this.knobs = new LegKnobs(opts);
    this.send = relaySend(opts, (legs, why) => {
      opts.onThreadLost?.(`${why}; its ${legs.length} viewer leg(s) ended`);
      for (const [id, s] of this.sessions)
        if (s.leg !== null && legs.includes(s.leg)) void this.closeSession(id);
    });
  }

  async listen(hostName = "127.0.0.1", port = 0): Promise<string> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch(() => reply(res, 500, "internal error"));
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, hostName, () => resolve());
    });
    const addr = server.address() as AddressInfo;
    return `http://${hostName}:${addr.port}`;
  }

  /** Resolves once a publisher's first RTP packet reached the stream. */
  ready(name: string): Promise<void> {
    const s = this.stream(name);
    return s.ready ? Promise.resolve() : new Promise((resolve) => s.readyWaiters.push(resolve));
  }

  viewers = (name: string): number => this.streams.get(name)?.legs.size ?? 0;
  /** The viewers' keyframe requests (PLI or FIR) sent on to the stream's publisher so far. */
  keyframeRequests = (name: string): number => this.streams.get(name)?.keyframeRequests ?? 0;
  /** Per leg of the stream still open: the transport feedback messages it sent the relay (leg.ts). */
  legFeedback = (name: string): number[] => [...(this.streams.get(name)?.legs ?? [])].map((l) => l.feedback);
  /** Per leg still open: the packets a test's burst sent it so far, the fewer of video and audio. */
  legBurst = (name: string): number[] => burstSent(this.streams.get(name)?.legs ?? []);

  /** Test-only: the state of leg n's fault (RelayTestHooks.legFaults), once that leg exists. */
  legFault = (n: number): LegFaultState | undefined => this.knobs.fault(n);
  private readonly drops = new RelayDrops();
  /** Datagrams the kernel dropped on the relay's sockets so far (socket-drops.ts): the server's. */
  socketDrops = (): number | string => this.drops.total([...this.sessions.values()].map((s) => s.pc));

  /** Test-only: what leg n's link (RelayOptions.link) did so far, once that leg exists. */
  linkCounts = (n: number): LegLinkCounts | undefined => this.knobs.linkCounts(n);
  /** Test-only: what DropEvery cut from leg n (the n-th WHEP offer taken, from 1), once it exists. */
  frameCuts = (n: number): FrameCutCounts | undefined => this.knobs.frameCuts(n);

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.knobs.close();
    const closing = [...this.sessions.values()].map((s) => s.pc.close().catch(() => {}));
    this.sessions.clear();
    await Promise.all([...closing, this.send.close()]);
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  private stream(name: string): Stream {
    let s = this.streams.get(name);
    if (!s) {
      s = { publisher: null, codec: null, ready: false, readyWaiters: [], legs: new Set(), attempts: 0 };
      this.streams.set(name, s);
    }
    return s;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.opts.token && req.headers.authorization !== `Bearer ${this.opts.token}`) {
      return reply(res, 401, "unauthorised");
    }
    const parts = ((req.url ?? "/").split("?")[0] ?? "/").split("/").filter((p) => p !== "");
    if (parts.length >= 2 && parts[0] === "session")
      return this.handleSession(req, res, parts[1] ?? "", parts.slice(2));
    if (parts.length === 2 && req.method === "POST" && (parts[1] === "whip" || parts[1] === "whep")) {
      if (parts[1] === "whep") this.whepPostsMonoNs.push(monoNs());
      if (!(req.headers["content-type"] ?? "").startsWith("application/sdp")) {
        req.resume();
        return reply(res, 415, "want application/sdp");
      }
      const body = await readBody(req);
      if (body === null) return reply(res, 413, "body too large");
      if (!body.startsWith("v=0")) return reply(res, 400, "the body is not SDP");
      const stream = this.stream(parts[0] ?? "");
      return parts[1] === "whip" ? this.whip(stream, body, res) : this.whep(stream, body, res);
    }
    req.resume();
    return reply(res, 404, "not found");
  }

  private async whip(stream: Stream, offer: string, res: ServerResponse): Promise<void> {
    if (stream.publisher) return reply(res, 409, "a publisher is already connected");
    // a simulcast publisher's mid and rid extensions too (an answer names only what the offer has)
    const pc = newPeer(this.opts.ice, videoCodecs("viewer"), SIMULCAST_EXTENSIONS);
    stream.publisher = pc;
    const layers = offeredLayers(offer);
    if (layers !== null) stream.layers = layers;
    else delete stream.layers;
    receivePublisher(stream, pc, this.opts, this.gate, this.send);
    try {
      await pc.setRemoteDescription({ type: "offer", sdp: offer });
      receiveAll(pc);
      const answer = await pc.createAnswer();
      await pc.setLocalDescription(answer);
      await gatheringComplete(pc, 5000);
    } catch {
      stream.publisher = null;
      await pc.close().catch(() => {});
      return reply(res, 400, "the offer was refused");
    }
    const id = `p${this.nextPublisher++}`;
    this.sessions.set(id, { stream, leg: null, pc });
    pc.connectionStateChange.subscribe((state) => {
      if ((state === "failed" || state === "closed") && stream.publisher === pc) stream.publisher = null;
      const taps = this.opts.test?.taps;
      const tr = pc.getTransceivers()[0];
      if (state === "connected" && taps && tr) tapMediaReceive(tr, (d, at) => taps.publisherReceive(d, at));
      const after = this.opts.test?.closePublisherAfterMs;
      if (state === "connected" && after !== undefined) this.later(after, () => this.closeSession(id));
      if (state === "connected")
        pausePublisherReading(pc, this.opts.test?.pauseReading, this.later.bind(this));
    });
    this.answer(res, "whip", 201, pc, `/session/${id}`);
  }

  /** The SDP reply, through the test-only answer fault when one is set for this endpoint. */
  private answer(
    res: ServerResponse,
    on: "whip" | "whep",
    status: number,
    pc: RTCPeerConnection,
    location: string,
    links: string[] = [],
  ) {
    const sdp = filterCandidates(pc.localDescription?.sdp ?? "", this.opts.ice);
    sdpReply(res, status, faultyAnswer(sdp, pc, on, this.opts.test?.answerFault), location, links);
  }

  /** A timer (fault knobs, legs that never connect), cleared when the relay closes. */
  private later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  /** Ends a session from the server's side, as a DELETE would (fault knobs). */
  private async closeSession(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    if (session.leg) {
      session.stream.legs.delete(session.leg);
      this.send.ended(session.leg);
      session.leg.link?.close();
    }
    if (session.stream.publisher === session.pc) session.stream.publisher = null;
    this.drops.closing(session.pc);
    await session.pc.close().catch(() => {});
  }

  private async whep(stream: Stream, offer: string, res: ServerResponse): Promise<void> {
    if (!stream.ready || !stream.codec) return reply(res, 404, "no stream is being published");
    stream.attempts++;
    if (this.opts.maxViewers && stream.attempts > this.opts.maxViewers) {
      return reply(res, 503, "viewer limit reached");
    }
    const pc = legPeer(this.opts.ice, stream.codec);
    const n = this.nextLeg++;
    const id = `v${n}`;
    let leg: Leg | undefined;
    try {
      if (this.opts.counterOffer) {
        const tr = pc.addTransceiver("video", { direction: "sendonly" });
        sendInStream(tr);
        leg = { tr, absId: 0, sending: false, forwarded: 0, feedback: 0 };
        await this.knobs.link(pc, leg, n);
        await pc.setLocalDescription(await pc.createOffer());
      } else {
        await pc.setRemoteDescription({ type: "offer", sdp: offer });
        const tr = pc.getTransceivers().find((t) => t.kind === "video");
        if (!tr) throw new RelayOfferError("no video in the offer");
        tr.setDirection("sendonly");
        sendInStream(tr);
        leg = { tr, audioTr: legAudio(pc, stream), absId: 0, sending: false, forwarded: 0, feedback: 0 };
        await this.knobs.link(pc, leg, n);
        await pc.setLocalDescription(await pc.createAnswer());
        leg.absId = absCaptureId(tr.headerExtensions);
      }
      this.opts.test?.prepareLeg?.(leg.tr);
      await gatheringComplete(pc, 5000);
    } catch {
      leg?.link?.close();
      await pc.close().catch(() => {});
      return reply(res, 400, "the offer was refused");
    }
    this.knobs.install(leg, n);
    const links = legLayers(leg, stream, id, this.opts.layerEstimate === true);
    this.sessions.set(id, { stream, leg, pc });
    stream.legs.add(leg);
    watchLeg(pc, leg, stream, {
      connected: () => {
        forwardKeyframeRequests(leg, stream);
        this.send.connected(leg);
        const taps = this.opts.test?.taps;
        if (taps) tapMediaSend(leg.tr, (d, port) => taps.legSend(port, d, monoNs()), "written");
        const closeAfter = leg.fault?.connected(performance.now()) ?? null;
        if (closeAfter !== null) this.later(closeAfter, () => this.closeSession(id));
      },
      end: () => void this.closeSession(id),
      gone: () => this.send.ended(leg),
      later: (ms, fn) => this.later(ms, fn),
      connectMs: this.opts.test?.legConnectMs,
    });
    this.answer(res, "whep", this.opts.counterOffer ? 406 : 201, pc, `/session/${id}`, links);
  }

  private async handleSession(req: IncomingMessage, res: ServerResponse, id: string, sub: string[]) {
    const session = this.sessions.get(id);
    if (!session) {
      req.resume();
      return reply(res, 404, "no such session");
    }
    if (sub.length > 0) return layerRoute(req, res, session, sub);
    if (req.method === "DELETE") {
      req.resume();
      this.deletes++;
      await this.closeSession(id);
      return reply(res, 200, "");
    }
    if (req.method === "PATCH" && session.leg && this.opts.counterOffer)
      return patchAnswer(req, res, session.pc, session.leg);
    req.resume();
    return reply(res, 405, "method not allowed");
  }
}
