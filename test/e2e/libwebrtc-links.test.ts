// Both kinds of receiver on the same impaired link (bench/libwebrtc-links.ts, issue 39): libwebrtc
// M106 (@roamhq/wrtc) and our viewers join the built-in relay through one link that loses 5 % of
// every datagram the relay sends each leg, STUN and DTLS included. libwebrtc joins and asks for
// lost packets; ours join or fail only by their own handshake (never blamed on the server), and
// ask for lost packets too. The counts bench:calibration-links prints come from the same rounds.
// Skipped, with its reason, where libwebrtc cannot run, unless WHIPBENCH_LIBWEBRTC_REQUIRED=1.
import assert from "node:assert/strict";
import { test } from "node:test";
import { libwebrtcMissing } from "../../bench/libwebrtc.ts";
import { LINKS, linkRound } from "../../bench/libwebrtc-links.ts";

const missing = libwebrtcMissing();
const required = process.env.WHIPBENCH_LIBWEBRTC_REQUIRED === "1";
const skip = missing !== null && !required ? `libwebrtc cannot run here: ${missing}` : false;

test("5 % loss on every datagram: libwebrtc and our viewers face the same link", {
  skip,
  timeout: 120_000,
}, async () => {
  assert.equal(missing, null, `WHIPBENCH_LIBWEBRTC_REQUIRED=1 but ${missing}`);
  const link = LINKS[0];
  assert.ok(link !== undefined && link.link.loss === 0.05);
  const r = await linkRound(link, 1, 10, 1, 2);
  const c = r.linkCounts;
  assert.ok(c.stun > 0 && c.dtls > 0 && c.media > 0, `every kind crossed the link: ${JSON.stringify(c)}`);
  assert.ok(c.lost > 0 && Math.abs(c.lost / c.datagrams - 0.05) < 0.03, JSON.stringify(c));
  const lib = r.libwebrtc[0];
  assert.ok(lib?.joined, `libwebrtc: ${lib?.failure}`);
  assert.ok((lib.nackMessages ?? 0) > 0, "libwebrtc asked for lost packets");
  assert.equal(r.ours.length, 2, `our viewers (view exit ${r.viewCode}):\n${r.viewStderr.slice(-600)}`);
  for (const v of r.ours) {
    if (v.joined) assert.ok((v.nackMessages ?? 0) > 0, "a joined viewer of ours asked for lost packets");
    else assert.match(v.failure ?? "", /^client_handshake/);
  }
});
