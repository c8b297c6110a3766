// Two werift peers of this thread connected over 127.0.0.1 (offer, non-trickle gathering on both
// sides, answer, ICE and DTLS): a sending "server" and a receiving viewer, as bench:setup times
// them and test/unit/werift-seam.test.ts checks the werift seam on them.
import { gatheringComplete, newPeer, videoCodecs } from "../src/net/rtc.ts";
import type { RTCPeerConnection } from "../src/net/werift/api.ts";

const ice = { loopbackOnly: true, includeLoopback: false };

/** Both peers connected; throws after 10 s. The caller closes them. */
export async function connectedPair(): Promise<{ server: RTCPeerConnection; viewer: RTCPeerConnection }> {
  const server = newPeer(ice, videoCodecs("vp8"));
  const viewer = newPeer(ice, videoCodecs("viewer"));
  server.addTransceiver("video", { direction: "sendonly" });
  viewer.addTransceiver("video", { direction: "recvonly" });
  await viewer.setLocalDescription(await viewer.createOffer());
  await gatheringComplete(viewer, 5000);
  await server.setRemoteDescription(viewer.localDescription!);
  await server.setLocalDescription(await server.createAnswer());
  await gatheringComplete(server, 5000);
  await viewer.setRemoteDescription(server.localDescription!);
  const deadline = Date.now() + 10_000;
  while (server.connectionState !== "connected" || viewer.connectionState !== "connected") {
    if (Date.now() > deadline) throw new Error("a pair did not connect within 10 s");
    await new Promise((r) => setTimeout(r, 2));
  }
  return { server, viewer };
}
