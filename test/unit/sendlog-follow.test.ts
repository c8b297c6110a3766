// The send-log channel keeps delivering for as long as the run lasts: the follower's answer
// timeout bounds the wait for the hello, not the stream (it once cut the stream off 10 s in, so
// every frame after that matched the previous loop's send, 4 s early).
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadClip } from "../../src/core/clip/clip.ts";
import { clipIdentity, createHasher } from "../../src/core/delay/fingerprint.ts";
import { followSendLog, serveSendLog } from "../../src/main/split/sendlog-channel.ts";

test("a follower still gets entries long after its answer timeout", async () => {
  const identity = clipIdentity(await createHasher(), loadClip("vp8"));
  const server = await serveSendLog("127.0.0.1", 0, identity, undefined);
  const stop = new AbortController();
  const got: number[] = [];
  const clipIndex: number[] = [];
  try {
    const follow = (k: number, _t0: number, i: number) => {
      got.push(k);
      clipIndex.push(i);
    };
    await followSendLog("127.0.0.1", server.port, undefined, stop.signal, follow, 200);
    // k 3 jumps to clip index 30 (a keyframe on request): the entries carry the index sent
    for (let k = 0; k < 8; k++) {
      server.record(k, 1e18 + k * 33e6, k < 3 ? k : k + 27);
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(got, [0, 1, 2, 3, 4, 5, 6, 7], "entries sent 0.1–0.8 s after a 0.2 s answer timeout");
    assert.deepEqual(clipIndex, [0, 1, 2, 30, 31, 32, 33, 34]);
  } finally {
    stop.abort();
    await server.close();
  }
});

test("each entry carries its send instant's source: kernel, hand-over, or none from an older publisher", async () => {
  const identity = clipIdentity(await createHasher(), loadClip("vp8"));
  const server = await serveSendLog("127.0.0.1", 0, identity, undefined);
  const stop = new AbortController();
  const got: (boolean | undefined)[] = [];
  try {
    await followSendLog(
      "127.0.0.1",
      server.port,
      undefined,
      stop.signal,
      (_k, _t0, _i, kernel) => got.push(kernel),
      500,
    );
    server.record(0, 1e18, 0, true);
    server.record(1, 1e18 + 33e6, 1, false);
    server.record(2, 1e18 + 66e6, 2);
    for (let i = 0; i < 50 && got.length < 3; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(got, [true, false, undefined]);
  } finally {
    stop.abort();
    await server.close();
  }
});

test("a peer that answers but never sends its hello fails within the answer timeout", async () => {
  const { createServer } = await import("node:http");
  const silent = createServer((_req, res) => {
    res.writeHead(200);
    res.flushHeaders();
  });
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", () => r()));
  const a = silent.address();
  const port = typeof a === "object" && a !== null ? a.port : 0;
  const t0 = performance.now();
  try {
    await assert.rejects(
      followSendLog("127.0.0.1", port, undefined, new AbortController().signal, () => {}, 300),
      /did not send its hello/,
    );
    assert.ok(performance.now() - t0 < 3000);
  } finally {
    silent.closeAllConnections();
    silent.close();
  }
});
