// bench/rtcp-capture.ts: RR-led SRTCP datagrams read from a hand-built pcap (Ethernet link type), each
// sender's SRTCP trailer told from its index (AES-CM: index then 10-octet tag; AES-GCM: 16-octet tag
// then index), and its reports tallied as alone or leading a NACK or PLI, with or without an SDES.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { rrDatagrams, tally, trailerLength, udpPayloads } from "../../bench/rtcp-capture.ts";

/** An RR with one block from `ssrc`, `after` octets of (encrypted) rest, and an SRTCP trailer. */
function srtcp(ssrc: number, after: number, index: number, gcm: boolean): Buffer {
  const rr = Buffer.alloc(32);
  rr[0] = 0x81;
  rr[1] = 201;
  rr.writeUInt16BE(7, 2);
  rr.writeUInt32BE(ssrc, 4);
  const idx = Buffer.alloc(4);
  idx.writeUInt32BE((0x80000000 | index) >>> 0);
  const tag = Buffer.alloc(gcm ? 16 : 10, 0x5a);
  return Buffer.concat([rr, Buffer.alloc(after, 0x33), ...(gcm ? [tag, idx] : [idx, tag])]);
}

/** A little-endian pcap with each payload in Ethernet + IPv4 + UDP from `port`. */
function pcap(datagrams: { port: number; data: Buffer }[]): Buffer {
  const head = Buffer.alloc(24);
  head.writeUInt32LE(0xa1b2c3d4, 0);
  head.writeUInt32LE(65535, 16);
  head.writeUInt32LE(1, 20);
  const recs = datagrams.map(({ port, data }) => {
    const udp = Buffer.alloc(8);
    udp.writeUInt16BE(port, 0);
    udp.writeUInt16BE(9, 2);
    udp.writeUInt16BE(8 + data.length, 4);
    const ip = Buffer.alloc(20);
    ip[0] = 0x45;
    ip[9] = 17;
    const frame = Buffer.concat([Buffer.alloc(14), ip, udp, data]);
    const rec = Buffer.alloc(16);
    rec.writeUInt32LE(frame.length, 8);
    rec.writeUInt32LE(frame.length, 12);
    return Buffer.concat([rec, frame]);
  });
  return Buffer.concat([head, ...recs]);
}

test("rtcp capture: each sender's trailer from its index, reports alone or leading feedback, SDES or not", () => {
  const dir = mkdtempSync(join(tmpdir(), "rtcp-capture-"));
  try {
    // sender A (AES-CM, no SDES): alone, RR+NACK, alone; B (GCM, SDES 28): alone, RR+SDES+PLI
    const d = [
      { port: 1000, data: srtcp(0xa, 0, 1, false) },
      { port: 2000, data: srtcp(0xb, 28, 7, true) },
      { port: 1000, data: srtcp(0xa, 16, 3, false) },
      { port: 2000, data: srtcp(0xb, 40, 9, true) },
      { port: 1000, data: srtcp(0xa, 0, 4, false) },
      { port: 3000, data: Buffer.from([0x80, 200, 0, 6, 0, 0, 0, 1]) }, // an SR: not read
    ];
    const file = join(dir, "x.pcap");
    writeFileSync(file, pcap(d));
    const rr = rrDatagrams(udpPayloads(file));
    assert.equal(rr.length, 5);
    assert.equal(trailerLength(rr.filter((x) => x.port === 1000).map((x) => x.data)), 14);
    assert.equal(trailerLength(rr.filter((x) => x.port === 2000).map((x) => x.data)), 20);
    const [a, b] = tally(rr);
    assert.deepEqual(a, {
      port: 1000,
      ssrc: 0xa,
      datagrams: 3,
      sdes: false,
      alone: 2,
      compound: 1,
      sizes: new Map([
        [0, 2],
        [16, 1],
      ]),
    });
    assert.ok(b !== undefined && "sdes" in b);
    assert.equal(b.sdes, true);
    assert.equal(b.alone, 1);
    assert.deepEqual(
      [...b.sizes],
      [
        [0, 1],
        [12, 1],
      ],
    );
    // an index that does not count up under either trailer: not told
    assert.equal(trailerLength([srtcp(1, 0, 5, false), srtcp(1, 0, 5, false)]), null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
