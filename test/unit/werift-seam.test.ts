// The werift and koffi seams (src/net/werift, src/net/koffi.ts): each checks the version
// package.json pins, and the werift internals the seam reaches are where it looks for them on two
// real werift peers connected over 127.0.0.1: the UDP transports beneath ICE, their receive, send
// and close, the no-STUN patch, werift's NACK generator; a miss is a WeriftInternalsError.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { connectedPair } from "../../bench/peer-pair.ts";
import { WeriftInternalsError } from "../../src/core/errors.ts";
import { KOFFI_VERSION, koffi, koffiVersionMismatch } from "../../src/net/koffi.ts";
import { RtpHeader, RtpPacket } from "../../src/net/werift/api.ts";
import { restrictSrtpProfiles, silenceWeriftNack } from "../../src/net/werift/srtp-start.ts";
import {
  beforeClose,
  isMediaDatagram,
  localPort,
  peerUdpTransports,
  transceiverUdpTransports,
  wrapReceive,
  wrapSend,
} from "../../src/net/werift/transports.ts";
import { installedWeriftVersion, versionMismatch, WERIFT_VERSION } from "../../src/net/werift/version.ts";
import { ROOT } from "./repo-files.ts";

const pins = (
  JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> }
).dependencies;

test("werift: the seam's version is package.json's exact pin and the installed one; another is a named error", () => {
  assert.equal(pins.werift, WERIFT_VERSION);
  assert.equal(installedWeriftVersion(), WERIFT_VERSION);
  assert.equal(versionMismatch(WERIFT_VERSION), null);
  const err = versionMismatch("0.26.0");
  assert.ok(err instanceof WeriftInternalsError);
  assert.equal(err.name, "WeriftInternalsError");
  assert.match(err.message, /^werift 0\.25\.2: installed werift is 0\.26\.0.*re-checked/);
});

test("koffi: the seam's version is package.json's exact pin and the loaded one; another is a reason", () => {
  assert.equal(pins.koffi, KOFFI_VERSION);
  const k = koffi();
  assert.notEqual(typeof k, "string", `koffi loads here: ${String(k)}`);
  assert.equal(koffiVersionMismatch(KOFFI_VERSION), null);
  assert.match(koffiVersionMismatch("3.4.0") ?? "", /koffi 3\.4\.0 is installed, 3\.3\.4 expected/);
  assert.match(koffiVersionMismatch(undefined) ?? "", /of unknown version/);
});

test("on two real peers the seam finds the UDP transports and wraps their receive, send and close", async () => {
  const { server, viewer } = await connectedPair();
  const vtr = viewer.getTransceivers()[0]!;
  const str = server.getTransceivers()[0]!;
  const mine = transceiverUdpTransports(vtr);
  assert.ok(mine.length >= 1, "the viewer's ICE connection has a UDP transport");
  assert.equal(peerUdpTransports(viewer).length, mine.length);
  for (const t of mine) {
    assert.equal(t.socket?.address().address, "127.0.0.1");
    assert.ok(localPort(t) > 0);
  }
  // the no-STUN patch: werift's fallback public STUN server is cleared
  const conn = (vtr.dtlsTransport as unknown as { iceTransport: { connection: { stunServer?: unknown } } })
    .iceTransport.connection;
  assert.equal(conn.stunServer, undefined);
  silenceWeriftNack(vtr); // werift's NACK generator is where the seam silences it

  const received: number[] = [];
  const sent: number[] = [];
  let closing = 0;
  for (const t of mine) {
    assert.ok(
      wrapReceive(t, (own) => (data, addr) => {
        if (isMediaDatagram(data)) received.push(data.length);
        own(data, addr);
      }),
    );
    assert.ok(beforeClose(t, () => closing++));
  }
  for (const t of transceiverUdpTransports(str)) {
    assert.ok(
      wrapSend(t, (own) => (data, addr) => {
        if (isMediaDatagram(data)) sent.push(data.length);
        return own(data, addr);
      }),
    );
  }
  // werift's own path still gets the media the wrap saw
  let rtp = 0;
  viewer.onTrack.subscribe((track) => track.onReceiveRtp.subscribe(() => rtp++));
  const existing = vtr.receiver.tracks[0];
  existing?.onReceiveRtp.subscribe(() => rtp++);
  for (let seq = 1; seq <= 200 && rtp === 0; seq++) {
    const header = new RtpHeader({
      payloadType: 96,
      sequenceNumber: seq,
      timestamp: seq,
      ssrc: str.sender.ssrc,
    });
    await str.sender.sendRtp(new RtpPacket(header, Buffer.alloc(20, 1)));
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.ok(rtp > 0, "werift's receive path got the RTP");
  assert.ok(sent.length > 0 && received.length > 0, "the wraps saw the media both ways");
  assert.ok(received.length <= sent.length);
  await viewer.close();
  await server.close();
  assert.equal(closing, mine.length, "before-close ran once per transport");
});

test("a werift internal the seam does not find is a WeriftInternalsError naming it", () => {
  const stand = { dtlsTransport: {}, receiver: {} } as never;
  assert.throws(() => restrictSrtpProfiles(stand, [1]), {
    name: "WeriftInternalsError",
    message: "werift 0.25.2: RTCDtlsTransport.srtpProfiles is missing",
  });
  assert.throws(() => silenceWeriftNack(stand), {
    name: "WeriftInternalsError",
    message: "werift 0.25.2: RTCRtpReceiver.nack.addPacket is missing",
  });
  // a transport without what a wrap needs is left alone, and the caller told
  const bare = {};
  assert.equal(
    wrapReceive(bare, (own) => own),
    false,
  );
  assert.equal(
    wrapSend(bare, (own) => own),
    false,
  );
  assert.equal(
    beforeClose(bare, () => {}),
    false,
  );
  assert.deepEqual(bare, {});
});
