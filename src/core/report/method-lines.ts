// The report's `method` lines (docs/definitions.md#method-lines): our own prose, in the documented
// order and with its required content. The one-way delay line is the only string of the report that
// contains the phrase "one-way delay"; no line uses the word for delay that the reference tool
// bans.

import { DelayHistogram } from "../stats/summaries.ts";
import type { ClockBlock } from "./types.ts";

export const JOIN_METHOD =
  "Join time is measured from the WHEP POST, sent after host-candidate ICE gathering; the join timeout starts at the POST, so it includes signalling. signalling: the WHEP answer arrives. firstRtp: the first RTP packet arrives. firstKeyframe: the last packet of the first keyframe received complete arrives — no decoder runs, so this is when a frame could first be decoded, not when one was. A viewer has joined when it reaches firstKeyframe within the join timeout. startOffsetMs is when the viewer actually sent its WHEP POST, after the run's t0: its scheduled slot plus its own host-candidate gathering (the worker threads, and what werift, fetch and the hasher set up lazily, are warmed before t0, so no viewer waits for them); a viewer that sent no POST shows its scheduled start. whepFlow says which WHEP exchange the viewer completed: answer (the server answered the viewer's offer with 201) or counter-offer (the server replied 406 with its own offer and took the viewer's answer by PATCH).";

export const LOSS_METHOD =
  "Loss: expected = highest − first extended sequence number + 1 (RFC 3550 A.1), lost = expected − distinct packets received, so duplicates are not counted. It is measured on the stream the viewer receives, after NACK recovery: a retransmission counts as received under its original sequence number, whether it came on the media SSRC or on RTX (RFC 4588, restored before it is counted), and lost is what never arrived by the end of the viewer's run. tooLate counts packets more than 65,535 sequence numbers behind the highest, too old to tell from a duplicate. Loss counts from the viewer's first packet; it is not windowed. Where no packet was expected (a viewer that received none; the aggregate or a cohort whose joined viewers received none) loss was not measured: it is null, not the reference tool's 0, and aggregate.lossPercentTotalReason says why.";

export const NACK_METHOD =
  "NACKs: nacksSent counts the RTCP generic NACK messages (RFC 4585) a viewer wrote, not the packets they name; a packet still missing is asked for again every 100 ms. The aggregate sums joined viewers only.";

export const JITTER_METHOD =
  "Jitter: RFC 3550 section 6.4.1 interarrival jitter, J += (|D| − J)/16 per packet in arrival order, retransmissions included, in milliseconds. D compares a packet with the one before, so a viewer that received fewer than two packets measured no jitter: its jitterMs is null, with jitterMsReason, where the reference tool writes 0, and the summaries over viewers leave it out.";

export const KEYFRAME_METHOD =
  "Keyframe interval: spacing of keyframe starts in RTP time, i.e. the GOP the server delivers. The publisher's clip has a fixed 1 s GOP, and the publisher answers a PLI or FIR by cutting it short: its next frame is the clip's next keyframe, at the normal pace with RTP timestamps one frame apart, at most one such keyframe per 300 ms, the requests in between coalesced into the next. A joining viewer's first keyframe is therefore what the server's keyframe handling gives: a request forwarded, throttled or answered from a cache. Each viewer asks for keyframes by the scenario's keyframeRequests (browser: as libwebrtc does, when nothing was shown for 3 s, 200 ms before its first frame; join: with its first RTP packet and every 500 ms until it has a complete keyframe); publisher.keyframeRequestsPerJoin is every PLI and FIR the publisher received over the run divided by the viewers that joined, so it shows how the server amplifies or absorbs the viewers' requests.";

/** The keyframe line of a run with `keyframeOnRequest: false`. */
export const KEYFRAME_METHOD_NO_REQUESTS =
  "Keyframe interval: spacing of keyframe starts in RTP time, i.e. the GOP the server delivers. The publisher's clip has a fixed 1 s GOP and this run's publisher ignores PLI and FIR (keyframeOnRequest false; it counts them), so a joining viewer waits for the next keyframe in the loop. Each viewer asks for keyframes by the scenario's keyframeRequests (browser: as libwebrtc does, when nothing was shown for 3 s, 200 ms before its first frame; join: with its first RTP packet and every 500 ms until it has a complete keyframe).";

