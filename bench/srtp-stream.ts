// A pre-protected SRTP stream for the receive-path benchmarks: 1100-byte payloads, four packets
// a frame (marker on the fourth), abs-capture-time on every packet, protected by werift's own
// SRTP session with a fixed key and salt; or the embedded clip as recorded by clip-recording.ts, protected alike.
import { RtpHeader, SrtpSession } from "werift";
import { unixNsToAbsCapture } from "../src/core/rtp/abs-capture-time.ts";
import { SRTP_AEAD_AES_128_GCM, type SrtpProfile } from "../src/core/srtp/kdf.ts";
import type { OwnSrtpOptions } from "../src/workers/receive/receiver.ts";
import type { Packet } from "./clip-recording.ts";

export const STREAM_KEY = Buffer.alloc(16, 7);
export const STREAM_SSRC = 0x1234;
export const STREAM_PAYLOAD_TYPE = 96;
export const STREAM_ABS_ID = 1;

/** The master salt for the profile (12 bytes for GCM, 14 for AES-CM). */
export function streamSalt(profile: SrtpProfile): Buffer {
  return Buffer.alloc(profile === SRTP_AEAD_AES_128_GCM ? 12 : 14, 9);
}

/** werift's SRTP session with the stream's key and salt, for protecting it. */
function streamSession(profile: SrtpProfile): SrtpSession {
  const salt = streamSalt(profile);
  return new SrtpSession({
    keys: {
      localMasterKey: STREAM_KEY,
      localMasterSalt: salt,
      remoteMasterKey: STREAM_KEY,
      remoteMasterSalt: salt,
    },
    profile,
  });
}

/** Our SRTP stage's options for the stream (RTCP and NACKs go nowhere), less its next stage. */
export function streamReceiverOptions(profile: SrtpProfile): Omit<OwnSrtpOptions, "next"> {
  return {
    profile,
    remoteMasterKey: STREAM_KEY,
    remoteMasterSalt: streamSalt(profile),
    payloadTypes: [STREAM_PAYLOAD_TYPE],
    clockRate: 90000,
    absId: STREAM_ABS_ID,
    senderSsrc: 1,
    sendRtcp: () => {},
    onNack: () => {},
  };
}

/** `count` protected packets, sequence numbers from `firstSeq` (mod 2^16). */
export function protectedStream(profile: SrtpProfile, count: number, firstSeq: number): Buffer[] {
  const session = streamSession(profile);
  const payload = Buffer.alloc(1100, 0x5a);
  const abs = Buffer.alloc(8);
  const out: Buffer[] = [];
  for (let k = 0; k < count; k++) {
    const h = new RtpHeader({
      sequenceNumber: (firstSeq + k) & 0xffff,
      timestamp: (Math.floor(k / 4) * 3000) >>> 0,
      marker: k % 4 === 3,
      payloadType: STREAM_PAYLOAD_TYPE,
      ssrc: STREAM_SSRC,
    });
    unixNsToAbsCapture(Date.now() * 1e6, abs);
    h.extension = true;
    h.extensions = [{ id: STREAM_ABS_ID, payload: Buffer.from(abs) }];
    out.push(session.encrypt(payload, h));
  }
  return out;
}

/** The recorded clip packets (bench/clip-recording.ts) protected as the publisher's stream, SSRC and payload type above. */
export function protectRecording(profile: SrtpProfile, packets: readonly Packet[]): Buffer[] {
  const session = streamSession(profile);
  const abs = Buffer.alloc(8);
  return packets.map((p) => {
    const h = new RtpHeader({
      sequenceNumber: p.seq,
      timestamp: p.ts,
      marker: p.marker,
      payloadType: STREAM_PAYLOAD_TYPE,
      ssrc: STREAM_SSRC,
    });
    unixNsToAbsCapture(p.captureWallNs, abs);
    h.extension = true;
    h.extensions = [{ id: STREAM_ABS_ID, payload: Buffer.from(abs) }];
    return session.encrypt(Buffer.from(p.payload), h);
  });
}
