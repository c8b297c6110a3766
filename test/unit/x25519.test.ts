import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import nacl from "tweetnacl";
import { nativeX25519, patchWerift } from "../../src/net/werift/patches.ts";
import { x25519, x25519KeyPair } from "../../src/net/werift/x25519.ts";

// tweetnacl's own JavaScript, kept before patchWerift replaces the two functions
const jsScalarMult = nacl.scalarMult;
const jsKeyPair = nacl.box.keyPair;

test("node:crypto X25519 gives tweetnacl's bytes: random scalars and points, and RFC 7748 section 6.1", () => {
  for (let i = 0; i < 50; i++) {
    const n = new Uint8Array(randomBytes(32));
    const p = jsKeyPair().publicKey;
    assert.deepEqual(x25519(n, p), jsScalarMult(n, p));
  }
  // RFC 7748 section 6.1: Alice's private key and Bob's public key give the shared secret K
  const hex = (s: string) => new Uint8Array(Buffer.from(s, "hex"));
  const alicePriv = hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
  const bobPub = hex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
  assert.equal(
    Buffer.from(x25519(alicePriv, bobPub)).toString("hex"),
    "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742",
  );
});

test("a native key pair: the public key is the scalar times the base point, each key in a 32-byte buffer of its own", () => {
  for (let i = 0; i < 20; i++) {
    const kp = x25519KeyPair();
    assert.deepEqual(kp.publicKey, nacl.scalarMult.base(kp.secretKey));
    // werift reads keys.secretKey.buffer and keys.publicKey.buffer whole
    assert.equal(kp.secretKey.buffer.byteLength, 32);
    assert.equal(kp.publicKey.buffer.byteLength, 32);
  }
});

test("patchWerift puts them on the tweetnacl werift loads; both sides of an exchange agree", () => {
  patchWerift();
  // in this checkout the patch must apply: werift and we load the same tweetnacl
  assert.equal(nativeX25519, true);
  assert.notEqual(nacl.scalarMult, jsScalarMult);
  assert.notEqual(nacl.box.keyPair, jsKeyPair);
  // the functions' own properties survive
  assert.equal(typeof nacl.scalarMult.base, "function");
  assert.equal(nacl.scalarMult.scalarLength, 32);
  assert.equal(typeof nacl.box.keyPair.fromSecretKey, "function");
  const a = nacl.box.keyPair();
  const b = nacl.box.keyPair();
  const ab = nacl.scalarMult(a.secretKey, b.publicKey);
  assert.deepEqual(ab, nacl.scalarMult(b.secretKey, a.publicKey));
  assert.deepEqual(ab, jsScalarMult(a.secretKey, b.publicKey));
  // a low-order point (all zeros) gives no secret: OpenSSL refuses where tweetnacl returned zeros
  assert.throws(() => nacl.scalarMult(a.secretKey, new Uint8Array(32)));
});
