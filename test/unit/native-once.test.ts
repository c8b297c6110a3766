// The one way src/net/ binds native functions (src/net/koffi.ts NativeOnce): bound once, on first
// use; a reason or a throw while binding is the verdict's reason, never a throw of its own.
import assert from "node:assert/strict";
import { test } from "node:test";
import { NativeOnce } from "../../src/net/koffi.ts";

test("binds once, on the first load, and keeps the bindings beside the verdict", () => {
  let calls = 0;
  const lib = new NativeOnce("libc's nothing", () => {
    calls++;
    return { answer: () => 42 };
  });
  assert.equal(calls, 0, "nothing is bound before it is asked for");
  assert.equal(lib.native, null);
  assert.deepEqual(lib.load(), { ok: true });
  assert.deepEqual(lib.load(), { ok: true });
  assert.equal(calls, 1);
  const bound = lib.native as { answer: () => number } | null;
  assert.equal(bound?.answer(), 42, "the bindings kept once loaded");
});

test("a reason, or a throw while binding, is the verdict; the bindings stay null", () => {
  const refused = new NativeOnce<{ f: () => number }>("libc's f", () => "not Linux (plan9)");
  assert.deepEqual(refused.load(), { ok: false, reason: "not Linux (plan9)" });
  assert.equal(refused.native, null);
  let calls = 0;
  const missing = new NativeOnce<{ f: () => number }>("libc's f", () => {
    calls++;
    throw new Error("symbol f not found\n    at somewhere");
  });
  const want = { ok: false, reason: "libc's f not reachable through koffi (symbol f not found)" };
  assert.deepEqual(missing.load(), want);
  assert.deepEqual(missing.load(), want);
  assert.equal(calls, 1, "a failed binding is not tried again");
  assert.equal(missing.native, null);
});

test("the verdict where it binds can say more (OpenSSL's version)", () => {
  const lib = new NativeOnce(
    "OpenSSL's EVP functions",
    () => ({ version: "OpenSSL 3.0.0" }),
    (n) => ({ ok: true as const, version: n.version }),
  );
  assert.deepEqual(lib.load(), { ok: true, version: "OpenSSL 3.0.0" });
});
