// Janus repairs a lossy leg: the recipe's stack in a network namespace of this test's own, the
// viewers in a second one, and the user-space impairer (test/netem) losing 2 % of every UDP
// datagram Janus sends toward the viewers (STUN, DTLS, SRTP and SRTCP alike) and delaying each by
// 5 ms. Janus 1.1.2 keeps a packet for retransmission only once a receiver report's round-trip time,
// in whole milliseconds, has differed from 0 (docs/definitions.md#nacks). On the bare veth link
// (RTT ~0.1 ms) that took a scheduling hiccup of 1 ms or more, seconds into the run or never, and
// the losses before it stayed lost — for libwebrtc M106 on the same link as for us (bench/README.md,
// "Which losses Janus leaves unrepaired"); the 5 ms make the link's round trip one Janus can measure,
// as any path between two hosts is, so it keeps packets from the first report after its first SR.
// The viewers' NACKs then bring the packets back, and the loss after repair ends well below the
// injected loss. Skipped without root, gcc, libnetfilter-queue or the stack, unless
// WHIPBENCH_JANUS_REQUIRED=1 (CI) makes that a failure.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { Report } from "../../src/core/report/types.ts";
import { buildImpairer, impairerMissing } from "../netem/impairer.ts";
import { byMessages, nacksInLog, watchKeeping } from "./nack-log.ts";
import {
  impairTowardViewers,
  publishVp8,
  retransmittedInLog,
  stackMissing,
  startNetnsJanus,
} from "./netns-janus.ts";

const REQUIRED = process.env["WHIPBENCH_JANUS_REQUIRED"] === "1";
const LOSS = 0.02;
const DELAY_MS = 5;
/** Janus keeps a viewer's packets this soon after its first media to it: its first SR (≤ 1 s later; one
 * more second if the link took it), our next report (≤ 1.5 s), the polls that see both (0.5 s each) */
const KEEPING_WITHIN_S = 5;
const VIEWERS = 4;
const HOLD_S = 20;

const missing = impairerMissing() ?? stackMissing();
const skip = missing && !REQUIRED ? `cannot run here: ${missing}` : false;