/**
 * The keyframe line when the publisher is not this tool's (a `view` run without a send-log peer):
 * nothing about its clip.
 */
export const KEYFRAME_METHOD_FOREIGN_PUBLISHER =
  "Keyframe interval: spacing of keyframe starts in RTP time, i.e. the GOP the server delivers. This process did not publish the stream and followed no publisher's send log, so the publisher's GOP and whether it answers PLI are not known here; a joining viewer waits for the next keyframe the server delivers.";

export const ONE_WAY_DELAY_METHOD =
  "The one-way delay (source fingerprint) is, per frame, first-packet send to last-packet arrival, on the monotonic clock of the one process that runs both ends (process.hrtime, shared by its worker threads). The publisher logs t0, by absolute frame index with the clip frame it sent as that index (a keyframe on request skips the rest of a GOP), as the kernel's transmit stamp of the frame's first packet where client.sendStampSource says kernel (SO_TIMESTAMPING software stamps, read back from the socket's error queue by the datagram's number; CLOCK_REALTIME moved onto the monotonic clock as the receive stamps are), else the instant it hands that packet to the socket, after the packet was built and SRTP-protected (handover: up to a few tenths of a ms before the wire). A viewer datagram's arrival instant is the kernel's receive stamp of that datagram (ioctl SIOCGSTAMPNS on its socket as JavaScript reads it; CLOCK_REALTIME moved onto the monotonic clock by an offset read between two monotonic readings, error under 1 µs) where client.stampSource says kernel, so the client's own scheduling is not inside any figure; where it says thread (the fallback: no kernel stamp could be had, or stampSource thread), it is the viewer thread's reading the moment the datagram reached JavaScript, before decryption and before any other viewer's work. Either way datagrams are processed afterwards in slices of at most 100 µs (stamp first, process later). Each viewer reassembles frames by RTP timestamp; t1 is the arrival stamp of the frame's last packet — the marker packet, or, on a stream without markers, the last before the next timestamp (frameEnd). A complete frame is hashed — xxhash64 over the same bytes the reference hashes (the whole VP8 frame, or the H.264 VCL NAL units), not a SHA-256 prefix — and matched to the latest send of that clip frame at or before t1; the sample is t1 − t0. A frame is complete when every sequence number from its lowest packet to its highest arrived, its end is known, and its head is proven: the packet before its lowest belongs to an earlier frame, or — unlike the reference tool, which always requires that packet — the codec marks its lowest packet as a frame's first (VP8: S set with partition index 0; H.264: a NAL unit that begins an access unit — an access unit delimiter, parameter set, SEI, or a slice with first_mb_in_slice 0 — of a kind this stream has shown first in frames proven by the packet before and never after another packet of its frame, keyframes and other frames learnt apart), so losing the last packet of one frame does not also cost the next, complete frame its sample, and a frame whose first packet was lost stays incomplete. A frame still incomplete 1 s after its first packet counts in incompleteFrames, within excludeFirstSeconds too, and is never hashed; a viewer's first frame and the frames still pending when it stops are not counted, nor is a frame none of whose packets arrived (its packets count as lost). A frame the depacketiser rejects or that is not in the clip counts in unmatchedFrames; a frame whose bytes repeat in the clip (duplicateFrames) is never sampled; a match is invalid when the RTP timestamp step from the last sampled match names the frame's own absolute index and the log holds a newer send of the same clip frame, or does not hold the frame's own send yet, or when no send of it was logged at or before t1. loopMinMs is the shortest time the publisher took to send loopFrames frames: a delay longer than that is caught only by the RTP timestamp check, and a viewer's first match is taken as it is. A frame whose first packet arrived within excludeFirstSeconds (default 5) of the viewer's own first RTP packet is hashed and matched but counts in excludedFrames instead of giving a sample. lateCompletedFrames counts complete frames one of whose packets arrived after the frame's last packet (a retransmission or reordering); their sample still ends at that last packet. Retransmitted packets count like any other. It is network plus server forwarding plus both clients' stacks — not glass-to-glass; a `view` run has no send log and reports it unavailable. Percentiles come from a histogram within ±0.5 % of value and are printed to 0.1 ms. The CPU cost of reassembling and hashing every frame on every viewer is not measured. A second source, stamp, sits beside it and is never averaged with it: per complete frame, from the abs-capture-time stamp the publisher wrote into the frame's first packet (its wall clock at that packet's send) to the arrival of the frame's last packet, read on the publisher's clock — one clock in a single-process run; in a split run the viewer adds the clock offset measured by the clock exchange (the latest point when the frame arrived) and the block carries that exchange's uncertainty. Its unmatchedFrames counts complete frames whose first packet carried no stamp, a delay below 0 or above 60 s is invalid, its keyframe half is decided by the frame's first packet (a keyframe start), and it is unavailable, with the reason, when the server does not negotiate or forward the extension. In a split run whose `view` follows the publisher's send log (--send-log-peer), the fingerprint source works as above with each logged send instant moved onto the viewer's clock by the same measured offset, and carries the same uncertainty.";

