// The viewer thread's shared socket (src/workers/receive/shared-socket.ts, socket-sharing.ts) on real UDP
// sockets on 127.0.0.1, read by the thread's arena reader: each server session's datagrams reach
// the viewer that sent to it and no other, while viewers join and leave and a new viewer takes
// a source a closed one had; a server's check that comes first is routed by its USERNAME; a
// source two viewers send to stays the first one's (counted); the probe decides as documented.
import assert from "node:assert/strict";
import { test } from "node:test";
import { stunUsername } from "../../src/core/wire/stun.ts";
import type { SharedTransport } from "../../src/net/werift/shared-udp.ts";
import { SharedSocket } from "../../src/workers/receive/socket-sharing.ts";
import { viewerThread } from "../../src/workers/thread.ts";
import { bound, sleep, stage } from "./udp-helpers.ts";

/** This thread's context (../../src/workers/thread.ts): what the receive side shares. */
const thread = viewerThread();
const intake = thread.intake;
const sharing = thread.sharing;
const arenaReader = () => thread.arena();

const linux = process.platform === "linux";

/** A STUN binding request carrying USERNAME `user` (RFC 8489: header, then the attribute padded to 4). */
function bindingRequest(user: string): Buffer {
  const u = Buffer.from(user);
  const padded = (u.length + 3) & ~3;
  const b = Buffer.alloc(20 + 4 + padded);
  b.writeUInt16BE(0x0001, 0);
  b.writeUInt16BE(4 + padded, 2);
  b.writeUInt32BE(0x2112a442, 4);
  b.fill(7, 8, 20);
  b.writeUInt16BE(0x0006, 20);
  b.writeUInt16BE(u.length, 22);
  u.copy(b, 24);
  return b;
}

async function hub(): Promise<{ hub: SharedSocket; stop: () => void }> {
  const reader = arenaReader();
  if (typeof reader === "string") assert.fail(reader);
  let remove: (() => void) | null = null;
  const h = await SharedSocket.open("127.0.0.1", () => {});
  const r = reader.addShared(h.socket, h);
  if (typeof r === "string") assert.fail(r);
  remove = r;
  return {
    hub: h,
    stop: () => {
      remove?.();
      h.close();
    },
  };
}

test("a STUN request's USERNAME is read; anything else has none", () => {
  assert.equal(stunUsername(bindingRequest("ab12:cd34")), "ab12:cd34");
  assert.equal(stunUsername(Buffer.from([0x80, 0x60, 0, 1])), null);
  const noCookie = bindingRequest("x:y");
  noCookie.writeUInt32BE(0, 4);
  assert.equal(stunUsername(noCookie), null);
});

test("viewers joining and leaving the shared socket while datagrams flow: each gets its own server's only", async (t) => {
  if (!linux) return t.skip("batched reads are Linux-only");
  intake.beginRun("kernel");
  const { hub: h, stop } = await hub();
  const servers = [await bound(), await bound(), await bound()];
  const wrong: string[] = [];
  const got = new Map<string, number[]>();
  const others: string[] = [];
  const join = (name: string, server: number): SharedTransport => {
    const tr = h.join(name);
    assert.ok(tr !== null);
    const mine: number[] = [];
    got.set(name, mine);
    tr.media = stage((data, _at, len) => {
      assert.equal(len, 4);
      if (data[1] !== server) wrong.push(`${name} got server ${data[1]}'s datagram`);
      mine.push(data[2]!);
    });
    tr.onData = (data, from) =>
      others.push(`${name}:${data[0]}:${from[1] === servers[server]!.address().port}`);
    // the viewer's first check to its server registers that source
    void tr.send(Buffer.from([0, 1]), ["127.0.0.1", servers[server]!.address().port]);
    return tr;
  };
  const flow = async (server: number, from: number, to: number) => {
    for (let k = from; k < to; k++) {
      servers[server]!.send(Buffer.from([0x80, server, k, 0]), h.address.port, "127.0.0.1");
      if (k % 5 === 4) await sleep(2);
    }
  };
  const a = join("a", 0);
  const b = join("b", 1);
  join("c", 2);
  await sleep(5);
  await Promise.all([flow(0, 0, 20), flow(1, 0, 20), flow(2, 0, 20)]);
  servers[1]!.send(Buffer.from([0x17, 1]), h.address.port, "127.0.0.1"); // DTLS: to werift, with its source
  await sleep(20);
  await a.close();
  await flow(0, 20, 25); // nobody's now: counted, delivered to no one
  await sleep(20);
  assert.equal(h.unrouted, 5);
  // a new viewer takes the closed one's server (the server reused the port for a new session)
  join("d", 0);
  await sleep(5);
  await flow(0, 30, 40);
  await b.close();
  await sleep(20);
  stop();
  for (const s of servers) s.close();
  assert.deepEqual(wrong, []);
  const seq = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);
  assert.deepEqual(got.get("a"), seq(0, 20));
  assert.deepEqual(got.get("b"), seq(0, 20));
  assert.deepEqual(got.get("c"), seq(0, 20));
  assert.deepEqual(got.get("d"), seq(30, 40));
  assert.deepEqual(others, ["b:23:true"]);
  assert.equal(h.members, 2, "c and d are left");
});

