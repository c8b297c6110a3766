// The OpenSSL inside the node binary, reached through koffi (./koffi.ts) with `load(null)`:
// AES-128-GCM decryption and encryption and AES-128-CTR (the same either way) in place on a
// context keyed once, and HMAC-SHA1 on a context keyed once, for SRTP and SRTCP (both ways).
// Loaded once per thread, on first use; where it cannot load (no koffi binary, a symbol missing)
// `openssl()` says why and nothing else here is usable. The loaded bindings and that verdict
// (`bound`, ../koffi.ts NativeOnce) and the registry that frees contexts (`freeing`) are this file's only
// module state: the library, set once per thread, never per packet. What a packet touches (the
// address cache, the scratch for short inputs) is each context's own: every context is a
// NativeRanges (./native-ranges.ts, how a byte range is passed).

import { koffi as loadKoffi, NativeOnce } from "../koffi.ts";
import { type Bytes, misuse, NativeRanges } from "./native-ranges.ts";

/** Whether this thread reaches OpenSSL's EVP functions, and why not. */
export type OpensslAvailability = { ok: true; version: string } | { ok: false; reason: string };

type Ptr = bigint;
type Native = {
  /** OpenSSL_version(0) */
  version: string;
  cipherNew: () => Ptr;
  cipherFree: (ctx: Ptr) => number;
  gcm: () => Ptr;
  ctr: () => Ptr;
  decryptInit: (ctx: Ptr, cipher: Ptr | null, engine: null, key: Bytes, iv: Bytes) => number;
  decryptUpdate: (ctx: Ptr, out: Bytes, outLen: Int32Array, input: Bytes, inLen: number) => number;
  decryptFinal: (ctx: Ptr, out: Uint8Array, outLen: Int32Array) => number;
  encryptInit: (ctx: Ptr, cipher: Ptr | null, engine: null, key: Bytes, iv: Bytes) => number;
  encryptUpdate: (ctx: Ptr, out: Bytes, outLen: Int32Array, input: Bytes, inLen: number) => number;
  encryptFinal: (ctx: Ptr, out: Uint8Array, outLen: Int32Array) => number;
  ctrl: (ctx: Ptr, type: number, arg: number, data: Bytes) => number;
  hmacNew: () => Ptr;
  hmacFree: (ctx: Ptr) => number;
  hmacInit: (ctx: Ptr, key: Uint8Array | null, keyLen: number, md: Ptr | null, engine: null) => number;
  hmacUpdate: (ctx: Ptr, data: Bytes, len: number) => number;
  hmacFinal: (ctx: Ptr, out: Uint8Array, outLen: Uint32Array) => number;
  sha1: () => Ptr;
  /** memmove(p, p, 0): the address of a buffer's first byte, as a number */
  addressOf: (p: Uint8Array) => number;
};

/** EVP_CTRL_GCM_GET_TAG and EVP_CTRL_GCM_SET_TAG (openssl/evp.h). */
const EVP_CTRL_GCM_GET_TAG = 0x10;
const EVP_CTRL_GCM_SET_TAG = 0x11;
const GCM_TAG_BYTES = 16;
const SHA1_BYTES = 20;

