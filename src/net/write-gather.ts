// A thread's gathered writes (docs/definitions.md#transport-feedback): while a pass of its shared
// feedback tick runs (src/workers/timers.ts), the RTCP its viewers write — on the shared socket,
// and on a viewer's own socket (./werift/rtcp-wire.ts) — is held in the thread's send arena
// (./batch-write.ts) and leaves with one sendmmsg per socket when the pass ends, or sooner when
// the arena is full or the next datagram is for another socket. Outside a pass, or where batched
// writes cannot run here, nothing is held and the writer sends itself (a dgram send).
import type { Socket } from "node:dgram";
import { isIPv4 } from "node:net";
import { ip4 } from "../core/wire/stun.ts";
import { batchWrites, SendBatch, WRITE_SLOT_BYTES } from "./batch-write.ts";
import { socketFd } from "./kernel.ts";

let open = false;
let batch: SendBatch | null = null;
/** the socket the held datagrams are for, −1: none held */
let heldFd = -1;
/** each socket's descriptor, −1 where it cannot be had */
const fds = new WeakMap<Socket, number>();
/** sendmmsg calls and datagrams written by gathering, since the thread started */
export const gathered = { calls: 0, datagrams: 0 };

/** A pass begins: writes through `gather` are held from now. */
export function beginGather(): void {
  open = true;
}

/** The pass ends: what is held is written now. */
export function endGather(): void {
  open = false;
  flush();
}

/**
 * Holds `data` for `host` (an IPv4 address) and `port` on `socket`, where a pass is open and
 * batched writes run here; false where the caller must send it itself.
 */
export function gather(socket: Socket, data: Uint8Array, host: string, port: number): boolean {
  if (!open || data.length > WRITE_SLOT_BYTES || !isIPv4(host)) return false;
  let fd = fds.get(socket);
  if (fd === undefined) {
    fd = socketFd(socket);
    fds.set(socket, fd);
  }
  if (fd < 0) return false;
  if (batch === null) {
    if (!batchWrites().ok) return false;
    batch = new SendBatch();
  }
  if (heldFd !== fd || batch.full) flush();
  batch.bytes.set(data, batch.offset(batch.count));
  batch.push(data.length, ip4(host), port);
  heldFd = fd;
  return true;
}

function flush(): void {
  if (batch === null || batch.count === 0 || heldFd < 0) return;
  const calls = batch.calls;
  gathered.datagrams += batch.flush(heldFd);
  gathered.calls += batch.calls - calls;
  heldFd = -1;
}