export const FRAME_KIND_METHOD =
  "Keyframes and delta frames: each fingerprint sample is also counted under keyframes or deltaFrames by whether its matched clip frame is a keyframe. The two halves take the same samples (the same window), add up to samples, and do not change the pooled figure; a half without a sample has no ms.";

export const COMPARABILITY_METHOD =
  "Comparability: topology is single-process when this process published and viewed, split otherwise. The clock block says how both ends share a time base — monotonic in a single-process run, offset 0 ± 0 ms by construction; exchange when a clock peer answered; none in a split run until the publisher's clock is measured, with no offset or uncertainty recorded — and stepDetected is set when, between two observations, wall-clock and monotonic elapsed time differ by more than 0.1 ms plus 500 ppm. A source block is comparable only when it is available, the clock was measured, its uncertainty is 1 ms or less and, for a method that reads a wall clock, no step was detected; an unavailable block carries no uncertainty. Two reports rank on a source only when both blocks are comparable, both aggregates valid, the clip the same (codec, loop frames and clipHash, a SHA-256 over the frame fingerprints) and the scenario keys that shape the load or the definitions the same (the codec, the viewers, the ramp with its seeded offsets, the hold, the warmup, the join timeout, the stall threshold, the excluded first seconds, the two loopback keys, keyframeOnRequest and keyframeRequests); the name, the endpoint hosts, bearerEnv, metrics, workers, receivePath and viewerSockets say how the client ran and do not take part. Sources are never averaged and there is no merged best source.";

export const TRANSIT_METHOD =
  "Packet transit: the publisher stamps each packet's wall-clock send time in the abs-capture-time RTP header extension; a viewer's sample is its arrival time minus the stamp. It is network plus server forwarding plus both clients' stacks, per packet rather than per frame, meaningful on one host or with synchronised clocks — not glass-to-glass. A stamp whose transit is negative or above 60 s is invalid, and a viewer with more than 1 % invalid stamps has no figure. When the server does not negotiate or forward the extension, packet transit is reported unavailable, never estimated.";

export const PERCENTILE_METHOD = `Percentiles are nearest-rank. Join, loss, jitter and keyframe-interval summaries take one exact value per joined viewer. Frame delays and packet transit pool every valid sample of every joined viewer that has them, merged exactly, within ±0.5 % of value, printed to 0.1 ms: ${DelayHistogram.precisionNote}.`;

export const NO_VERDICT_METHOD =
  "No-verdict rule: when more than 10% of the viewers failed to join (a viewer that never started counts as failed), when none joined, when the publisher never streamed, or when the run was interrupted, the aggregate is not valid and must not be quoted.";

