// Our viewer's offer beside libwebrtc M106's (@roamhq/wrtc: a receive-only video transceiver's
// offer, made in a child process): every header extension and feedback type the browser profile
// claims to honour (docs/definitions.md#viewer-profile) is in both, the rtx pairing of VP8 is the
// same, and the differences are printed. Skipped, with its reason, where libwebrtc cannot run,
// unless WHIPBENCH_LIBWEBRTC_REQUIRED=1 (CI), where a missing binary fails.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { libwebrtcMissing } from "../../bench/libwebrtc.ts";
import type { ViewerProfile } from "../../src/core/scenario/defaults.ts";
import {
  ABS_SEND_TIME_URI,
  newPeer,
  SDES_MID_URI,
  TRANSPORT_CC_URI,
  videoCodecs,
  viewerCodecExtras,
  viewerExtensions,
} from "../../src/net/rtc.ts";

const missing = libwebrtcMissing();
const required = process.env.WHIPBENCH_LIBWEBRTC_REQUIRED === "1";
const skip = missing !== null && !required ? `libwebrtc cannot run here: ${missing}` : false;

/** What the browser profile honours as libwebrtc does (abs-capture-time is ours alone). */
const HONOURED_EXTENSIONS = [ABS_SEND_TIME_URI, TRANSPORT_CC_URI, SDES_MID_URI];
const HONOURED_FEEDBACK = ["goog-remb", "transport-cc", "ccm fir", "nack", "nack pli"];

interface Offer {
  extensions: string[];
  /** the VP8 payload type's rtcp-fb types */
  feedback: string[];
  /** the apt of the rtx codec paired with VP8, or null */
  vp8Rtx: string | null;
}

function read(sdp: string): Offer {
  const lines = sdp.split(/\r?\n/);
  const vp8 = lines.find((l) => /^a=rtpmap:\d+ VP8\/90000/.test(l))?.match(/^a=rtpmap:(\d+)/)?.[1] ?? "";
  const rtxPts = lines.flatMap((l) => l.match(/^a=rtpmap:(\d+) rtx\/90000/)?.slice(1) ?? []);
  const apt = rtxPts.find((pt) => lines.includes(`a=fmtp:${pt} apt=${vp8}`));
  return {
    extensions: lines.flatMap((l) => l.match(/^a=extmap:\d+(?:\/\w+)? (\S+)/)?.slice(1) ?? []),
    feedback: lines
      .filter((l) => l.startsWith(`a=rtcp-fb:${vp8} `))
      .map((l) => l.slice(`a=rtcp-fb:${vp8} `.length)),
    vp8Rtx: apt === undefined ? null : `${apt} apt=${vp8}`,
  };
}

async function ourOffer(profile: ViewerProfile): Promise<Offer> {
  const pc = newPeer(
    { loopbackOnly: true, includeLoopback: false },
    videoCodecs("viewer", viewerCodecExtras(profile)),
    viewerExtensions(profile),
  );
  try {
    pc.addTransceiver("video", { direction: "recvonly" });
    return read((await pc.createOffer()).sdp ?? "");
  } finally {
    await pc.close();
  }
}

/** libwebrtc's offer for one receive-only video transceiver, made in a child process. */
function libwebrtcOffer(): Offer {
  const script = `
    const wrtc = require("@roamhq/wrtc");
    const pc = new wrtc.RTCPeerConnection({ iceServers: [] });
    pc.addTransceiver("video", { direction: "recvonly" });
    pc.createOffer().then((o) => { process.stdout.write(o.sdp); pc.close(); process.exit(0); });`;
  const sdp = execFileSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 20_000 });
  return read(sdp);
}

const minus = (a: string[], b: string[]) => a.filter((x) => !b.includes(x));

test("browser profile beside libwebrtc M106: every extension and feedback type we honour is in both", {
  skip,
}, async () => {
  const ours = await ourOffer("browser");
  const lib = libwebrtcOffer();
  console.log(`extensions only in ours: ${JSON.stringify(minus(ours.extensions, lib.extensions))}`);
  console.log(`extensions only in libwebrtc's: ${JSON.stringify(minus(lib.extensions, ours.extensions))}`);
  console.log(`VP8 feedback only in ours: ${JSON.stringify(minus(ours.feedback, lib.feedback))}`);
  console.log(`VP8 feedback only in libwebrtc's: ${JSON.stringify(minus(lib.feedback, ours.feedback))}`);
  console.log(`VP8's rtx: ours ${ours.vp8Rtx}, libwebrtc's ${lib.vp8Rtx}`);
  for (const uri of HONOURED_EXTENSIONS) {
    assert.ok(ours.extensions.includes(uri), `ours offers ${uri}`);
    assert.ok(lib.extensions.includes(uri), `libwebrtc offers ${uri}`);
  }
  for (const fb of HONOURED_FEEDBACK) {
    assert.ok(ours.feedback.includes(fb), `ours offers ${fb}`);
    assert.ok(lib.feedback.includes(fb), `libwebrtc offers ${fb}`);
  }
  // nothing offered that is not honoured: ours is the honoured set plus abs-capture-time
  assert.deepEqual(minus(ours.extensions, HONOURED_EXTENSIONS), [
    "http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time",
  ]);
  assert.deepEqual([...ours.feedback].sort(), [...HONOURED_FEEDBACK].sort());
  assert.equal(ours.vp8Rtx, "97 apt=96");
  assert.equal(lib.vp8Rtx, "97 apt=96", "libwebrtc pairs VP8 96 with rtx 97 too");
});

test("minimal profile: abs-capture-time alone, no transport-cc, no rtx", async () => {
  const ours = await ourOffer("minimal");
  assert.deepEqual(ours.extensions, ["http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time"]);
  assert.ok(!ours.feedback.includes("transport-cc"));
  assert.equal(ours.vp8Rtx, null);
});
