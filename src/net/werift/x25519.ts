// X25519 (RFC 7748) through node:crypto, in the shapes of tweetnacl's `box.keyPair()` and
// `scalarMult(n, p)`, which werift's DTLS calls for its ECDHE key exchange. tweetnacl computes
// them in JavaScript (~0.7 ms each on this machine, both on the event loop, for every handshake);
// OpenSSL takes ~0.05 ms. The results are the same bytes: both clamp the scalar as RFC 7748 section 5
// says. One difference: OpenSSL refuses a shared secret of all zeros (a low-order public key
// from a broken or hostile peer), where tweetnacl returns the zeros; the handshake then fails.
import { createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync } from "node:crypto";

// DER headers of a raw 32-byte X25519 key (RFC 8410): PKCS #8 private key, SubjectPublicKeyInfo
const PKCS8_PREFIX = Buffer.from("302e020100300506032b656e04220420", "hex");
const SPKI_PREFIX = Buffer.from("302a300506032b656e032100", "hex");
const KEY_BYTES = 32;

/**
 * A copy of the last 32 bytes in a buffer of its own: werift reads `secretKey.buffer` and
 * `publicKey.buffer` whole, so a view into a larger buffer would hand it the wrong bytes.
 */
function ownKey(der: Buffer): Uint8Array {
  const out = new Uint8Array(KEY_BYTES);
  out.set(der.subarray(der.length - KEY_BYTES));
  return out;
}

/** tweetnacl's `box.keyPair()`: a fresh X25519 key pair, raw 32-byte keys. */
export function x25519KeyPair(): { publicKey: Uint8Array; secretKey: Uint8Array } {
  const { publicKey, privateKey } = generateKeyPairSync("x25519", {
    publicKeyEncoding: { type: "spki", format: "der" },
    privateKeyEncoding: { type: "pkcs8", format: "der" },
  });
  return { publicKey: ownKey(publicKey), secretKey: ownKey(privateKey) };
}

/** tweetnacl's `scalarMult(n, p)`: the X25519 function of scalar n and point p, 32 bytes. */
export function x25519(n: Uint8Array, p: Uint8Array): Uint8Array {
  // internal: a peer's key of another length ends werift's DTLS handshake here (tweetnacl threw too)
  if (n.length !== KEY_BYTES || p.length !== KEY_BYTES) throw new Error("x25519: keys are 32 bytes");
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX, n]),
    format: "der",
    type: "pkcs8",
  });
  const publicKey = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, p]), format: "der", type: "spki" });
  return ownKey(diffieHellman({ privateKey, publicKey }));
}