export const RAMP_OFFSET_METHOD =
  "Ramp offset: with rampOffsetSeed, viewer i starts at its ramp slot plus an offset in [0, rampOffsetMaxSeconds) drawn from SplitMix64 seeded with rampOffsetSeed; offset i depends only on the seed and i, not on the number of viewers, so the same seed gives the same schedule. rampOffsetMs records each viewer's offset, startOffsetMs includes it, and the viewers stay rampOffsetMaxSeconds longer.";

export const CLOCK_EXCHANGE_METHOD =
  "Clock exchange: a split run measures the publisher's clock over UDP with 16 probes per point (request stamped t1, the peer's receipt t2 and reply t3, arrival t4); a point keeps the probe with the smallest round trip, offset ((t2 − t1) + (t3 − t4)) / 2, publisher minus viewer, known to ± rtt/2. Points are taken before the first viewer starts, every 30 s while viewers run and after they stop; offsetMs is the first point's offset and uncertaintyMs the largest rtt/2, rounded up to 0.001 ms. A point that fails is skipped; with no point the method is none and the reason says why. No figure applies the offset yet.";

export const RESOURCES_METHOD =
  "Client resources describe this process (publisher, viewers, reassembly and hashing), not the server. cpuSeconds is the process's user + system CPU time between startedAt and finishedAt (process.cpuUsage, all threads), and cpuUtilisationPercent = 100 × cpuSeconds / (wall seconds × cpus), 100 meaning every core busy all run. Node has no goroutines, so instead of peakGoroutines the report gives peakHeapBytes and peakRssBytes (the largest V8 heap in use and resident set size seen at the start, each timeline second and the end), workers (the worker threads that ran viewers; 0: the viewers ran in the main thread), mainThread and, per shard, client.workers: the thread's own CPU time (process.threadCpuUsage), usPerPacket (that CPU per RTP packet its viewers received), event-loop utilisation (share of the time the loop was busy) and event-loop delay p50/p99/max (how late a timer fired, one every 2 ms on the main thread and every 10 ms on a viewer thread: the queueing this client adds to every arrival instant), and udpReceiveErrors, the host's kernel UDP receive drops during the run (/proc/net/snmp RcvbufErrors and InErrors deltas, Linux; every socket on the host). client.udpDrops says whose sockets the kernel dropped on: own (the viewer threads' own sockets, the sum of client.workers[].socketDrops: on the arena path the count each datagram brings with it, SO_RXQ_OVFL; elsewhere /proc/net/udp's per-socket drops column, by the socket's inode), relay (the in-process built-in relay's sockets: the server's) and host (the host's counters above, context). client.ceiling is near when the client itself may have distorted a figure (the rule is in the line on what the client adds); a run near its ceiling is not comparable on any frame-delay figure. The timeline adds cpuPercent (process CPU over that second, % of all cores) eventLoopDelayMs (the worst shard thread's p99 event-loop delay over that second) and receiveLagMs (the worst viewer thread's p99 receive lag over that second).";

