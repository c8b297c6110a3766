// Janus repairs a lossy leg: the recipe's stack in a network namespace of this test's own, the
// viewers in a second one, and the user-space impairer (test/netem) losing 2 % of every UDP
// datagram Janus sends toward the viewers (STUN, DTLS, SRTP and SRTCP alike). Janus 1.1.2 keeps a
// packet for retransmission only once an RR's round-trip time has sized its buffer
// (docs/definitions.md#nacks); the viewers' NACKs then bring the packets back, so the loss after
// repair ends well below the injected loss. Skipped without root, gcc, libnetfilter-queue or the
// stack, unless WHIPBENCH_JANUS_REQUIRED=1 (CI) makes that a failure.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { Report } from "../../src/core/report/types.ts";
import { buildImpairer, impairerMissing } from "../netem/impairer.ts";
import {
  impairTowardViewers,
  publishVp8,
  retransmittedInLog,
  stackMissing,
  startNetnsJanus,
} from "./netns-janus.ts";

const REQUIRED = process.env["WHIPBENCH_JANUS_REQUIRED"] === "1";
const LOSS = 0.02;
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
    stack.admin({ janus: "set_log_level", level: 5 }); // "Retransmitted N packets due to NACK"
    const publisher = await publishVp8(stack);
    const impairer = await impairTowardViewers(stack, binary.path, { loss: LOSS, seed: 39 }, HOLD_S + 60);
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
    await new Promise((r) => setTimeout(r, (HOLD_S - 3) * 1000));
    const handles = stack.streamingHandles();
    const code = await new Promise<number | null>((r) => view.once("close", (c) => r(c)));
    const counts = await impairer.stop();
    assert.equal(code, 0, `whipbench view exited ${code}\n${view.text()}`);
    assert.ok(counts && counts.seen > 1000, `the impairer saw the stream: ${JSON.stringify(counts)}`);
    const injected = counts.dropped / counts.seen;
    assert.ok(injected > LOSS * 0.6 && injected < LOSS * 1.5, `injected loss ${injected}`);
    const file = readdirSync(out).find((f) => f.endsWith(".json"));
    assert.ok(file, "a report");
    const report = JSON.parse(readFileSync(join(out, file), "utf8")) as Report;
    assert.equal(report.aggregate.joined, VIEWERS, report.aggregate.verdict);
    const queueMs = handles.map((h) => {
      const media = (h.webrtc as { media?: Record<string, { "nack-queue-ms"?: number }> } | undefined)?.media;
      return Object.values(media ?? {})[0]?.["nack-queue-ms"] ?? 0;
    });
    const retransmitted = retransmittedInLog(stack.log());
    // what the viewers lost after repair, against what the link took
    const viewers = report.viewers ?? [];
    const expected = viewers.reduce((n, v) => n + v.rtp.expected, 0);
    const lost = viewers.reduce((n, v) => n + v.rtp.lost, 0);
    const after = lost / expected;
    t.diagnostic(
      `injected ${(injected * 100).toFixed(2)} % (${counts.dropped} of ${counts.seen}); Janus retransmitted ` +
        `${retransmitted}; loss after repair ${(after * 100).toFixed(2)} % (${lost} of ${expected}); ` +
        `per viewer ${viewers.map((v) => v.rtp.lossPercent?.toFixed(2) ?? "—").join(", ")} %; ` +
        `NACK messages ${viewers.map((v) => v.nacksSent).join(", ")}; RTX packets ` +
        `${viewers.map((v) => v.rtxReceived).join(", ")}; nack-queue-ms ${queueMs.join(", ")}`,
    );
    // Janus kept packets for retransmission (nack-queue-ms, printed above: 0 keeps nothing) and
    // resent them on our NACKs, and every viewer's leg was repaired: a viewer whose reports never
    // sized Janus's buffer loses about what the link took (docs/definitions.md#nacks)
    assert.equal(handles.length, VIEWERS, "a Streaming handle per viewer");
    assert.ok(
      queueMs.some((nq) => nq > 0),
      "Janus keeps packets for retransmission",
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
