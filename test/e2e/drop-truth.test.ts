// incompleteFrames against the relay's own count (issue 11): DropEvery drops packets the relay
// knows, so the frames it cut are the frames a viewer must report incomplete — no more (a
// complete frame after a cut one keeps its sample: the codec proves its head) and no fewer.
// The drops end well before the run does, so every cut frame has expired (1 s after its first
// packet) while the viewer still reads; frames the relay dropped whole never reach the viewer
// and cannot be counted by it (their packets count as lost). incompleteFrames is not windowed:
// frames cut within the viewer's first excludeFirstSeconds (1 s here) count too.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runThroughRelay } from "./harness.ts";

const DROP_EVERY = 23; // prime: the drops land at every position of the clip's packet loop, not at a few phases
const DROP_UNTIL_PACKET = 250; // about 3 s of either clip; each viewer reads 5 s or more

for (const codec of ["vp8", "h264"] as const) {
  test(`${codec}, DropEvery ${DROP_EVERY}: each viewer's incompleteFrames equals the frames the relay cut`, async (t) => {
    const { report: r, relay } = await runThroughRelay(
      { dropEvery: DROP_EVERY, test: { dropUntilPacket: DROP_UNTIL_PACKET } },
      { codec, viewers: 2, rampSeconds: 1, holdSeconds: 5 },
    );
    const viewers = r.viewers ?? [];
    assert.equal(viewers.length, 2);
    const seen: string[] = [];
    let lastPacketCuts = 0;
    for (const v of viewers) {
      // legs are numbered in the order of the WHEP offers: viewer 0 starts 0.5 s before viewer 1
      const cuts = relay.frameCuts(v.id + 1);
      assert.ok(cuts, `leg ${v.id + 1}`);
      const b = v.oneWayDelay[0]!;
      seen.push(
        `viewer ${v.id}: incomplete ${b.incompleteFrames}, relay cut ${cuts.cutFrames} (${cuts.wholeFramesDropped} whole, ${cuts.lastPacketCuts} by their last packet), dropped ${cuts.droppedPackets}, lost ${v.rtp.lost}`,
      );
      assert.equal(v.joined, true);
      assert.equal(cuts.droppedPackets, Math.floor(DROP_UNTIL_PACKET / DROP_EVERY));
      assert.equal(v.rtp.lost, cuts.droppedPackets, "every drop lost, nothing else");
      assert.equal(b.incompleteFrames, cuts.cutFrames - cuts.wholeFramesDropped, seen.join("; "));
      assert.equal(b.lateCompletedFrames, 0);
      assert.equal(b.unmatchedFrames + b.invalid, 0);
      lastPacketCuts += cuts.lastPacketCuts;
    }
    // the case the codec proof is for happened (the reference rule would count the next frame too);
    // (about 4 in 10 packets end a frame: twenty drops spread over the loop miss them all ~1e-5 of the time)
    assert.ok(lastPacketCuts > 0, `no drop hit a frame's last packet: ${seen.join("; ")}`);
    t.diagnostic(seen.join("; "));
  });
}