export const CLIENT_LAG_METHOD =
  "What the client adds: client.stampSource (per thread client.workers[].stampSource, with kernelStamped and threadStamped counts and the thread's reason) names the clock of the arrival instants: kernel, thread, or mixed when threads or datagrams differ (client.stampReasons names each thread that stamped any itself). client.workers[].receiveLagMs is, per viewer thread, how long its media datagrams waited in this client before JavaScript read them: exact for a kernel-stamped datagram (the thread's reading − the kernel's stamp), and outside every delay figure then; for a thread-stamped one an upper bound on the wait before its stamp, inside the figures (a datagram stamped in one poll of the event loop was not readable when the loop last looked, so it waited at most the thread's busy time since the first stamp of that earlier poll, or since the end of the latest slice when the loop blocked after it; not seen: the kernel's delivery, and the time the operating system kept the woken thread off the CPU, which the thread's event-loop delay shows). It counts the datagrams a thread stamped from its first viewer's join plus excludeFirstSeconds on, when delay samples start (the timeline's per-second figure shows the start-up too); client.receiveLagMs merges every thread's datagrams exactly. client.publisherSendLagMs is, per frame, the publisher's start of sending to its first packet at the socket: outside the delay figures, since t0 is taken at the socket. client.ceiling judges what can still distort a figure. Any thread: event-loop utilisation 0.9 or more (it does not keep up), or its intake dropped a datagram, or the kernel dropped datagrams on its own sockets (loss that is ours); the host's UDP receive drops only where some thread's own could not be read (the host's counter includes a server's drops on the same host). A kernel-stamped viewer thread, judged on its processing wait (client.workers[].processingWaitMs: a datagram's arrival stamp to the start of its processing, the receive lag plus the intake's queue): a p50 of 50 ms or more (it does not keep up: most datagrams wait), or frames repaired (completed by a late packet) while its processing wait or event-loop delay p99 reached the larger of 5 ms and 10 % of the run's frame-delay p99 (its NACKs went out that late, and the repaired frames carry the wait). A thread-stamped viewer thread: event-loop delay p99 20 ms, or receive lag p99 reaching the larger of 5 ms and 10 % of the frame-delay p99 (its own queueing is inside every delay). The publisher's thread: event-loop delay p99 20 ms, or a send lag p99 of 33 ms (one frame at 30 fps) or more. See docs/definitions.md#arrival-stamps, #receive-lag and #client-ceiling.";
export const AUTO_LOOPBACK_METHOD =
  "Loopback candidates: a WHIP or WHEP host is a loopback address and the scenario sets neither loopbackOnly nor includeLoopback, so the peers added a 127.0.0.1 host candidate by themselves (as includeLoopback does); without one no candidate pair reaches a server on loopback.";

/** What the viewers saw (docs/definitions.md#viewer-experience and #viewer-experience-pooled). */
export const RENDER_METHOD =
  "What viewers saw: a render model per viewer stands in for a decoder. A frame the reassembler completes is shown when libwebrtc's reference finder and frame buffer would pass it (a keyframe always; a VP8 delta frame with a PictureID when the frame before it by PictureID was shown; an H.264 delta frame, or VP8 without a PictureID, when its first sequence number follows the last packet shown), at the kernel-stamped arrival of the last packet it needed, so after a frame lost for good nothing is shown until the next keyframe while packets keep arriving; a frame completed after a later one was shown is late. Freezes and pauses are counted on the intervals between shown frames as libwebrtc's video quality observer counts freezeCount and pauseCount (an interval of at least max(3 × the mean of the last 30, the mean + 150 ms) once 5 were seen; a pause after 5 s without a packet); a gap at a viewer's end is its end gap, never a freeze. A browser's playout delay moves the instants without changing the intervals, except that it absorbs arrival jitter below its target. A viewer's frozen share is its frozen time over its time from its first shown frame to its end; aggregate.render pools the viewers' counts as sums, their frozen shares and end gaps as exact summaries, and their recovery and PLI → keyframe times as exactly merged histograms. A stall (a gap between packets) and a freeze (a gap between shown frames) are different figures.";

/** The churn line (docs/definitions.md#churn). */
export const CHURN_METHOD =
  "Churn: each viewer lives its own lifetime, the scenario's shortest lifetime plus an exponential draw (SplitMix64 from churn.seed, one stream per place) with the mean churn.meanLifetimeSeconds, counted from its scheduled start; when it ends the viewer sends its WHEP DELETE and closes, and a new viewer with a new id (a late joiner) starts in its place at that instant, unless the run has less left than the shortest lifetime. Every viewer, late joiners included, counts in the aggregate's viewers, joined and failed, so the no-verdict rule is over every viewer that tried to join. Each viewer's figures cover its own lifetime, from its WHEP POST to its stop, with its own excluded first seconds; the aggregate's summaries are over the joined viewers' values and its one-way delay and packet transit merge their histograms exactly, so every viewer's samples count once, over its own lifetime. aggregate.churn counts joins, leaves and late joiners, with the late joiners' signalling, ICE connected and first keyframe times. Reports that differ on churn are not ranked.";

