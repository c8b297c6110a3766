// A run's audio track on the send side (docs/definitions.md#audio-track): the embedded Opus clip,
// its packets' fingerprints (what a viewer matches a received packet against) and the audio send
// log the publisher writes and the viewers read, as the video's.
import { type AudioClip, loadAudioClip } from "../../core/clip/clip.ts";
import type { Hasher } from "../../core/delay/fingerprint.ts";
import { SendLog } from "../../core/delay/sendlog.ts";
import type { AudioShare } from "../../workers/protocol.ts";

export interface AudioSide {
  clip: AudioClip;
  sendLog: SendLog;
  fingerprints: bigint[];
}

/** The audio side of a publishing run whose scenario asks for audio; null otherwise. */
export function audioSide(asked: boolean | undefined, hasher: Hasher): AudioSide | null {
  if (asked !== true) return null;
  const clip = loadAudioClip();
  return {
    clip,
    sendLog: SendLog.create(clip.packets.length),
    fingerprints: clip.packets.map((p) => hasher.packetFingerprint(p)),
  };
}

/** What a shard takes of it: the log's buffer and the fingerprints. */
export function audioShare(side: AudioSide | null): AudioShare | null {
  if (side === null) return null;
  return { buffer: side.sendLog.buffer, fingerprints: side.fingerprints, ticks: side.clip.ticks };
}
