// A thread's profile is declared once (ThreadCarried, core/report/client-types.ts): what a shard's
// thread says of itself reaches `client.workers[]` as it is, key by key, and every other key of
// the protocol's ShardProfile states what the main thread does with it instead. A key declared
// but dropped on the way (report-input's copy, the report's key writer in client-block.ts) is
// named here, and so is one that the report's key order, an agent's profile check,
// test/e2e/report-keys.ts or docs/definitions.md does not follow (WORKER_KEYS declares them).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { buildReport } from "../../src/core/report/build.ts";
import {
  THREAD_CARRIED,
  type ThreadCarried,
  WORKER_KEYS,
  type WorkerReport,
} from "../../src/core/report/client-types.ts";
import { reportToJson } from "../../src/core/report/json.ts";
import { DelayHistogram } from "../../src/core/stats/summaries.ts";
import { profileOk } from "../../src/main/agents/shapes.ts";
import { workerReport } from "../../src/main/run/report-input.ts";
import type { ShardProfile } from "../../src/workers/protocol.ts";
import { REPORT_KEYS } from "../e2e/report-keys.ts";
import { healthyViewers, makeInput } from "./report-fixtures.ts";

/** Every carried key with a value (the compiler asks for each one the declaration gains). */
const EVERY: Required<ThreadCarried> = {
  shard: 3,
  thread: "worker",
  viewers: 25,
  packets: 40_000,
  cpuSeconds: 2.5,
  eventLoopUtilisation: 0.4,
  eventLoopDelayMs: { p50: 1, p99: 3, max: 8 },
  receiveLagMs: { p50: 0.1, p99: 0.7, max: 2 },
  processingWaitMs: { p50: 0.2, p99: 0.9, max: 4 },
  receivePath: "mixed",
  receivePathReason: "an arena transport could not start",
  rtcpSend: "mixed",
  rtcpSendReason: "native SRTCP had no key for one viewer",
  viewerSockets: "mixed",
  viewerSocketsReason: "a viewer's candidate was not on the shared socket",
  unroutedDatagrams: 7,
  socketDrops: 11,
  socketDropsReason: "a socket closed before its drops were read",
};

/** The protocol's keys the report does not carry as they are, each with what is done instead. */
const NOT_CARRIED: Record<Exclude<keyof ShardProfile, keyof ThreadCarried>, string> = {
  receiveLagHist: "merged over the threads into client.receiveLagMs",
  intakeDropped: "reported where the thread stamped through its intake",
  stamps: "spread into stampSource, kernelStamped, threadStamped, stampReason, threadStampedLagMs",
  repairedFrames: "read by the ceiling rule (late feedback), not reported per thread",
  stampSource: "the per-second tick's; the whole run's comes from stamps",
};

function profile(carried: ThreadCarried): ShardProfile {
  return {
    ...carried,
    receivePath: carried.receivePath ?? "lean",
    receiveLagHist: new DelayHistogram().encode(),
    intakeDropped: 0,
    stamps: { source: "kernel", kernelStamped: carried.packets, threadStamped: 0 },
    repairedFrames: 0,
  };
}

/** The report's client.workers[0] for one thread's profile, as the JSON report writes it. */
function reported(p: ShardProfile): Record<string, unknown> {
  const r = buildReport(makeInput(healthyViewers(2), { workers: [workerReport(p)] }));
  const json = JSON.parse(reportToJson(r)) as { client: { workers: Record<string, unknown>[] } };
  const w = json.client.workers[0];
  assert.ok(w !== undefined, "the report has no client.workers[0]");
  return w;
}

/** The carried keys a report's worker entry lacks or changed: each named as its report key. */
function uncarried(from: ThreadCarried, entry: Record<string, unknown>): string[] {
  return (Object.keys(THREAD_CARRIED) as (keyof ThreadCarried)[])
    .filter((k) => from[k] !== undefined)
    .filter((k) => JSON.stringify(entry[k]) !== JSON.stringify(from[k]))
    .map((k) => `client.workers[].${k}`);
}

test("every key a thread carries reaches client.workers[] as it is", () => {
  assert.deepEqual(uncarried(EVERY, reported(profile(EVERY))), []);
});

