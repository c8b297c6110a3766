// A NACK repaired through a relay thread (src/main/relay/relay-thread.ts, threads.ts): with
// `--workers 1 --lose-every 20` the legs' video is sent by the thread, which loses every 20th
// first transmission beneath its NACK responder; the viewers' NACKs reach the thread through the
// main thread's werift, the thread sends the packets again from the leg's history, and nothing
// stays lost but a loss the run's stop cuts short. What the main thread counts as retransmitted
// (each leg's werift sender) is what the thread reports it wrote, never the NACKs it was handed
// (test/unit/relay-thread.test.ts: a NACK of a packet the leg never got is sent nothing and
// counted nothing).
import assert from "node:assert/strict";
import { test } from "node:test";
import { fingerprintBlock, runThroughRelay } from "./harness.ts";

test("relay --workers 1 --lose-every 20: the thread repairs every loss by NACK and counts what it resent", async () => {
  const { report: r, relay } = await runThroughRelay(
    { threads: 1, loseEvery: 20 },
    // a busy machine joins slowly; the subject is the repair, not the join
    { viewers: 2, rampSeconds: 0.5, holdSeconds: 4, joinTimeoutSeconds: 15 },
  );
  const threads = relay.send.threads;
  if (threads === null) {
    // no native send path here: relay.send.describe() says why, and no leg ran on a thread
    assert.equal(relay.send.path.path, "werift", relay.send.describe());
    return;
  }
  const wrote = relay.send.threadsWrote;
  assert.ok(wrote !== null && wrote.written > 0, "the thread sent the legs' video");
  assert.equal(threads.lostThreads, 0);
  const viewers = (r.viewers ?? []).filter((v) => v.joined);
  assert.equal(viewers.length, 2);
  let nacks = 0;
  for (const v of viewers) {
    // viewers stop while the relay still sends (docs/definitions.md: lost = expected − received at
    // the stop), so the last of the every-20th losses may be seen and NACKed but its resend not yet
    // in: at most that one stays lost; without repair ~5 % of ~400 packets would (CI on 4f2cf9d: 1)
    assert.ok(
      v.rtp.lost <= 1,
      `viewer ${v.id}: every loss repaired but one cut short by the stop: ${v.rtp.lost}`,
    );
    assert.ok(v.nacksSent > 0, `viewer ${v.id}: no NACK`);
    nacks += v.nacksSent;
  }
  assert.ok(fingerprintBlock(r).lateCompletedFrames > 0, "frames completed by a resend");
  // the resends: at least one per NACKed packet that was lost (each viewer NACKs its own), and what
  // the main thread counted is exactly what the thread wrote
  assert.ok(wrote.resent > 0, "the thread resent nothing");
  assert.equal(threads.resent, wrote.resent);
  assert.ok(wrote.resent <= nacks, `${wrote.resent} resends for ${nacks} NACKs`);
});
