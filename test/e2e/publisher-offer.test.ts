// The WHIP offer the publisher sends (src/main/publisher/publisher.ts, docs/definitions.md#webrtc-configuration),
// read from the POST a tiny HTTP server on 127.0.0.1 receives: every sent media section names its
// track in one media stream (`a=msid:<stream> <track>`), as a browser's does; SRS creates a
// publish track only from an msid.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { loadAudioClip, loadClip } from "../../src/core/clip/clip.ts";
import { takeWallAnchor } from "../../src/core/clock/clock.ts";
import { Publisher, PublisherError } from "../../src/main/publisher/publisher.ts";

/** The offer a publisher POSTs (the server answers 503, so it never connects). */
async function offerOf(withAudio: boolean): Promise<string> {
  let offer = "";
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      offer = Buffer.concat(chunks).toString("utf8");
      res.writeHead(503).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const p = new Publisher({
    whip: `http://127.0.0.1:${port}/whip`,
    clip: loadClip("h264"),
    ice: { loopbackOnly: true, includeLoopback: false },
    noStamp: false,
    sendLog: null,
    anchor: takeWallAnchor(),
    ...(withAudio ? { audio: { clip: loadAudioClip(), sendLog: null } } : {}),
  });
  try {
    await assert.rejects(p.connect(), (err) => err instanceof PublisherError && err.kind === "http_status");
  } finally {
    server.close();
  }
  return offer;
}

/** Each media section's kind and its msid lines. */
function sections(sdp: string): { kind: string; sendonly: boolean; msids: string[] }[] {
  return sdp
    .split(/\r\n(?=m=)/)
    .slice(1)
    .map((m) => ({
      kind: /^m=(\w+)/.exec(m)?.[1] ?? "",
      sendonly: /\r\na=sendonly\r\n/.test(`\r\n${m}\r\n`),
      msids: m.split("\r\n").filter((l) => l.startsWith("a=msid:")),
    }));
}

for (const withAudio of [false, true]) {
  test(`the WHIP offer${withAudio ? " with audio" : ""}: msid on every sent track, one stream`, async () => {
    const offer = await offerOf(withAudio);
    const media = sections(offer);
    assert.deepEqual(
      media.map((m) => m.kind),
      withAudio ? ["video", "audio"] : ["video"],
    );
    const streams = new Set<string>();
    const tracks = new Set<string>();
    for (const m of media) {
      assert.ok(m.sendonly, `${m.kind} is sendonly`);
      assert.equal(m.msids.length, 1, `${m.kind}: one a=msid line in\n${offer}`);
      const parts = /^a=msid:(\S+) (\S+)$/.exec(m.msids[0] ?? "");
      assert.ok(parts, `${m.kind}: a=msid:<stream> <track>, got ${m.msids[0]}`);
      streams.add(parts[1] ?? "");
      tracks.add(parts[2] ?? "");
    }
    assert.equal(streams.size, 1, "video and audio in one stream");
    assert.equal(tracks.size, media.length, "each track its own id");
  });
}
