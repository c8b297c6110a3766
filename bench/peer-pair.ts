// Two werift peers of this thread connected over 127.0.0.1 (offer, non-trickle gathering on both
// sides, answer, ICE and DTLS): a sending "server" and a receiving viewer, as bench:setup times
// them, test/unit/werift-seam.test.ts checks the werift seam on them and test/unit/werift-pair.ts
// sends a flight twice between them.
import { gatheringComplete, newPeer, videoCodecs } from "../src/net/rtc.ts";
import type { RTCPeerConnection } from "../src/net/werift/api.ts";

const ice = { loopbackOnly: true, includeLoopback: false };

/** Where a caller may step into the exchange. */
export interface PairHooks {
  /** the viewer's peer, its transceiver added, before it gathers */
  viewerBeforeGathering?(pc: RTCPeerConnection): void;
  /** the viewer's peer once it gathered, before the server takes its offer */
  viewerGathered?(pc: RTCPeerConnection): void;
  /** the server's peer once it answered, before the viewer takes the answer (DTLS not started) */
  serverAnswered?(pc: RTCPeerConnection): void;
}

/** A server and a viewer, not yet connected. */
export function newPair(): { server: RTCPeerConnection; viewer: RTCPeerConnection } {
  const server = newPeer(ice, videoCodecs("vp8"));
  const viewer = newPeer(ice, videoCodecs("viewer"));
  server.addTransceiver("video", { direction: "sendonly" });
  viewer.addTransceiver("video", { direction: "recvonly" });
  return { server, viewer };
}

/** The viewer's offer, the server's answer; ICE and DTLS then start on their own. */
export async function exchange(
  server: RTCPeerConnection,
  viewer: RTCPeerConnection,
  hooks: PairHooks = {},
): Promise<void> {
  hooks.viewerBeforeGathering?.(viewer);
  await viewer.setLocalDescription(await viewer.createOffer());
  await gatheringComplete(viewer, 5000);
  hooks.viewerGathered?.(viewer);
  await server.setRemoteDescription(viewer.localDescription!);
  await server.setLocalDescription(await server.createAnswer());
  await gatheringComplete(server, 5000);
  hooks.serverAnswered?.(server);
  await viewer.setRemoteDescription(server.localDescription!);
}

/** Both peers connected; throws after 10 s. The caller closes them. */
export async function connectedPair(): Promise<{ server: RTCPeerConnection; viewer: RTCPeerConnection }> {
  const { server, viewer } = newPair();
  await exchange(server, viewer);
  const deadline = Date.now() + 10_000;
  while (server.connectionState !== "connected" || viewer.connectionState !== "connected") {
    if (Date.now() > deadline) throw new Error("a pair did not connect within 10 s");
    await new Promise((r) => setTimeout(r, 2));
  }
  return { server, viewer };
}
