// The project's own files named relative to the checkout (src/main/process/own-files.ts): only
// files that exist inside the root, relative words resolved from the commands' folder.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { ownFileNamer } from "../../src/main/process/own-files.ts";

test("files inside the root are named relative to it; anything else is not named", () => {
  const base = mkdtempSync(join(tmpdir(), "own-files-"));
  try {
    const root = join(base, "checkout");
    mkdirSync(join(root, "bench", "servers", "janus"), { recursive: true });
    mkdirSync(join(root, "examples"));
    writeFileSync(join(root, "bench", "servers", "janus", "install.sh"), "");
    writeFileSync(join(base, "outside.sh"), "");
    symlinkSync(join(base, "outside.sh"), join(root, "link.sh"));
    const name = ownFileNamer(join(root, "examples"), root);
    assert.equal(name(join(root, "bench/servers/janus/install.sh")), "bench/servers/janus/install.sh");
    assert.equal(name("../bench/servers/janus/install.sh"), "bench/servers/janus/install.sh");
    assert.equal(name(join(root, "bench/servers/janus")), undefined, "a folder");
    assert.equal(name(join(root, "bench/servers/janus/missing.sh")), undefined, "no such file");
    assert.equal(name(join(base, "outside.sh")), undefined, "outside the root");
    assert.equal(name("../../outside.sh"), undefined, "outside the root, relative");
    assert.equal(name(join(root, "link.sh")), undefined, "a link out of the root");
    assert.equal(name("~/install.sh"), undefined);
    assert.equal(name("/whep/endpoint/h264"), undefined);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test("by default the root is this checkout", () => {
  const here = fileURLToPath(new URL(".", import.meta.url));
  assert.equal(ownFileNamer(here)("../../bench/servers/janus/install.sh"), "bench/servers/janus/install.sh");
});