const bound = new NativeOnce<Native, { ok: true; version: string }>(
  "OpenSSL's EVP functions",
  () => {
    const koffi = loadKoffi();
    if (typeof koffi === "string") return koffi;
    const lib = koffi.load(null);
    const f = <T>(decl: string): T => lib.func(decl) as unknown as T;
    const version = f<(t: number) => string>("const char *OpenSSL_version(int t)")(0);
    const memmove = f<(d: Uint8Array, s: Uint8Array, n: number) => number>(
      "uintptr_t memmove(uint8_t *d, uint8_t *s, size_t n)",
    );
    return {
      version,
      cipherNew: f("void *EVP_CIPHER_CTX_new(void)"),
      cipherFree: f("void EVP_CIPHER_CTX_free(void *ctx)"),
      gcm: f("void *EVP_aes_128_gcm(void)"),
      ctr: f("void *EVP_aes_128_ctr(void)"),
      decryptInit: f("int EVP_DecryptInit_ex(void *ctx, void *c, void *e, uint8_t *key, uint8_t *iv)"),
      decryptUpdate: f("int EVP_DecryptUpdate(void *ctx, uint8_t *out, int *outl, uint8_t *in, int inl)"),
      decryptFinal: f("int EVP_DecryptFinal_ex(void *ctx, uint8_t *out, int *outl)"),
      encryptInit: f("int EVP_EncryptInit_ex(void *ctx, void *c, void *e, uint8_t *key, uint8_t *iv)"),
      encryptUpdate: f("int EVP_EncryptUpdate(void *ctx, uint8_t *out, int *outl, uint8_t *in, int inl)"),
      encryptFinal: f("int EVP_EncryptFinal_ex(void *ctx, uint8_t *out, int *outl)"),
      ctrl: f("int EVP_CIPHER_CTX_ctrl(void *ctx, int type, int arg, uint8_t *ptr)"),
      hmacNew: f("void *HMAC_CTX_new(void)"),
      hmacFree: f("void HMAC_CTX_free(void *ctx)"),
      hmacInit: f("int HMAC_Init_ex(void *ctx, uint8_t *key, int len, void *md, void *e)"),
      hmacUpdate: f("int HMAC_Update(void *ctx, uint8_t *data, size_t len)"),
      hmacFinal: f("int HMAC_Final(void *ctx, uint8_t *md, unsigned int *len)"),
      sha1: f("void *EVP_sha1(void)"),
      addressOf: (p) => memmove(p, p, 0),
    } satisfies Native;
  },
  (n) => ({ ok: true, version: n.version }),
);

/** Loads the native side once per thread and says whether OpenSSL can be used here. */
export function openssl(): OpensslAvailability {
  return bound.load();
}

function lib(): Native {
  const a = openssl();
  const native = bound.native;
  if (!a.ok || native === null) refused(`OpenSSL unavailable here (${a.ok ? "not loaded" : a.reason})`);
  return native;
}

// internal: invariant, OpenSSL is called only where openssl() said ok, and fails only on bad arguments
function refused(what: string): never {
  throw new Error(what);
}

const freeing = new FinalizationRegistry<() => void>((free) => free());

/** One EVP_DecryptUpdate in place of a stream mode (all `len` bytes come out at once). */
function inPlace(n: Native, ctx: Ptr, p: Bytes, len: number, outLen: Int32Array): void {
  if (n.decryptUpdate(ctx, p, outLen, p, len) !== 1 || outLen[0] !== len) refused("EVP_DecryptUpdate failed");
}

type Init = Native["decryptInit"];
type Update = Native["decryptUpdate"];

/** A context of `cipher` keyed with `key` by `init` (one direction), freed with `owner`. */
function keyedCipher(
  owner: object,
  n: Native,
  cipher: Ptr,
  key: Uint8Array,
  init: Init = n.decryptInit,
): Ptr {
  if (key.length !== 16) misuse("AES-128 wants a 16-byte key");
  const ctx = n.cipherNew();
  freeing.register(owner, () => n.cipherFree(ctx));
  if (init(ctx, cipher, null, key, null) !== 1) refused("EVP_CipherInit_ex (key) failed");
  return ctx;
}

/** AES-128-GCM on one context keyed once, one direction; per packet only the IV is set. */
abstract class AesGcm extends NativeRanges {
  protected readonly ctx: Ptr;
  protected readonly n: Native;
  protected readonly outLen = new Int32Array(1);
  protected readonly none = new Uint8Array(16);
  protected readonly init: Init;
  protected readonly update: Update;

  constructor(key: Uint8Array, encrypt: boolean) {
    const n = lib();
    super(n.addressOf);
    this.n = n;
    this.init = encrypt ? n.encryptInit : n.decryptInit;
    this.update = encrypt ? n.encryptUpdate : n.decryptUpdate;
    this.ctx = keyedCipher(this, n, n.gcm(), key, this.init);
  }

  /** Starts a packet: the 12-byte IV. */
  begin(iv: Uint8Array): void {
    if (iv.length !== 12) misuse("GCM here takes a 12-byte IV");
    if (this.init(this.ctx, null, null, null, iv) !== 1) refused("EVP_CipherInit_ex (IV) failed");
  }

  /** Adds `buf[at..at+len)` to the additional authenticated data (before the payload). */
  aad(buf: Uint8Array, at: number, len: number): void {
    if (len > 0) this.update(this.ctx, null, this.outLen, this.input(buf, at, len), len);
  }

