// A relay thread (src/main/relay/relay-thread.ts) in a real worker thread: a leg handed to it with
// a socket's descriptor, destination and SRTP keys gets, from that socket, every packet written to
// the shared ring after it joined, protected for its keys; a NACK passed on is answered with the
// same packet again and reported as sent again (a NACK of a packet the leg never got is neither); a
// leg removed gets nothing more; the thread reports what it wrote when stopped.
// The thread sends on a duplicate of the socket's descriptor (dupFd) and closes it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Worker } from "node:worker_threads";
import { SrtpSession } from "werift";
import { PacketRing } from "../../src/core/relay/packet-ring.ts";
import { SRTP_AES128_CM_HMAC_SHA1_80 } from "../../src/core/srtp/kdf.ts";
import { nativeSendPath } from "../../src/main/relay/native.ts";
import type { FromRelayThread, ToRelayThread } from "../../src/main/relay/relay-thread.ts";
import { dupFd } from "../../src/net/batch-write.ts";
import { socketFd } from "../../src/net/kernel.ts";
import { bound, sleep } from "./udp-helpers.ts";

const path = nativeSendPath();

test("a relay thread sends its leg what the ring carries, answers a NACK, stops on remove", {
  skip: path.path === "native" ? false : path.reason,
}, async (t) => {
  const [legSocket, viewer] = [await bound(), await bound()];
  const got: Buffer[] = [];
  viewer.on("message", (d) => got.push(d));
  const ring = new PacketRing();
  const w = new Worker(new URL("../../src/main/relay/relay-thread.ts", import.meta.url), {
    workerData: { sab: ring.sab },
  });
  t.after(async () => {
    legSocket.close();
    viewer.close();
    await w.terminate();
  });
  const post = (m: ToRelayThread) => w.postMessage(m);
  const heard: FromRelayThread[] = [];
  w.on("message", (m: FromRelayThread) => heard.push(m));
  const key = Buffer.alloc(16, 5);
  const salt = Buffer.alloc(14, 6);
  ring.write(1, 100, false, Buffer.alloc(50, 1), null); // before the leg joined: not its
  post({
    t: "add",
    leg: {
      id: 7,
      fd: dupFd(socketFd(legSocket)),
      ip: 0x7f000001,
      port: viewer.address().port,
      profile: SRTP_AES128_CM_HMAC_SHA1_80,
      key,
      salt,
      ssrc: 4242,
      payloadType: 98,
      rtxPayloadType: -1,
      rtxSsrc: 0,
      twccId: 0,
      absId: 3,
      from: ring.count,
      loseEvery: 0,
    },
  });
  await sleep(100);
  for (let seq = 2; seq <= 4; seq++)
    ring.write(seq, seq * 10, seq === 4, Buffer.alloc(200, seq), Buffer.alloc(8, 9));
  // the thread may take a while to start on a busy machine
  for (let i = 0; i < 1000 && got.length < 3; i++) await sleep(10);
  // NACKs of packets this leg never got (1 came before it joined, 99 never) are sent nothing and
  // counted nothing; the one of 3 is sent again and counted once the kernel took it
  post({ t: "nack", id: 7, seq: 1 });
  post({ t: "nack", id: 7, seq: 99 });
  post({ t: "nack", id: 7, seq: 3 });
  for (let i = 0; i < 1000 && (got.length < 4 || heard.length < 1); i++) await sleep(10);
  assert.deepEqual(heard, [{ t: "resent", id: 7, packets: 1 }]);
  post({ t: "remove", id: 7 });
  await sleep(200);
  ring.write(5, 50, false, Buffer.alloc(20, 5), null);
  await sleep(100);
  const session = new SrtpSession({
    keys: { localMasterKey: key, localMasterSalt: salt, remoteMasterKey: key, remoteMasterSalt: salt },
    profile: SRTP_AES128_CM_HMAC_SHA1_80,
  });
  assert.equal(got.length, 4, "three packets, one resend, nothing before joining or after removal");
  const seqs = got.map((d, i) => {
    // the resend is the same datagram again (same ROC, same keystream)
    if (i === 3) assert.deepEqual(d, got[1]);
    const clear = i === 3 ? null : session.decrypt(d);
    if (clear !== null) {
      assert.equal(clear.readUInt32BE(8), 4242);
      assert.equal(clear[0]! & 0x10, 0x10, "abs-capture-time under the leg's id");
    }
    return d.readUInt16BE(2);
  });
  assert.deepEqual(seqs, [2, 3, 4, 3]);
  post({ t: "stop" });
  for (let i = 0; i < 1000 && heard.length < 2; i++) await sleep(10);
  assert.deepEqual(heard.slice(1), [{ t: "stopped", written: 4, resent: 1, dropped: 0 }]);
});
