// What trying whipbench as a new user found (issue 13), each against the built-in relay with a
// test-only answer fault (RelayTestHooks.answerFault) or without the ICE setting a new user forgets:
// a publisher answer without video, a 201 whose body is refused, a server that never does DTLS,
// and a server on 127.0.0.1 with neither loopbackOnly nor includeLoopback.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { AUTO_LOOPBACK_METHOD } from "../../src/core/report/method-lines.ts";
import { type AnswerFault, Relay } from "../../src/main/relay/relay.ts";
import { cli, readReportPair, tempDir } from "./cli-harness.ts";

const tmp = tempDir("new-user");
after(() => tmp.remove());

/** A relay on 127.0.0.1 (loopback-only ICE) with the answer fault, for the time of `fn`. */
async function withRelay(
  answerFault: AnswerFault | null,
  fn: (relay: Relay, base: string) => Promise<void>,
): Promise<void> {
  const relay = new Relay({
    ice: { loopbackOnly: true, includeLoopback: false },
    ...(answerFault ? { test: { answerFault } } : {}),
  });
  try {
    await fn(relay, await relay.listen());
  } finally {
    await relay.close();
  }
}

function scenario(name: string, base: string, extra: Record<string, unknown> = {}): string {
  const file = join(tmp.dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      name,
      whip: `${base}/${name}/whip`,
      whep: `${base}/${name}/whep`,
      viewers: 2,
      rampSeconds: 0,
      holdSeconds: 2,
      warmupSeconds: 1,
      excludeFirstSeconds: 0,
      loopbackOnly: true,
      workers: 0,
      ...extra,
    }),
  );
  return file;
}

interface Rep {
  errors: Record<string, number>;
  viewers: unknown[] | null;
  aggregate: { valid: boolean; oneWayDelay: { clipHash?: string }[] };
  publisher?: { errorKind?: string; error?: string };
  method: string[];
}

describe("a publisher answer without video", () => {
  test("publish: refused with publisher's bad_answer words, exit 1, and the session gets its DELETE", async () => {
    await withRelay({ on: "whip", kind: "no-video" }, async (relay, base) => {
      const r = await cli(["publish", "--whip", `${base}/nv/whip`, "--loopback-only", "--duration", "2s"]);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /whipbench publish: the WHIP answer has no video\n/);
      assert.doesNotMatch(r.stderr, /connected in/);
      assert.equal(relay.deletes, 1);
    });
  });

  test("run: publisher_bad_answer, no viewer started, exit 3", async () => {
    const out = join(tmp.dir, "nv-out");
    await withRelay({ on: "whip", kind: "no-video" }, async (relay, base) => {
      const r = await cli(["run", scenario("nv", base), "--out", out, "--quiet"]);
      assert.equal(r.code, 3, r.stderr);
      const rep = readReportPair(out).report as unknown as Rep;
      assert.deepEqual(rep.errors, { publisher_bad_answer: 1 });
      assert.equal(rep.publisher?.error, "the WHIP answer has no video");
      assert.equal(rep.viewers, null, "no viewer was started");
      assert.equal(relay.viewers("nv"), 0);
    });
  });
});

describe("a 201 with a Location whose body is refused still gets its DELETE", () => {
  test("publisher: a body that is not SDP", async () => {
    await withRelay({ on: "whip", kind: "not-sdp" }, async (relay, base) => {
      const r = await cli(["publish", "--whip", `${base}/ns/whip`, "--loopback-only", "--duration", "1s"]);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /the answer from 127\.0\.0\.1:\d+ is not SDP/);
      assert.equal(relay.deletes, 1);
    });
  });

  test("viewers: each refused answer's session gets its DELETE (and the publisher's at the end)", async () => {
    const out = join(tmp.dir, "ns-out");
    await withRelay({ on: "whep", kind: "not-sdp" }, async (relay, base) => {
      const r = await cli(["run", scenario("ns", base), "--out", out, "--quiet"]);
      assert.equal(r.code, 3, r.stderr);
      const rep = readReportPair(out).report as unknown as Rep;
      assert.deepEqual(rep.errors, { bad_answer: 2 });
      assert.equal(relay.deletes, 3, "two viewers and the publisher");
    });
  });
});