  /** Decrypts or encrypts `buf[at..at+len)` in place (all `len` bytes come out at once). */
  protected inPlace(buf: Uint8Array, at: number, len: number): void {
    if (len <= 0) return;
    const p = this.range(buf, at, len);
    if (this.update(this.ctx, p, this.outLen, p, len) !== 1 || this.outLen[0] !== len)
      refused("EVP_CipherUpdate failed");
  }
}

/** AES-128-GCM decryption (SRTP unprotect). */
export class AesGcmDecrypt extends AesGcm {
  constructor(key: Uint8Array) {
    super(key, false);
  }

  /** Decrypts `buf[at..at+len)` in place. */
  decrypt(buf: Uint8Array, at: number, len: number): void {
    this.inPlace(buf, at, len);
  }

  /** Whether the 16-byte tag at `buf[tagAt..)` authenticates what this packet saw. */
  verify(buf: Uint8Array, tagAt: number): boolean {
    const n = this.n;
    n.ctrl(this.ctx, EVP_CTRL_GCM_SET_TAG, GCM_TAG_BYTES, this.input(buf, tagAt, GCM_TAG_BYTES));
    return n.decryptFinal(this.ctx, this.none, this.outLen) === 1;
  }
}

/** AES-128-GCM encryption (SRTP protect). */
export class AesGcmEncrypt extends AesGcm {
  constructor(key: Uint8Array) {
    super(key, true);
  }

  /** Encrypts `buf[at..at+len)` in place. */
  encrypt(buf: Uint8Array, at: number, len: number): void {
    this.inPlace(buf, at, len);
  }

  /** Ends the packet and writes its 16-byte tag at `buf[tagAt..tagAt+16)`. */
  tag(buf: Uint8Array, tagAt: number): void {
    const n = this.n;
    if (n.encryptFinal(this.ctx, this.none, this.outLen) !== 1) refused("EVP_EncryptFinal_ex failed");
    n.ctrl(this.ctx, EVP_CTRL_GCM_GET_TAG, GCM_TAG_BYTES, this.range(buf, tagAt, GCM_TAG_BYTES));
  }
}

/**
 * AES-128 in counter mode (AES-CM, RFC 3711 section 4.1.1) on one context keyed once; counter
 * mode's decryption is its encryption, so SRTP protect uses this too.
 */
export class AesCtrDecrypt extends NativeRanges {
  private readonly ctx: Ptr;
  private readonly n: Native;
  private readonly outLen = new Int32Array(1);

  constructor(key: Uint8Array) {
    const n = lib();
    super(n.addressOf);
    this.n = n;
    this.ctx = keyedCipher(this, this.n, this.n.ctr(), key);
  }

  /** Decrypts `buf[at..at+len)` in place with the 16-byte initial counter block `iv`. */
  decrypt(iv: Uint8Array, buf: Uint8Array, at: number, len: number): void {
    const n = this.n;
    if (iv.length !== 16) misuse("AES-CTR takes a 16-byte counter block");
    if (n.decryptInit(this.ctx, null, null, null, iv) !== 1) refused("EVP_DecryptInit_ex (IV) failed");
    if (len > 0) inPlace(n, this.ctx, this.range(buf, at, len), len, this.outLen);
  }
}

/** HMAC-SHA1 on one context keyed once; each message starts from the keyed state. */
export class HmacSha1 extends NativeRanges {
  private readonly ctx: Ptr;
  private readonly n: Native;
  private readonly outLen = new Uint32Array(1);

  constructor(key: Uint8Array) {
    const n = lib();
    super(n.addressOf);
    this.n = n;
    const ctx = n.hmacNew();
    this.ctx = ctx;
    freeing.register(this, () => n.hmacFree(ctx));
    if (n.hmacInit(ctx, key, key.length, n.sha1(), null) !== 1) refused("HMAC_Init_ex (key) failed");
  }

  /** Starts a message (the key stays). */
  begin(): void {
    this.n.hmacInit(this.ctx, null, 0, null, null);
  }

  /** Adds `buf[at..at+len)` to the message. */
  update(buf: Uint8Array, at: number, len: number): void {
    if (len > 0) this.n.hmacUpdate(this.ctx, this.input(buf, at, len), len);
  }

  /** Writes the 20-byte MAC into `out` (at least 20 bytes). */
  finish(out: Uint8Array): void {
    if (out.length < SHA1_BYTES) misuse("HMAC-SHA1 writes 20 bytes");
    this.n.hmacFinal(this.ctx, out, this.outLen);
  }
}