/** docs/definitions.md#cohorts, #link-emulator and #cohort-figures in one line. */
export const COHORTS_METHOD =
  "Cohorts: each cohort's viewers receive and send through a link this client emulates in its own process (no root, no tc). Per datagram: the profile in force (the base and its timed steps), random loss, Gilbert–Elliott burst loss, the rate limit's tail-drop queue, then delay and jitter, drawn from sfc32 seeded by the cohort's seed, the viewer's id and the direction, so the same scenario draws the same again. The link holds every datagram of a viewer's transports from the end of its ICE gathering (STUN, DTLS, media, NACKs, receiver reports); the WHEP HTTP exchange does not cross it. A held media datagram arrives at its stamp plus exactly what the link added: the emulated delay is in the delay figures, the lateness of the timer that releases it is not (it only delays the viewer's reaction, a NACK). aggregate.cohorts[] pools each cohort's viewers exactly as the aggregate pools all of them, the unimpaired viewers last; its loss is after repair, and link counts every datagram the emulator saw per direction (delayed, lost, queue-dropped). A threshold on a cohort is judged on its entry.";

export interface MethodContext {
  /** the scenario has a rampOffsetSeed */
  hasRampOffsetSeed: boolean;
  clock: ClockBlock;
  /** client.resources is present */
  hasResources: boolean;
  /**
   * The publisher is this tool's, with its known clip: this process published (`run`), or a
   * `view` followed a `whipbench publish` send log. Otherwise nothing is claimed about its clip.
   */
  publisherKnown: boolean;
  /** the scenario's keyframeOnRequest (absent: on) */
  keyframeOnRequest?: boolean;
  /** loopback candidates were included because a server host is a loopback address */
  autoLoopback?: boolean;
  /** the scenario has churn */
  churn?: boolean;
  /** the scenario has cohorts (docs/definitions.md#cohorts) */
  cohorts?: boolean;
  /** the scenario asked for the audio track (docs/definitions.md#audio-track) */
  audio?: boolean;
  /** the run carried reference viewers (docs/definitions.md#reference-viewers) */
  reference?: boolean;
  /** what the viewers offered and honoured; absent: browser, the default */
  viewerProfile?: "browser" | "minimal";
  /** the simulcast layers' rids, lowest first (docs/definitions.md#simulcast-publisher) */
  simulcast?: readonly string[];
}

/** The simulcast line (docs/definitions.md#simulcast-publisher). */
function simulcastMethod(rids: readonly string[]): string {
  return `Simulcast: the publisher sends ${rids.length} layers (rids ${rids.join(", ")}, lowest first) on one WHIP session, as RFC 8853 describes: each layer its own SSRC, every packet naming its rid (sdes:rtp-stream-id) and mid, all layers the same pictures with keyframes on the same frames. Each layer's frames have their own fingerprints and each layer frame its own send instant in the one send log, so a viewer's frame is matched to the send of the layer it came from. A keyframe request names a layer's SSRC and cuts that layer's GOP short (one naming no layer's SSRC cuts every layer's). Reports that differ on simulcast are not ranked.`;
}

/** The reference viewers' line (docs/definitions.md#reference-viewers, #reference-agreement). */
const REFERENCE_METHOD =
  "Reference viewers: libwebrtc M106 (@roamhq/wrtc), each in a process of its own, join beside the load's viewers at t0 on the same WHEP endpoint with the same token and stop at their deadline. Their getStats figures (freezeCount, totalFreezesDuration, pauseCount, totalPausesDuration, framesReceived, framesDecoded, framesDropped, nackCount, pliCount, jitterBufferDelay, jitterBufferEmittedCount) are summed per group beside the render model's, and a line says whether the two agree within the calibration's tolerance: freezes within 1 per 30 s, frozen seconds within 15 % of libwebrtc's (at least 0.25 s) per 30 s. They are not load: no other figure counts them, and reports with and without them rank. A cohort's emulated link is not applied to them, so that cohort's line is not judged.";

