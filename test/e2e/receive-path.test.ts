// Receive-path conformance: one stream, through werift's receive path, the lean one and the
// arena one side by side (same run, same thread, viewers taking turns), must give the same
// per-viewer figures. The relay starts all six legs on the same packet (a keyframe's first) and stops them after the
// same number, drops every 29th packet (unrecoverable: re-NACKed), loses every 17th beneath its
// NACK responder (repaired), and shifts sequence numbers and timestamps so both wrap 60 packets in. Both
// codecs, both SRTP profiles. An audio track beside the video starts with the burst: the same packets on every leg.
import assert from "node:assert/strict";
import { test } from "node:test";
import { receivePathEngine } from "../../bench/receive-path-engine.ts";
import type { ViewerReport } from "../../src/core/report/types.ts";
import { SRTP_AEAD_AES_128_GCM, SRTP_AES128_CM_HMAC_SHA1_80 } from "../../src/core/srtp/kdf.ts";
import type { Relay } from "../../src/main/relay/relay.ts";
import { inThreadEngine } from "../../src/main/run/engine.ts";
import { restrictSrtpProfiles } from "../../src/net/werift/srtp-start.ts";
import type { ShardTick } from "../../src/workers/protocol.ts";
import { ownSrtpDiagnostics } from "../../src/workers/thread.ts";
import { runThroughRelay } from "./harness.ts";
import { figures, nacksAgree } from "./stream-figures.ts";

// the clips' keyframes are 6..13 packets: the burst starts on one, so the first keyframe is whole
const PACKETS = 140;
const DROP_EVERY = 29;
const LOSE_EVERY = 17;
const PATHS = ["werift", "lean", "arena"] as const;

/**
 * The run's end: every one of the six legs was sent the whole burst, video and audio, and after it
 * each path's shard read no packet for a whole tick (a second): the repairs and the tail are in.
 */
function burstEnd() {
  let sent = false;
  const quiet = new Map<number, boolean>();
  return {
    onTick: (t: ShardTick) => {
      if (sent) quiet.set(t.shard, t.packets === 0);
    },
    done: (relay: Relay): boolean => {
      const legs = relay.legBurst("s");
      sent ||= legs.length === 6 && legs.every((n) => n >= PACKETS);
      return quiet.size === PATHS.length && [...quiet.values()].every((q) => q);
    },
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

for (const codec of ["vp8", "h264"] as const) {
  for (const profile of [SRTP_AEAD_AES_128_GCM, SRTP_AES128_CM_HMAC_SHA1_80] as const) {
    const name = profile === SRTP_AEAD_AES_128_GCM ? "AEAD_AES_128_GCM" : "AES_CM_128_HMAC_SHA1_80";
    test(`${codec}, ${name}: werift, lean and arena paths agree on one stream with faults and wraps`, async () => {
      const before = ownSrtpDiagnostics();
      const end = burstEnd();
      const { report: r } = await runThroughRelay(
        {
          dropEvery: DROP_EVERY,
          loseEvery: LOSE_EVERY,
          test: {
            burst: { legs: 6, packets: PACKETS },
            wrapAfterPackets: 60,
            prepareLeg: (tr) => restrictSrtpProfiles(tr, [profile]),
          },
        },
        // the run ends once the burst is in (burstEnd); the hold only bounds it. A fixed 5.5 s
        // hold ended under load (load average 4–10) before slow joins let the burst finish: a
        // viewer with 13 packets of 140, or short of its tail and last repair
        { codec, viewers: 6, rampSeconds: 0, holdSeconds: 30, excludeFirstSeconds: 0, audio: true },
        receivePathEngine(inThreadEngine(), PATHS),
        end.onTick,
        { stopWhen: { done: end.done, afterMs: 0 } },
      );
      assert.equal(r.interrupted, true, "the burst reached every leg before the hold's end");
      const viewers = r.viewers ?? [];
      assert.equal(viewers.length, 6);
      // viewer k ran on PATHS[k % 3]; each path's shard says which path really read it
      const werift = viewers.filter((v) => v.id % 3 === 0);
      const lean = viewers.filter((v) => v.id % 3 !== 0);
      const ref = figures(werift[0]!);
      const stall = `event-loop delay max ${r.client.resources?.mainThread?.eventLoopDelayMs.max} ms`;
      for (const v of viewers)
        assert.deepEqual(figures(v), ref, `viewer ${v.id} (${PATHS[v.id % 3]}), ${stall}`);
      assert.deepEqual(
        (r.client.workers ?? []).map((w) => w.receivePath),
        PATHS,
        JSON.stringify(r.client.workers?.map((w) => w.receivePathReason)),
      );
      // RTCP out: werift's on its path, native SRTCP on ours (docs/definitions.md#receive-paths)
      assert.deepEqual(
        (r.client.workers ?? []).map((w) => w.rtcpSend),
        ["werift", "native", "native"],
        JSON.stringify(r.client.workers?.map((w) => w.rtcpSendReason)),
      );

      // the stream really had what the test is about
      assert.equal(ref.joined, true);
      // the burst ended before the run did (only a lost tail packet can be missing from `expected`)
      assert.ok(ref.expected >= PACKETS - 2 && ref.expected <= PACKETS, `expected ${ref.expected}`);
      assert.ok(ref.lost >= 4, `lost ${ref.lost}`); // the drops, unrecoverable
      // every drop asked for 10 times, batched by each viewer's 20 ms ticks
      assert.equal(nacksAgree(viewers, ref.lost), null);
      assert.ok(ref.lateCompletedFrames > 0, "losses repaired by NACK complete frames late");
      assert.ok(ref.incompleteFrames > 0);
      // duplicates only from retransmissions that raced a NACK retry
      for (const v of viewers)
        assert.ok(v.rtp.duplicates <= ref.lost + 10, `viewer ${v.id}: ${v.rtp.duplicates} duplicates`);
      assert.equal(ref.invalid + ref.unmatchedFrames, 0);
      assert.ok(ref.samples > 0 && ref.samples === ref.completeFrames);
      assert.equal(ref.stamped, ref.received);
      // the audio track beside the video: the burst's packets, each matched to its send, on every path
      assert.deepEqual(
        [ref.audio.available, ref.audio.received, ref.audio.lost, ref.audio.samples],
        [true, PACKETS, 0, PACKETS],
      );
      // both lean viewers negotiated the profile and crossed the sequence wrap (ROC 1)
      const after = ownSrtpDiagnostics();
      assert.equal(after.sessions - before.sessions, 4);
      const got = profile === SRTP_AEAD_AES_128_GCM ? "gcm" : "cm";
      assert.equal(after[got] - before[got], 4, `${name} negotiated`);
      // the arena viewers unprotected in place with OpenSSL, the lean ones with node:crypto
      if (process.platform === "linux") assert.equal(after.openssl - before.openssl, 2);
      assert.equal(after.maxRoc, 1);
      assert.equal(after.srtpRejected - before.srtpRejected, 0);
      assert.ok(after.reportsSent > before.reportsSent, "the lean path sent receiver reports");

      // delays agree: per-path medians of the per-viewer p50s within 5 ms (or half of them)
      const p50 = (vs: ViewerReport[]) => median(vs.map((v) => v.oneWayDelay[0]!.ms?.p50 ?? Number.NaN));
      const [a, b] = [p50(werift), p50(lean)];
      assert.ok(Number.isFinite(a) && Number.isFinite(b));
      assert.ok(
        Math.abs(a - b) <= Math.max(5, 0.5 * Math.max(a, b)),
        `delay p50 werift ${a} ms, lean ${b} ms`,
      );
    });
  }
}
