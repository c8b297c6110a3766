// Gathered writes (src/net/write-gather.ts) on real sockets on 127.0.0.1: outside a pass nothing is
// held; in a pass the datagrams for one socket leave together in one sendmmsg when it ends, exact
// bytes, in order, from that socket; a datagram for another socket writes what was held first.
import assert from "node:assert/strict";
import { test } from "node:test";
import { batchWrites } from "../../src/net/batch-write.ts";
import { beginGather, endGather, gather, gathered } from "../../src/net/write-gather.ts";
import { bound, collect, sleep } from "./udp-helpers.ts";

test("a pass's datagrams on one socket: one sendmmsg at its end; outside a pass none held", {
  skip: batchWrites().ok ? false : "no batch writes here",
}, async (t) => {
  const [tx, tx2, rx] = [await bound(), await bound(), await bound()];
  t.after(() => {
    for (const s of [tx, tx2, rx]) s.close();
  });
  const got = collect(rx);
  const port = rx.address().port;
  assert.equal(gather(tx, Buffer.from([1]), "127.0.0.1", port), false, "held outside a pass");
  const calls = gathered.calls;
  const datagrams = gathered.datagrams;
  beginGather();
  for (const n of [2, 3, 4]) assert.ok(gather(tx, Buffer.alloc(n, n), "127.0.0.1", port));
  assert.equal(gathered.calls, calls, "written before the pass ended");
  assert.equal(gather(tx, Buffer.alloc(2000), "127.0.0.1", port), false, "larger than a slot: held");
  assert.equal(gather(tx, Buffer.from([9]), "::1", port), false, "not IPv4: held");
  // another socket: what tx held goes first (one call), then tx2's at the end (another)
  assert.ok(gather(tx2, Buffer.alloc(5, 5), "127.0.0.1", port));
  assert.equal(gathered.calls, calls + 1);
  endGather();
  assert.equal(gathered.calls, calls + 2);
  assert.equal(gathered.datagrams, datagrams + 4);
  for (let i = 0; i < 50 && got.length < 4; i++) await sleep(10);
  assert.deepEqual(
    got.map((g) => [...g.data]),
    [
      [2, 2],
      [3, 3, 3],
      [4, 4, 4, 4],
      [5, 5, 5, 5, 5],
    ],
  );
  assert.deepEqual(
    got.map((g) => g.port),
    [tx, tx, tx, tx2].map((s) => s.address().port),
  );
});