/** The audio line (docs/definitions.md#audio-track). */
const AUDIO_METHOD =
  "Audio: the publisher sends the Opus clip as a second track, one 20 ms packet at a time on its own schedule, each packet's send instant in an audio send log; every packet is fingerprinted whole (xxhash64 of its payload, no reassembly) and matched to its send as a video frame is, so its delay runs from the send instant to its arrival. Loss and jitter are RFC 3550's at 48 kHz; no NACK is sent for audio. The A/V offset, per second of send instants, is the mean audio delay minus the mean video delay over the seconds holding samples of both. Reports that differ on audio are not ranked.";

/** The viewer profile's line (docs/definitions.md#viewer-profile). */
export function viewerProfileMethod(profile: "browser" | "minimal"): string {
  const what =
    profile === "browser"
      ? "browser: each viewer offered what libwebrtc M106 offers for a receive-only video section as far as it honours it — transport-cc with the transport-wide sequence number, rtx per codec, sdes:mid, abs-send-time — beside abs-capture-time, sent RTCP transport feedback every 50 ms where transport-cc was negotiated (transportFeedbackSent) and no REMB, and restored each retransmission on the RTX payload type to its original sequence number before loss, NACK and reassembly saw it (rtxReceived)"
      : "minimal: each viewer offered abs-capture-time alone, no transport-cc and no rtx, sent no transport feedback and no REMB, and took retransmissions on the media SSRC";
  const reports =
    profile === "browser"
      ? "Receiver reports go out 0.5–1.5 s, drawn uniformly, after the last one sent, alone or leading a NACK or PLI, and carry no SDES (libwebrtc's for a receive-only video stream)."
      : "Receiver reports go out 0.5–1.5 s, drawn uniformly, after the last one sent alone, and each carries an SDES (CNAME), the NACKs and PLIs they lead included (the earlier viewer's).";
  return `Viewer profile: ${what}. ${reports} Reports made with different profiles are not ranked.`;
}

/** The method lines in docs/definitions.md#method-lines order, with the applicable appended lines. */
export function methodLines(ctx: MethodContext): string[] {
  const lines = [
    JOIN_METHOD,
    LOSS_METHOD,
    NACK_METHOD,
    viewerProfileMethod(ctx.viewerProfile ?? "browser"),
    JITTER_METHOD,
    !ctx.publisherKnown
      ? KEYFRAME_METHOD_FOREIGN_PUBLISHER
      : ctx.keyframeOnRequest === false
        ? KEYFRAME_METHOD_NO_REQUESTS
        : KEYFRAME_METHOD,
    ONE_WAY_DELAY_METHOD,
    FRAME_KIND_METHOD,
    COMPARABILITY_METHOD,
    TRANSIT_METHOD,
    RENDER_METHOD,
    PERCENTILE_METHOD,
    NO_VERDICT_METHOD,
  ];
  if (ctx.hasRampOffsetSeed) lines.push(RAMP_OFFSET_METHOD);
  if (ctx.clock.method === "exchange" || (ctx.clock.reason ?? "") !== "") lines.push(CLOCK_EXCHANGE_METHOD);
  if (ctx.hasResources) lines.push(RESOURCES_METHOD, CLIENT_LAG_METHOD);
  if (ctx.autoLoopback) lines.push(AUTO_LOOPBACK_METHOD);
  if (ctx.churn === true) lines.push(CHURN_METHOD);
  if (ctx.cohorts) lines.push(COHORTS_METHOD);
  if (ctx.audio === true) lines.push(AUDIO_METHOD);
  if (ctx.reference === true) lines.push(REFERENCE_METHOD);
  if (ctx.simulcast !== undefined) lines.push(simulcastMethod(ctx.simulcast));
  return lines;
}
