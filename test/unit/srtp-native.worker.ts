// Worker for srtp-native.test.ts: whether this worker thread reaches OpenSSL, and the receivers
// the factory picks here, tried on the packet the main thread protected.
import { parentPort, workerData } from "node:worker_threads";
import { SRTP_AEAD_AES_128_GCM } from "../../src/core/srtp/kdf.ts";
import { openssl } from "../../src/net/srtp/openssl.ts";
import { srtpReceivers } from "../../src/net/srtp/unprotect.ts";

const { key, salt, packet } = workerData as { key: Uint8Array; salt: Uint8Array; packet: Uint8Array };
const r = srtpReceivers(SRTP_AEAD_AES_128_GCM, key, salt);
const out = r.rtp.unprotect(Buffer.from(packet), 12);
parentPort?.postMessage({
  ok: openssl().ok,
  backend: r.backend,
  payload: out === null ? null : Uint8Array.from(out),
});