test("a server's check before the viewer sent anything is routed by USERNAME; a source two viewers send to stays the first's", async (t) => {
  if (!linux) return t.skip("batched reads are Linux-only");
  intake.beginRun("kernel");
  const { hub: h, stop } = await hub();
  const server = await bound();
  const x = h.join("xufrag");
  const y = h.join("yufrag");
  assert.ok(x !== null && y !== null);
  assert.equal(h.join("xufrag"), null, "one transport per ICE connection");
  const seen: string[] = [];
  x.onData = (d) => seen.push(`x:${d[0]}`);
  y.onData = (d) => seen.push(`y:${d[0]}`);
  server.send(bindingRequest("yufrag:srv1"), h.address.port, "127.0.0.1");
  await sleep(20);
  assert.deepEqual(seen, ["y:0"], "routed by the USERNAME's first part");
  void x.send(Buffer.from([0, 1]), ["127.0.0.1", server.address().port]);
  await sleep(5);
  assert.equal(h.collisions, 1, "x sent to y's server");
  server.send(Buffer.from([0x17]), h.address.port, "127.0.0.1");
  await sleep(20);
  assert.deepEqual(seen, ["y:0", "y:23"]);
  stop();
  server.close();
});

test("the probe: two viewers' media from one address keep sockets of their own, from two addresses start sharing", async (t) => {
  if (!linux) return t.skip("batched reads are Linux-only");
  const own = (port: number) => ({ rinfo: { address: "127.0.0.1", port } });
  sharing.begin("shared");
  sharing.observe(own(5000));
  sharing.observe(own(5000));
  assert.deepEqual(sharing.ran(), {
    viewerSockets: "own",
    viewerSocketsReason: "the server sent two viewers' media from one address (one port for every session)",
    unroutedDatagrams: 0,
  });
  sharing.end();
  sharing.begin("own");
  assert.match(sharing.ran().viewerSocketsReason ?? "", /viewerSockets own/);
  sharing.end();
  sharing.begin("shared");
  sharing.observe(own(5000));
  sharing.observe(own(5002));
  for (let i = 0; i < 50 && sharing.counters() === null; i++) await sleep(5);
  assert.deepEqual(
    sharing.counters(),
    { unrouted: 0, collisions: 0, members: 0 },
    "the shared socket is bound",
  );
  assert.equal(sharing.ran().viewerSockets, "own", "the two probes had their own sockets");
  sharing.end();
  assert.equal(sharing.counters(), null, "the last shard's end closes the shared socket");
  sharing.begin("shared");
  assert.equal(
    sharing.ran().viewerSocketsReason,
    "the thread's first viewers probe the server with sockets of their own",
  );
  sharing.end();
});