describe("a server that answers ICE but never DTLS", () => {
  test("publish --connect-timeout 2s gives up after 2s and the process exits promptly", async () => {
    await withRelay({ on: "whip", kind: "silent-dtls" }, async (_relay, base) => {
      const r = await cli(
        ["publish", "--whip", `${base}/sd/whip`, "--loopback-only", "--connect-timeout", "2s"],
        { timeoutMs: 60_000 },
      );
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /whipbench publish: not connected after 2s\n/);
      // werift's DTLS retransmissions alone ran 33 s; now the process ends within one interval
      assert.ok(r.ms < 9000, `exited after ${Math.round(r.ms)} ms`);
    });
  });

  test("run: the publisher's connect timeout (10 s) ends the process promptly too", async () => {
    const out = join(tmp.dir, "sd-run-out");
    await withRelay({ on: "whip", kind: "silent-dtls" }, async (_relay, base) => {
      const r = await cli(["run", scenario("sdr", base), "--out", out, "--quiet"], { timeoutMs: 90_000 });
      assert.equal(r.code, 3, r.stderr);
      const rep = readReportPair(out).report as unknown as Rep;
      assert.deepEqual(rep.errors, { publisher_connect_timeout: 1 });
      assert.equal(rep.publisher?.error, "not connected after 10s");
      // before: the reports at 10 s, the exit at ~35 s
      assert.ok(r.ms < 20_000, `exited after ${Math.round(r.ms)} ms`);
    });
  });

  test("viewers whose server never does DTLS: the run ends at its schedule, the process right after", async () => {
    const out = join(tmp.dir, "sd-view-out");
    await withRelay({ on: "whep", kind: "silent-dtls" }, async (_relay, base) => {
      const file = scenario("sdv", base, { joinTimeoutSeconds: 2 });
      const r = await cli(["run", file, "--out", out, "--quiet"], { timeoutMs: 90_000 });
      assert.equal(r.code, 3, r.stderr);
      const rep = readReportPair(out).report as unknown as Rep;
      assert.equal(rep.aggregate.valid, false);
      assert.ok(r.ms < 20_000, `exited after ${Math.round(r.ms)} ms`);
    });
  });

  test("--connect-timeout takes a duration and names itself when it is not one", async () => {
    const r = await cli(["publish", "--whip", "http://127.0.0.1:9/x/whip", "--connect-timeout", "soon"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--connect-timeout: want a duration such as 300ms, 10s or 1m30s/);
  });
});

describe("the loopback trap", () => {
  test("a scenario on 127.0.0.1 without loopbackOnly joins, and the report says loopback candidates were added", async () => {
    const out = join(tmp.dir, "lb-out");
    await withRelay(null, async (_relay, base) => {
      const file = scenario("lb", base, { loopbackOnly: false });
      const r = await cli(["run", file, "--out", out]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /the server is on a loopback address: loopback ICE candidates included/);
      const rep = readReportPair(out).report as unknown as Rep;
      assert.equal(rep.aggregate.valid, true);
      assert.ok(rep.method.includes(AUTO_LOOPBACK_METHOD));
      // the clip's identity is recorded beside its loop length (rankable compares it)
      assert.match(rep.aggregate.oneWayDelay[0]?.clipHash ?? "", /^sha256:[0-9a-f]{16}$/);
    });
  });
});

describe("help reads as this tool's own", () => {
  test("durations as durations, the relay's address as an address, and the rule at the end", async () => {
    const [view, relay, run, publish] = await Promise.all([
      cli(["view", "--help"]),
      cli(["relay", "--help"]),
      cli(["run", "--help"]),
      cli(["publish", "--help"]),
    ]);
    for (const r of [view, relay, run, publish]) {
      assert.equal(r.code, 0);
      assert.match(
        r.stdout.trimEnd(),
        /with written permission .*\n.*never paths, query strings or tokens\.$/,
      );
    }
    assert.match(view.stdout, /--duration <duration> +hold after the ramp \(default: 30s\)/);
    assert.match(view.stdout, /--join-timeout <duration> +POST → first complete keyframe \(default: 10s\)/);
    assert.doesNotMatch(view.stdout, /000000000/);
    assert.match(relay.stdout, /\(default: 127\.0\.0\.1:8889\)/);
    assert.doesNotMatch(relay.stdout, /"host"/);
    assert.match(publish.stdout, /--connect-timeout <duration>/);
  });
});
