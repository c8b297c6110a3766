// Where a pending frame keeps the payloads its caller reuses (the arena path hands the reassembler
// views into one receive arena, valid during the call only): copies go into 64 KiB chunks shared by
// every reassembler of the thread, bump-allocated, each counting the payloads it holds. A chunk
// whose payloads were all released goes back to a free list and is reused, so a steady stream
// allocates no buffer per packet. Releases are deferred to the releasing reassembler's next push,
// because a frame completed by a push is still read (fingerprinted) after its slots are recycled.

/** Bytes per chunk: many payloads (≤ 2 KiB each), few chunks per thread. */
export const CHUNK_BYTES = 64 * 1024;
/** Free chunks kept for reuse at most (4 MiB); beyond, an empty chunk is left to the collector. */
const MAX_FREE = 64;

export class PayloadChunk {
  readonly bytes = new Uint8Array(CHUNK_BYTES);
  used = 0;
  /** payloads copied here and not yet released */
  held = 0;
}

const free: PayloadChunk[] = [];
let current: PayloadChunk | null = null;
let chunksMade = 0;

/** A copy of `src`, and the chunk it lives in (null: too large for a chunk, a buffer of its own). */
export function keepPayload(src: Uint8Array, into: { chunk: PayloadChunk | null }): Uint8Array {
  const n = src.length;
  if (n > CHUNK_BYTES) {
    into.chunk = null;
    return new Uint8Array(src);
  }
  let c = current;
  if (c === null || c.used + n > CHUNK_BYTES) {
    if (c !== null && c.held === 0) retire(c);
    c = free.pop() ?? newChunk();
    current = c;
  }
  const at = c.used;
  c.bytes.set(src, at);
  c.used = at + n;
  c.held++;
  into.chunk = c;
  return c.bytes.subarray(at, at + n);
}

/** A payload kept in `c` is no longer referenced by its frame. */
export function releasePayload(c: PayloadChunk): void {
  c.held--;
  if (c.held === 0 && c !== current) retire(c);
}

/**
 * Payloads whose release waits for the next push: their chunks, one entry per payload. Emptied by
 * a count, not by `length = 0`, which would drop the array's storage and allocate it again.
 */
export class ReleaseQueue {
  private readonly chunks: PayloadChunk[] = [];
  private n = 0;

  get pending(): boolean {
    return this.n > 0;
  }

  add(c: PayloadChunk): void {
    this.chunks[this.n++] = c;
  }

  /** Releases every queued payload. */
  flush(): void {
    for (let i = 0; i < this.n; i++) releasePayload(this.chunks[i]!);
    this.n = 0;
  }
}

function retire(c: PayloadChunk): void {
  c.used = 0;
  if (free.length < MAX_FREE) free.push(c);
}

/** Chunks made on this thread so far, and those free now (tests, diagnostics). */
export function payloadChunks(): { made: number; free: number } {
  return { made: chunksMade, free: free.length };
}

function newChunk(): PayloadChunk {
  chunksMade++;
  return new PayloadChunk();
}
