// Retransmitted DTLS flights in new records (src/net/werift/dtls-renumber.ts,
// docs/definitions.md#dtls-handshake), on real werift pairs over 127.0.0.1 whose receiving side
// discards a record whose epoch and sequence number it has already read, as OpenSSL (Janus) and
// BoringSSL (libwebrtc) do (RFC 6347 section 4.1.2.6). werift itself has no such check, so the
// other werift tests cannot see a flight resent byte for byte; against Janus, a viewer that lost
// Janus's final flight resent its Finished under a number Janus had read and never got an answer.
import assert from "node:assert/strict";
import { test } from "node:test";
import { connectedWithin, impairedPair } from "../../bench/impaired-link.ts";
import type { RTCPeerConnection } from "../../src/net/werift/api.ts";
import { noteSent, renumber } from "../../src/net/werift/dtls-renumber.ts";
import { abandonDtls, patchWerift } from "../../src/net/werift/patches.ts";
import { peerUdpTransports, type UdpReceive, wrapReceive } from "../../src/net/werift/transports.ts";

patchWerift();

/** The DTLS records of one datagram: content type, epoch, sequence number, and the bytes. */
function recordsOf(data: Buffer): { type: number; epoch: number; seq: number; bytes: Buffer }[] {
  const out = [];
  for (let at = 0; at + 13 <= data.length; ) {
    const end = at + 13 + data.readUInt16BE(at + 11);
    const bytes = data.subarray(at, Math.min(end, data.length));
    out.push({ type: data[at]!, epoch: data.readUInt16BE(at + 3), seq: data.readUIntBE(at + 5, 6), bytes });
    at = end;
  }
  return out;
}

interface Replay {
  /** records discarded because their epoch and number had been read */
  replayed: number;
  /** records dropped by `lose` */
  lost: number;
}

/**
 * What `pc` reads passes a replay check; `lose` drops the records it picks (the n-th record of the
 * peer's DTLS, from 0, counted before the check) as a link would.
 */
function replayChecked(
  pc: RTCPeerConnection,
  lose: (n: number, type: number, epoch: number) => boolean,
): Replay {
  const seen = new Set<string>();
  const r: Replay = { replayed: 0, lost: 0 };
  let n = 0;
  for (const t of peerUdpTransports(pc)) {
    wrapReceive(
      t,
      (own: UdpReceive): UdpReceive =>
        (data, addr) => {
          if (data.length < 13 || data[0]! < 20 || data[0]! > 63) return own(data, addr);
          const kept: Buffer[] = [];
          for (const rec of recordsOf(data)) {
            if (lose(n++, rec.type, rec.epoch)) {
              r.lost++;
              continue;
            }
            const key = `${rec.epoch}:${rec.seq}`;
            if (seen.has(key)) r.replayed++;
            else kept.push(rec.bytes);
            seen.add(key);
          }
          if (kept.length > 0) own(Buffer.concat(kept), addr);
        },
    );
  }
  return r;
}

async function bothConnected(p: {
  offerer: RTCPeerConnection;
  answerer: RTCPeerConnection;
}): Promise<boolean> {
  try {
    const [a, b] = await Promise.all([connectedWithin(p.offerer, 8000), connectedWithin(p.answerer, 8000)]);
    return a !== null && b !== null;
  } finally {
    for (const pc of [p.offerer, p.answerer]) {
      abandonDtls(pc);
      await pc.close().catch(() => {});
    }
  }
}

test("a client that lost the server's final flight resends flight 5 in new records, and the replay-checking server answers", async () => {
  const p = await impairedPair({}, {}, 71, 0);
  const server = replayChecked(p.offerer, () => false);
  // the server's ChangeCipherSpec and its Finished (the only epoch-1 handshake record): lost once
  let finalLost = 0;
  const client = replayChecked(p.answerer, (_n, type, epoch) => {
    const final = type === 20 || (type === 22 && epoch === 1);
    return final && finalLost++ < 2;
  });
  assert.ok(await bothConnected(p), "both sides connected");
  assert.equal(client.lost, 2, "the final flight was lost once");
  assert.equal(server.replayed, 0, "no record of the client's came twice under one number");
});

test("a server that lost the client's ChangeCipherSpec and Finished takes the resent Finished, sealed under its new number", async () => {
  const p = await impairedPair({}, {}, 72, 0);
  let lostOnce = 0;
  const server = replayChecked(p.offerer, (_n, type, epoch) => {
    const tail = type === 20 || (type === 22 && epoch === 1);
    return tail && lostOnce++ < 2;
  });
  const client = replayChecked(p.answerer, () => false);
  assert.ok(await bothConnected(p), "both sides connected");
  assert.equal(server.lost, 2, "the client's ChangeCipherSpec and Finished were lost once");
  assert.equal(server.replayed, 0, "the client's retransmitted records all carried new numbers");
  assert.equal(client.replayed, 0, "so did the server's");
});

test("a client that lost the server's flight 4 resends its ClientHello under a new number, which the server reads", async () => {
  const p = await impairedPair({}, {}, 73, 0);
  const server = replayChecked(p.offerer, () => false);
  // the client's records: 0 the HelloVerifyRequest, 1…5 flight 4 (ServerHello … ServerHelloDone)
  const client = replayChecked(p.answerer, (n) => n >= 1 && n <= 5);
  assert.ok(await bothConnected(p), "both sides connected");
  assert.equal(client.lost, 5, "flight 4 was lost once");
  assert.equal(server.replayed, 0, "the resent ClientHello was read, not discarded as a replay");
});

/** A DTLS 1.2 record of `type` in `epoch` numbered `seq`, with a 4-byte body. */
function record(type: number, epoch: number, seq: number): Buffer {
  const b = Buffer.alloc(17);
  b[0] = type;
  b.writeUInt16BE(0xfefd, 1);
  b.writeUInt16BE(epoch, 3);
  b.writeUIntBE(seq, 5, 6);
  b.writeUInt16BE(4, 11);
  return b;
}

test("werift's counter moves past a flight's numbers; a resend takes the next unused number of each epoch", () => {
  // a client's flight 5 as werift numbers it: epoch 0 records 2…5, its Finished 6 in epoch 1, and
  // then werift counts epoch 1 from 0
  const dtls = { flight: 5, epoch: 1, recordSequenceNumber: 0 };
  const flight = [record(22, 0, 2), Buffer.concat([record(22, 0, 3), record(20, 0, 4)]), record(22, 0, 5)];
  noteSent(dtls, flight);
  noteSent(dtls, [record(22, 1, 6)]);
  assert.equal(dtls.recordSequenceNumber, 6, "werift's next epoch-1 record is 7, not the Finished's 6");
  const again = renumber(dtls, undefined, flight);
  const numbers = again.flatMap((b) => recordsOf(b).map((r) => `${r.epoch}:${r.seq}`));
  assert.deepEqual(numbers, ["0:6", "0:7", "0:8", "0:9"]);
  assert.deepEqual(again[1]!.subarray(13, 17), flight[1]!.subarray(13, 17), "the bodies unchanged");
  assert.equal(dtls.recordSequenceNumber, 6, "epoch 0 is not werift's epoch any more");
});