test("a key declared but dropped on the way is named", () => {
  const entry = reported(profile(EVERY));
  delete entry.rtcpSend;
  entry.socketDrops = 0;
  assert.deepEqual(uncarried(EVERY, entry), ["client.workers[].rtcpSend", "client.workers[].socketDrops"]);
});

test("a key the thread did not set stays absent: no zero, no empty reason", () => {
  const absent = ["receiveLagMs", "receivePathReason", "rtcpSend", "rtcpSendReason", "socketDrops"] as const;
  const sparse = profile({ ...EVERY, receivePath: "lean" });
  for (const k of absent) delete sparse[k];
  const entry = reported(sparse);
  assert.deepEqual(uncarried(sparse, entry), []);
  for (const k of absent) assert.equal(k in entry, false, `client.workers[].${k} written without a value`);
});

test("every carried key is a report key, and the protocol-only keys are not carried", () => {
  const keys = new Set(REPORT_KEYS.map((k) => k.replace(/^\+/, "").replace(/\?$/, "")));
  for (const k of Object.keys(THREAD_CARRIED))
    assert.ok(keys.has(`client.workers[].${k}`), `client.workers[].${k} is not in test/e2e/report-keys.ts`);
  const w: WorkerReport = workerReport(profile(EVERY));
  for (const k of Object.keys(NOT_CARRIED))
    if (k !== "intakeDropped" && k !== "stampSource") assert.equal(k in w, false, `${k} copied as it is`);
});

test("the report writes a worker entry's keys in WORKER_KEYS' order", () => {
  const entry = reported(profile(EVERY));
  const order = Object.keys(WORKER_KEYS).filter((k) => k in entry);
  assert.deepEqual(Object.keys(entry), order);
  assert.ok(order.length > Object.keys(THREAD_CARRIED).length, "derived keys are in the entry too");
});

test("report-keys.ts lists client.workers[]'s keys in WORKER_KEYS' order, optional where declared so", () => {
  const listed = REPORT_KEYS.map((k) => /^\+?client\.workers\[\]\.(\w+)(\?)?$/.exec(k))
    .filter((m) => m !== null)
    .map((m) => `${m[1]}${m[2] ?? ""}`);
  const declared = Object.entries(WORKER_KEYS).map(([k, d]) => `${k}${d.optional ? "?" : ""}`);
  assert.deepEqual(listed, declared);
});

test("docs/definitions.md names every client.workers[] key", () => {
  const doc = readFileSync(new URL("../../docs/definitions.md", import.meta.url), "utf8");
  const missing = Object.keys(WORKER_KEYS).filter(
    (k) => !doc.includes(`\`${k}\``) && !doc.includes(`client.workers[].${k}`),
  );
  assert.deepEqual(missing, [], `client.workers[] keys definitions.md does not name: ${missing.join(", ")}`);
});

test("an agent's profile check takes every carried key and refuses a wrong shape or an unknown key", () => {
  const good = profile(EVERY) as unknown as Record<string, unknown>;
  assert.equal(profileOk(good), true);
  const wrong: Record<keyof ThreadCarried, unknown> = {
    ...Object.fromEntries(Object.keys(THREAD_CARRIED).map((k) => [k, "not a number"])),
    thread: "neither",
    receivePath: "teleport",
    rtcpSend: 1,
    viewerSockets: "many",
    receivePathReason: 1,
    rtcpSendReason: null,
    viewerSocketsReason: [],
    socketDropsReason: 2,
    eventLoopDelayMs: { p50: 1, p99: 2 },
    receiveLagMs: { p50: 1, p99: 2, max: 3, mean: 2 },
    processingWaitMs: 5,
    unroutedDatagrams: -1,
    socketDrops: 1.5,
  } as Record<keyof ThreadCarried, unknown>;
  const taken = Object.entries(wrong)
    .filter(([k, v]) => profileOk({ ...good, [k]: v }))
    .map(([k]) => k);
  assert.deepEqual(taken, [], "keys whose wrong shape an agent's profile passed");
  assert.equal(profileOk({ ...good, futureKey: 1 }), false, "an unknown key");
  assert.equal(profileOk({ ...good, constructor: 1 }), false, "a key of Object's prototype");
  for (const [k, d] of Object.entries(THREAD_CARRIED)) {
    const { [k]: _, ...without } = good;
    assert.equal(profileOk(without), d.optional, `${k} absent: ${d.optional ? "refused" : "taken"}`);
  }
});
