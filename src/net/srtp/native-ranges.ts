// How a byte range reaches OpenSSL through koffi (./openssl.ts), for one cipher or MAC context: a
// buffer and a byte offset. Offset 0 passes the buffer itself (the cheapest: a caller that needs a
// view of the range anyway passes that view), a short input range is copied into the context's
// scratch buffer, and every other range is the address of the buffer's memory (read once per
// ArrayBuffer, with one native call, and kept by the context) plus the offsets as a number, so no
// view is made per call. Every range is bounds-checked here before native code sees it. Every
// cipher and MAC context is a NativeRanges (no module state): nothing here is allocated per packet.

/** What koffi receives for a pointer argument: a buffer, an address, or null. */
export type Bytes = Uint8Array | number | null;

/** Input ranges this short are copied into `scratch` instead of addressed: cheaper than a native call. */
const COPY_MAX_BYTES = 64;

// internal: invariant, this project's SRTP code passes keys, IVs, tags and ranges at their sizes
export function misuse(what: string): never {
  throw new RangeError(what);
}

export class NativeRanges {
  private readonly addressOf: (p: Uint8Array) => number;
  // The memory (ArrayBuffer) whose address was read last and that address: packets that share one
  // (a pool slab, a batch's arena) read it once; the reference keeps that memory alive while it is
  // cached, so the address cannot be reused by another. Reading `.buffer` first moves a small
  // typed array's bytes out of V8's heap for good (where GC could move them), so the address
  // holds; a detached buffer has length 0 and fails the bounds check.
  private lastStore: ArrayBufferLike | null = null;
  private lastBase = 0;
  private readonly scratch = new Uint8Array(COPY_MAX_BYTES);

  /** `addressOf`: the address of a buffer's first byte (one native call). */
  constructor(addressOf: (p: Uint8Array) => number) {
    this.addressOf = addressOf;
  }

  /** The pointer koffi receives for `buf[at..at+len)`, after a bounds check. */
  protected range(buf: Uint8Array, at: number, len: number): Bytes {
    if (at < 0 || len < 0 || at + len > buf.length) misuse("byte range outside the buffer");
    if (at === 0) return buf;
    const store = buf.buffer;
    if (store !== this.lastStore) {
      this.lastBase = this.addressOf(buf) - buf.byteOffset;
      this.lastStore = store;
    }
    return this.lastBase + buf.byteOffset + at;
  }

  /** The pointer for an input-only `buf[at..at+len)`: a short one is copied (used before the next call). */
  protected input(buf: Uint8Array, at: number, len: number): Bytes {
    if (at === 0 || len > COPY_MAX_BYTES) return this.range(buf, at, len);
    if (at < 0 || len < 0 || at + len > buf.length) misuse("byte range outside the buffer");
    const scratch = this.scratch;
    for (let i = 0; i < len; i++) scratch[i] = buf[at + i]!;
    return scratch;
  }
}
