// The coordinator's control port over a real loopback socket (issue 16): a hello of another
// version is refused naming both, a good one is welcomed with the clock and send-log ports,
// agents past N are refused, and a hostile first frame is counted and closed.
import assert from "node:assert/strict";
import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { after, before, test } from "node:test";
import { loadClip } from "../../src/core/clip/clip.ts";
import { takeWallAnchor } from "../../src/core/clock/clock.ts";
import { clipIdentity, createHasher } from "../../src/core/delay/fingerprint.ts";
import { AgentHub } from "../../src/main/agents/hub.ts";
import { encodeFrame, FrameReader, type Message, PROTOCOL_VERSION } from "../../src/main/agents/wire.ts";
import { memoryLogger } from "../../src/main/observe/log.ts";

let hub: AgentHub;
let port = 0;
const log = memoryLogger();

before(async () => {
  const identity = clipIdentity(await createHasher(), loadClip("vp8"));
  for (let attempt = 0; attempt < 20 && port === 0; attempt++) {
    const p = 20_000 + Math.floor(Math.random() * 40_000);
    const h = new AgentHub({
      host: "127.0.0.1",
      port: p,
      token: "tok",
      version: "9.9.9",
      identity,
      anchor: takeWallAnchor(),
      log,
    });
    try {
      await h.listen();
      hub = h;
      port = p;
    } catch {
      await h.close();
    }
  }
  assert.ok(port > 0, "a free port pair");
});

after(() => hub.close());

/** Connects, sends `first`, returns the first message back (null when the connection closed without one). */
async function exchange(first: Buffer): Promise<{ reply: Message | null; sock: Socket }> {
  const sock = connect({ host: "127.0.0.1", port });
  sock.on("error", () => {});
  await once(sock, "connect");
  const reply = new Promise<Message | null>((resolve) => {
    const r = new FrameReader(resolve, () => resolve(null));
    sock.on("data", (d: Buffer) => r.push(d));
    sock.on("close", () => resolve(null));
  });
  sock.write(first);
  return { reply: await reply, sock };
}

const hello = (over: Record<string, unknown> = {}) =>
  encodeFrame({
    type: "hello",
    protocol: PROTOCOL_VERSION,
    version: "9.9.9",
    name: "a-0",
    workers: 1,
    token: "tok",
    ...over,
  });

test("a hello of another version is refused naming both; a good one is welcomed; agents past N are refused", async () => {
  const waiting = hub.waitFor(1, 5000);
  const skew = await exchange(hello({ version: "1.0.0" }));
  assert.equal(skew.reply?.type, "refuse");
  assert.match(String(skew.reply?.reason), /coordinator is whipbench 9\.9\.9 .*agent whipbench 1\.0\.0/);
  skew.sock.destroy();
  const ok = await exchange(hello());
  assert.deepEqual(ok.reply, {
    type: "welcome",
    protocol: PROTOCOL_VERSION,
    version: "9.9.9",
    index: 0,
    clockPort: port,
    sendLogPort: port + 1,
  });
  assert.equal(await waiting, true);
  const extra = await exchange(hello({ name: "a-1" }));
  assert.match(String(extra.reply?.reason), /already has its 1 agents/);
  extra.sock.destroy();
  ok.sock.destroy();
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(hub.refused, 2);
});

test("a first frame larger than a hello may be is counted and closed", async () => {
  const before = hub.malformedFrames;
  const big = await exchange(encodeFrame({ type: "hello", pad: "x".repeat(64 << 10) }));
  assert.equal(big.reply, null);
  assert.equal(hub.malformedFrames, before + 1);
  assert.ok(log.lines.some((l) => /over the 16384-byte limit/.test(l)));
});
