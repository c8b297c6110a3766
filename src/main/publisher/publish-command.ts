// What `whipbench publish --whip URL` does (docs/definitions.md#publish): the clip in a loop
// until --duration or an interrupt, answering the clock exchange and serving the send log when asked.
import { isOggFile, loadAudioClip, loadClip } from "../../core/clip/clip.ts";
import { loadTemporalClip, TEMPORAL_CLIP } from "../../core/clip/temporal.ts";
import { takeWallAnchor, wallOf } from "../../core/clock/clock.ts";
import { clipIdentity, createHasher } from "../../core/delay/fingerprint.ts";
import { EXIT_OK, PublisherError, UsageError } from "../../core/errors.ts";
import { fmtFixed, fmtG4 } from "../../core/go-compat/fmt.ts";
import { host } from "../../core/redact.ts";
import { type Logger, stderrLogger } from "../observe/log.ts";
import { endWithError, withInterrupt } from "../process/exit.ts";
import { iceFor } from "../process/ice-choice.ts";
import { tokenFromEnv } from "../process/tokens.ts";
import { type Responder, startResponder } from "../split/clock-exchange.ts";
import { type SendLogServer, serveSendLog } from "../split/sendlog-channel.ts";
import { Publisher } from "./publisher.ts";

export interface PublishFlags {
  whip?: string;
  codec: "vp8" | "h264";
  /** clip files: at most one video file and one Ogg/Opus file (the audio track) */
  clip?: string[];
  /** the embedded Opus clip as a second track (docs/definitions.md#audio-track) */
  audio?: boolean;
  fps?: number;
  duration?: number;
  /** POST + ICE + DTLS budget, ns */
  connectTimeout?: number;
  bearerEnv?: string;
  includeLoopback?: boolean;
  loopbackOnly?: boolean;
  stamp: boolean;
  /** answer the UDP clock exchange here (docs/definitions.md#clock-exchange) */
  clockListen?: { host: string; port: number };
  /** serve the send log here, for a `view --send-log-peer` on another host */
  sendLogListen?: { host: string; port: number };
}

export async function publishCommand(flags: PublishFlags): Promise<number> {
  if (!flags.whip) throw new UsageError("--whip is required");
  const bearer = tokenFromEnv("--bearer-env", flags.bearerEnv, "publish");
  const opts: { path?: string; fps?: number } = {};
  const files = clipFiles(flags.clip ?? []);
  if (files.video !== undefined) opts.path = files.video;
  if (flags.fps !== undefined) opts.fps = flags.fps;
  const clip = publishedClip(flags.codec, opts);
  const audio = files.audio !== undefined || flags.audio === true ? loadAudioClip(files.audio) : null;
  const log = stderrLogger();
  const whipHost = host(flags.whip);
  log.line(
    `publishing ${clip.codec} (${clip.frames.length} frames, ${fmtG4(90_000 / clip.ticks)} fps, keyframe every ${clip.keyframeInterval} frames${clip.tids !== undefined ? ", two temporal layers" : ""}) to ${whipHost}`,
  );
  if (audio !== null) log.line(`with an Opus audio track (${audio.packets.length} packets of 20 ms)`);
  const anchor = takeWallAnchor();
  let responder: Responder | null = null;
  let channel: SendLogServer | null = null;
  try {
    if (flags.clockListen) {
      responder = await startResponder(flags.clockListen.host, flags.clockListen.port, anchor);
      log.line(`answering the clock exchange on UDP port ${responder.port}`);
    }
    if (flags.sendLogListen) {
      const identity = clipIdentity(await createHasher(), clip);
      channel = await serveSendLog(flags.sendLogListen.host, flags.sendLogListen.port, identity, bearer);
      log.line(`serving the send log on TCP port ${channel.port}`);
    }
  } catch (err) {
    await responder?.close();
    await channel?.close();
    return endWithError(err, "publish");
  }
  const served = channel;
  const publisher = new Publisher({
    whip: flags.whip,
    bearer,
    clip,
    ice: iceFor([flags.whip], flags, log).ice,
    noStamp: !flags.stamp,
    sendLog: null,
    anchor,
    ...(audio !== null ? { audio: { clip: audio, sendLog: null } } : {}),
    ...(flags.connectTimeout !== undefined ? { connectTimeoutNs: flags.connectTimeout } : {}),
    ...(served
      ? {
          onFrameSent: (k: number, t0: number, i: number, kernel: boolean) =>
            served.record(k, wallOf(anchor, t0), i, kernel),
        }
      : {}),
  });
  try {
    return await publishUntilStopped(publisher, flags, log);
  } finally {
    await responder?.close();
    await channel?.close();
  }
}

/** The video file and the Ogg/Opus file among the --clip values (docs/definitions.md#audio-clip). */
/** `--clip vp8-tl` names the embedded temporal-layer clip as the scenario's `clip` does (with its TIDs). */
function publishedClip(codec: "vp8" | "h264", opts: { path?: string; fps?: number }) {
  if (opts.path !== TEMPORAL_CLIP) return loadClip(codec, opts);
  if (codec !== "vp8") throw new UsageError(`--clip ${TEMPORAL_CLIP} needs --codec vp8`);
  return loadTemporalClip();
}

function clipFiles(files: readonly string[]): { video?: string; audio?: string } {
  const audio = files.filter(isOggFile);
  const video = files.filter((f) => !isOggFile(f));
  if (audio.length > 1 || video.length > 1) {
    throw new UsageError("--clip: at most one video file and one Ogg/Opus file");
  }
  return {
    ...(video[0] !== undefined ? { video: video[0] } : {}),
    ...(audio[0] !== undefined ? { audio: audio[0] } : {}),
  };
}

function publishUntilStopped(publisher: Publisher, flags: PublishFlags, log: Logger): Promise<number> {
  return withInterrupt(log, async (interrupt) => {
    try {
      await publisher.connect(interrupt);
    } catch (err) {
      return endWithError(err, "publish");
    }
    const r = publisher.result;
    log.line(`connected in ${Math.round(r.connectNs / 1e6)} ms; send-time stamp negotiated: ${r.stamped}`);
    const stop = flags.duration
      ? AbortSignal.any([interrupt, AbortSignal.timeout(flags.duration / 1e6)])
      : interrupt;
    const res = await publisher.stream(stop);
    process.stdout.write(
      `published ${res.framesSent} frames, ${res.packetsSent} packets, ${res.bytesSent} bytes in ${fmtFixed(res.sendingNs / 1e9, 1)} s (${res.loops} loops, ${res.scheduleSlips} schedule slips)${res.audio !== undefined ? `; audio ${res.audio.packetsSent} packets, ${res.audio.bytesSent} bytes` : ""}\n`,
    );
    if (res.errorKind)
      return endWithError(new PublisherError(res.errorKind, res.error ?? res.errorKind), "publish");
    return EXIT_OK;
  });
}
