// Whether libwebrtc M106 (@roamhq/wrtc, the calibration's receiver) would read a dependency
// descriptor on VP8 (docs/definitions.md#decodable-frames): one of its peers answers a sendonly VP8
// offer that carries the extension (and the generic frame descriptor, and transport-cc beside them
// as a control), and the script prints which of the three its answer kept, as one JSON line. No
// network: only the two descriptions are made. libwebrtc crashes in its clean-up when Node exits
// with a peer alive, so this exits explicitly once the line is flushed.
//   node bench/libwebrtc-dd.ts
import { createRequire } from "node:module";
import { DEPENDENCY_DESCRIPTOR_URI as DD_URI, TRANSPORT_CC_URI } from "../src/net/rtc.ts";

const GFD_URI = "http://www.webrtc.org/experiments/rtp-hdrext/generic-frame-descriptor/00";

interface Pc {
  addTransceiver(kind: string, init: object): unknown;
  createOffer(): Promise<{ sdp: string }>;
  createAnswer(): Promise<{ sdp: string }>;
  setRemoteDescription(d: object): Promise<void>;
}
const wrtc = createRequire(import.meta.url)("@roamhq/wrtc") as { RTCPeerConnection: new (c: object) => Pc };

/** A sendonly VP8 offer: libwebrtc's own recvonly offer turned round, its extensions replaced by ours. */
async function offer(): Promise<string> {
  const a = new wrtc.RTCPeerConnection({});
  a.addTransceiver("video", { direction: "recvonly" });
  const sdp = (await a.createOffer()).sdp;
  const ours = [DD_URI, GFD_URI, TRANSPORT_CC_URI].map((u, i) => `a=extmap:${11 + i} ${u}\r\n`).join("");
  return sdp
    .replace(/a=recvonly/g, "a=sendonly")
    .replace(/a=extmap:\d+ [^\r]*\r\n/g, "")
    .replace(/(a=mid:[^\r]*\r\n)/, `$1${ours}`)
    .replace(/(a=rtcp-mux\r\n)/, "$1a=ssrc:1234 cname:probe\r\na=msid:s t\r\n");
}

const b = new wrtc.RTCPeerConnection({});
await b.setRemoteDescription({ type: "offer", sdp: await offer() });
const answer = (await b.createAnswer()).sdp;
const kept = (uri: string): boolean => answer.includes(` ${uri}\r\n`);
const line = { dependencyDescriptor: kept(DD_URI), genericFrameDescriptor: kept(GFD_URI) };
process.stdout.write(`${JSON.stringify({ ...line, transportCcControl: kept(TRANSPORT_CC_URI) })}\n`, () =>
  process.exit(0),
);
