// Node hands out Buffers under half of Buffer.poolSize as slices of shared 8 KiB slabs, and a
// slab lives as long as any slice of it. werift keeps a few small slices per peer for the whole
// session (DTLS handshake cache, the master secret and certificate, the last STUN request of its
// consent loop), and each pins a slab of its own: about 16 KB per viewer, measured with
// `npm run bench:heap`. A viewer thread does not allocate small buffers on its per-packet path
// (the payload comes out of node:crypto, header fields are read in place), so it trades the
// slab size for memory; the main thread (publisher, in-process relay) keeps Node's default.
import { Buffer } from "node:buffer";

export const VIEWER_BUFFER_POOL_BYTES = 1024;

/** Sets this thread's Buffer pool slab size for viewers (call before any viewer starts). */
export function useViewerBufferPool(bytes: number = VIEWER_BUFFER_POOL_BYTES): void {
  Buffer.poolSize = bytes;
}
