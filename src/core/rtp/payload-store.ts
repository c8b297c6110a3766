// Where a pending frame keeps the payloads its caller reuses (the arena path hands the reassembler
// views into one receive arena, valid during the call only): copies go into 64 KiB chunks of a
// PayloadStore, bump-allocated, each counting the payloads it holds. A chunk whose payloads were
// all released goes back to the store's free list and is reused, so a steady stream allocates no
// buffer per packet. One store per viewer thread, shared by every reassembler of the thread: the
// thread's context holds it (src/workers/thread.ts) and hands it to each pipeline that copies;
// no module state. Releases are deferred to the releasing reassembler's next push, because a frame
// completed by a push is still read (fingerprinted) after its slots are recycled.

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

/** One thread's payload chunks: the one in use, the free ones, and how many were made. */
export class PayloadStore {
  private readonly free: PayloadChunk[] = [];
  private current: PayloadChunk | null = null;
  private made = 0;

  /** A copy of `src`, and the chunk it lives in (null: too large for a chunk, a buffer of its own). */
  keep(src: Uint8Array, into: { chunk: PayloadChunk | null }): Uint8Array {
    const n = src.length;
    if (n > CHUNK_BYTES) {
      into.chunk = null;
      return new Uint8Array(src);
    }
    let c = this.current;
    if (c === null || c.used + n > CHUNK_BYTES) {
      if (c !== null && c.held === 0) this.retire(c);
      c = this.free.pop() ?? this.newChunk();
      this.current = c;
    }
    const at = c.used;
    c.bytes.set(src, at);
    c.used = at + n;
    c.held++;
    into.chunk = c;
    return c.bytes.subarray(at, at + n);
  }

  /** A payload kept in `c` is no longer referenced by its frame. */
  release(c: PayloadChunk): void {
    c.held--;
    if (c.held === 0 && c !== this.current) this.retire(c);
  }

  /** Chunks made by this store so far, and those free now (tests, diagnostics). */
  chunks(): { made: number; free: number } {
    return { made: this.made, free: this.free.length };
  }

  private retire(c: PayloadChunk): void {
    c.used = 0;
    if (this.free.length < MAX_FREE) this.free.push(c);
  }

  private newChunk(): PayloadChunk {
    this.made++;
    return new PayloadChunk();
  }
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

  /** Releases every queued payload into `store` (the one that kept them). */
  flush(store: PayloadStore): void {
    for (let i = 0; i < this.n; i++) store.release(this.chunks[i]!);
    this.n = 0;
  }
}