test(`Janus repairs a leg losing ${LOSS * 100} % of its datagrams (namespaces, NFQUEUE)`, {
  skip,
  timeout: 150_000,
}, async (t) => {
  assert.equal(missing, null, `required here but ${missing}`);
  const binary = buildImpairer();
  const out = mkdtempSync(join(tmpdir(), "whipbench-janus-lossy-"));
  const stack = startNetnsJanus();
  try {
    stack.admin({ janus: "set_log_level", level: 6 }); // each NACKed number (./nack-log.ts)
    const publisher = await publishVp8(stack);
    const impairer = await impairTowardViewers(
      stack,
      binary.path,
      { loss: LOSS, delayMs: DELAY_MS, seed: 39 },
      HOLD_S + 60,
    );
    const whep = `http://${stack.serverIp}:7090/whep/endpoint/vp8`;
    const view = stack.whipbench(stack.viewers, [
      "view",
      "--whep",
      whep,
      "-n",
      String(VIEWERS),
      "--duration",
      `${HOLD_S}s`,
      "--out",
      out,
      "--no-html",
    ]);
    const closed = new Promise<number | null>((r) => view.once("close", (c) => r(c)));
    const keeping = await watchKeeping(() => stack.streamingHandles(), closed);
    const code = await closed;
    const counts = await impairer.stop();
    assert.equal(code, 0, `whipbench view exited ${code}\n${view.text()}`);
    assert.ok(counts && counts.seen > 1000, `the impairer saw the stream: ${JSON.stringify(counts)}`);
    const injected = counts.dropped / counts.seen;
    assert.ok(injected > LOSS * 0.6 && injected < LOSS * 1.5, `injected loss ${injected}`);
    const file = readdirSync(out).find((f) => f.endsWith(".json"));
    assert.ok(file, "a report");
    const report = JSON.parse(readFileSync(join(out, file), "utf8")) as Report;
    assert.equal(report.aggregate.joined, VIEWERS, report.aggregate.verdict);
    const queueMs = keeping.map((k) => k.queueMs);
    const retransmitted = retransmittedInLog(stack.log());
    // what the viewers lost after repair, against what the link took
    const viewers = report.viewers ?? [];
    const expected = viewers.reduce((n, v) => n + v.rtp.expected, 0);
    const lost = viewers.reduce((n, v) => n + v.rtp.lost, 0);
    const after = lost / expected;
    const janus = byMessages(
      nacksInLog(stack.log()),
      viewers.map((v) => v.nacksSent),
    );
    t.diagnostic(
      `injected ${(injected * 100).toFixed(2)} % (${counts.dropped} of ${counts.seen}); Janus retransmitted ` +
        `${retransmitted}; loss after repair ${(after * 100).toFixed(2)} % (${lost} of ${expected}); ` +
        `per viewer ${viewers.map((v) => v.rtp.lossPercent?.toFixed(2) ?? "—").join(", ")} %; ` +
        `NACK messages ${viewers.map((v) => v.nacksSent).join(", ")}; RTX packets ` +
        `${viewers.map((v) => v.rtxReceived).join(", ")}; nack-queue-ms ${queueMs.join(", ")}; Janus kept packets ${keeping
          .map((k) => (k.keepingS < 0 ? "never" : (k.keepingS - k.mediaS).toFixed(1)))
          .join(
            ", ",
          )} s after Janus's first media to each (handles seen at ${keeping.map((k) => k.seenS.toFixed(1)).join(", ")} s, media at ${keeping.map((k) => k.mediaS.toFixed(1)).join(", ")} s); ` +
        `NACK messages before Janus kept a packet ${janus.map((h) => h?.beforeBuffer ?? "?").join(", ")}`,
    );
    // Janus kept packets for every viewer within KEEPING_WITHIN_S (nack-queue-ms, 0 keeps nothing): our
    // receiver reports carry an LSR/DLSR that gives it the link's round trip. It then resent them on
    // our NACKs, and every viewer's leg was repaired: what stays lost is what the link took before
    // Janus kept packets (~2 s at 2 %: a few of ~1 350) and a retransmission lost with no later
    // request answered (Janus resends a number at most once in 200 ms and keeps it 0.2–1.2 s), so
    // well under half the injected loss on every viewer (docs/definitions.md#nacks)
    assert.equal(keeping.length, VIEWERS, "a Streaming handle per viewer");
    for (const k of keeping)
      assert.ok(
        k.keepingS >= 0 && k.mediaS >= 0 && k.keepingS - k.mediaS <= KEEPING_WITHIN_S,
        k.keepingS < 0
          ? "Janus never kept packets for a viewer (nack-queue-ms 0 throughout)"
          : `Janus kept packets ${(k.keepingS - k.mediaS).toFixed(1)} s after its first media to a viewer`,
      );
    assert.ok(retransmitted > 0, "Janus retransmitted packets on NACKs");
    for (const v of viewers) {
      assert.ok(v.nacksSent > 0, `viewer ${v.id} sent NACKs`);
      // the browser profile negotiates rtx with Janus: its repairs arrive on the RTX payload type
      // (docs/definitions.md#rtx-received)
      assert.ok(v.rtxReceived > 0, `viewer ${v.id} received retransmissions on RTX`);
      assert.ok(
        (v.rtp.lossPercent ?? Number.NaN) / 100 < injected / 2,
        `viewer ${v.id} lost ${v.rtp.lossPercent} % after repair`,
      );
    }
    assert.ok(after < injected / 3, `loss after repair ${after} against ${injected} injected`);
    publisher.kill("SIGTERM");
  } finally {
    await stack.close();
    rmSync(out, { recursive: true, force: true });
    rmSync(binary.dir, { recursive: true, force: true });
  }
});
