// Warming a thread before the run's t0: the first WebRTC peer and the first HTTP
// request of a thread cost tens of milliseconds that later ones do not (measured here: ~70 ms
// for werift's first offer with host gathering against ~2–3 ms after it, ~30–40 ms for the
// first fetch — undici and its HTTP parser load lazily — against ~3–4 ms), which the first
// viewer would otherwise pay between its scheduled start and its POST.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gatheringComplete, newPeer, videoCodecs } from "../net/rtc.ts";

/** One loopback peer through its offer and host-candidate gathering, closed. */
async function warmPeer(): Promise<void> {
  const pc = newPeer({ loopbackOnly: true, includeLoopback: false }, videoCodecs("viewer"));
  try {
    pc.addTransceiver("video", { direction: "recvonly" });
    await pc.setLocalDescription(await pc.createOffer());
    await gatheringComplete(pc, 2000);
  } finally {
    await pc.close().catch(() => {});
  }
}

/** One POST with an SDP body through fetch to a server of this thread on 127.0.0.1, closed. */
async function warmHttp(): Promise<void> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/warm`, {
      method: "POST",
      headers: { "content-type": "application/sdp" },
      body: "v=0\r\n",
      signal: AbortSignal.timeout(2000),
    });
    await res.arrayBuffer();
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

let warmed = false;

/** Warms this thread's WebRTC and HTTP stacks once; a failure only means a colder first viewer. */
export async function warmNetworking(): Promise<void> {
  if (warmed) return;
  warmed = true;
  await Promise.all([warmPeer().catch(() => {}), warmHttp().catch(() => {})]);
}
