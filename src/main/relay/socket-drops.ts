// The built-in relay's sockets' drops (docs/definitions.md#udp-drops): datagrams the kernel
// dropped on the relay's own UDP sockets (its publisher's and its legs'), read from
// /proc/net/udp by inode, as a session closes and on request: the server's drops, which a run
// with the relay in its process reports apart from the client's. And the test-only pause of the
// publisher's socket reading (RelayTestHooks.pauseReading) that makes the relay drop.
import { pauseLibuvReading } from "../../net/ready-wake.ts";
import { socketInode, sumDrops } from "../../net/socket-drops.ts";
import type { RTCPeerConnection } from "../../net/werift/api.ts";
import { peerUdpTransports } from "../../net/werift/transports.ts";
import type { RelayTestHooks } from "./options.ts";

function inodes(pc: RTCPeerConnection): number[] {
  return peerUdpTransports(pc)
    .map((t) => socketInode(t.socket))
    .filter((i) => i >= 0);
}

export class RelayDrops {
  /** drops of the sessions closed so far */
  private closed = 0;

  /** A session's peer connection is about to close: its sockets' drops are kept. */
  closing(pc: RTCPeerConnection): void {
    const n = sumDrops(inodes(pc));
    if (typeof n === "number") this.closed += n;
  }

  /** Every drop on the relay's sockets so far (`open`: its sessions now), or why unreadable. */
  total(open: Iterable<RTCPeerConnection>): number | string {
    const n = sumDrops([...open].flatMap(inodes));
    return typeof n === "string" ? n : n + this.closed;
  }
}

/**
 * Test-only: the publisher's sockets stop being read `afterMs` after it connected, for `forMs`,
 * with their receive buffers made small: the kernel drops on the relay's side.
 */
export function pausePublisherReading(
  pc: RTCPeerConnection,
  hook: RelayTestHooks["pauseReading"],
  later: (ms: number, fn: () => void) => void,
): void {
  if (hook === undefined) return;
  later(hook.afterMs, () => {
    for (const t of peerUdpTransports(pc)) {
      const socket = t.socket;
      if (socket === undefined) continue;
      socket.setRecvBufferSize(hook.receiveBufferBytes ?? 16384);
      const resume = pauseLibuvReading(socket);
      if (resume !== null) later(hook.forMs, resume);
    }
  });
}
