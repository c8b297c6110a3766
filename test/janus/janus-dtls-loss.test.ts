// Our viewers finish their DTLS handshake with Janus when Janus's final flight is lost
// (docs/definitions.md#dtls-handshake): the recipe's stack in a network namespace of this test's
// own, the viewers in a second one, and the user-space impairer (test/netem) dropping the first two
// datagrams toward each viewer that hold Janus's ChangeCipherSpec (its final flight with its
// Finished). Janus (OpenSSL) sends that flight once and again only when a retransmitted client
// Finished reaches it; OpenSSL discards a record whose sequence number it has read, so each viewer
// must resend its flight 5 in new records. Before they did, every viewer failed `client_handshake`
// here ("1 DTLS datagram from the server arrived"). And whose failure a viewer's is
// (docs/definitions.md#whose-failure): none of Janus's DTLS arriving is Janus's (`ice_timeout`);
// its flight 4 arriving and nothing after it is the viewer's own (`client_handshake`). Skipped
// without root, gcc, libnetfilter-queue or the stack, unless WHIPBENCH_JANUS_REQUIRED=1 (CI).
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { Report } from "../../src/core/report/types.ts";
import { buildImpairer, type ImpairCounts, type ImpairProfile, impairerMissing } from "../netem/impairer.ts";
import { impairTowardViewers, publishVp8, stackMissing, startNetnsJanus } from "./netns-janus.ts";

const REQUIRED = process.env["WHIPBENCH_JANUS_REQUIRED"] === "1";
const VIEWERS = 4;
const LOST_TIMES = 2;

const missing = impairerMissing() ?? stackMissing();
const skip = missing && !REQUIRED ? `cannot run here: ${missing}` : false;

/** `viewers` viewers watch Janus for `seconds` with `profile` on what Janus sends them. */
async function viewThrough(
  profile: ImpairProfile,
  viewers: number,
  seconds: number,
): Promise<{ report: Report; counts: ImpairCounts | null; code: number | null }> {
  const binary = buildImpairer();
  const out = mkdtempSync(join(tmpdir(), "whipbench-janus-dtls-"));
  const stack = startNetnsJanus();
  try {
    const publisher = await publishVp8(stack);
    const impairer = await impairTowardViewers(stack, binary.path, profile, seconds + 60);
    const view = stack.whipbench(stack.viewers, [
      "view",
      "--whep",
      `http://${stack.serverIp}:7090/whep/endpoint/vp8`,
      "-n",
      String(viewers),
      "--duration",
      `${seconds}s`,
      "--out",
      out,
      "--no-html",
    ]);
    const code = await new Promise<number | null>((r) => view.once("close", (c) => r(c)));
    const counts = await impairer.stop();
    publisher.kill("SIGTERM");
    const file = readdirSync(out).find((f) => f.endsWith(".json"));
    assert.ok(file, `a report (view exited ${code}): ${view.text().slice(-500)}`);
    return { report: JSON.parse(readFileSync(join(out, file), "utf8")) as Report, counts, code };
  } finally {
    await stack.close();
    rmSync(out, { recursive: true, force: true });
    rmSync(binary.dir, { recursive: true, force: true });
  }
}

test(`every viewer joins Janus when Janus's final DTLS flight to it is lost ${LOST_TIMES} times`, {
  skip,
  timeout: 120_000,
}, async (t) => {
  assert.equal(missing, null, `required here but ${missing}`);
  const { report, counts, code } = await viewThrough({ dropCcs: LOST_TIMES }, VIEWERS, 6);
  t.diagnostic(`impairer ${JSON.stringify(counts)}; ${report.aggregate.verdict}`);
  assert.equal(
    counts?.droppedDtls,
    VIEWERS * LOST_TIMES,
    "each viewer lost Janus's final flight, and Janus sent it again after the first loss",
  );
  for (const v of report.viewers ?? [])
    assert.ok(v.joined, `viewer ${v.id}: ${v.errorKind ?? ""} ${v.error ?? ""}`);
  assert.equal(report.aggregate.joined, VIEWERS, report.aggregate.verdict);
  assert.equal(code, 0, `whipbench view exited ${code}`);
});

test("none of Janus's DTLS arrives: ice_timeout, Janus's; its flight 4 alone arrives: client_handshake, ours", {
  skip,
  timeout: 150_000,
}, async (t) => {
  assert.equal(missing, null, `required here but ${missing}`);
  const silent = await viewThrough({ dropDtls: "1-200" }, 2, 13);
  const halfway = await viewThrough({ dropDtls: "2-200" }, 2, 13);
  t.diagnostic(`${silent.report.aggregate.verdict}; ${halfway.report.aggregate.verdict}`);
  for (const v of silent.report.viewers ?? []) {
    assert.equal(v.errorKind, "ice_timeout", `viewer ${v.id}: ${v.errorKind ?? ""} ${v.error ?? ""}`);
  }
  for (const v of halfway.report.viewers ?? []) {
    assert.equal(v.errorKind, "client_handshake", `viewer ${v.id}: ${v.errorKind ?? ""} ${v.error ?? ""}`);
    // Janus sends flight 4 in one datagram (bench/README.md); that one arrived, nothing after it
    assert.match(
      v.error ?? "",
      /DTLS handshake did not finish though 1 DTLS datagrams? from the server arrived/,
    );
  }
  assert.match(halfway.report.aggregate.verdict, /own handshake/);
  assert.doesNotMatch(silent.report.aggregate.verdict, /own handshake/);
});
