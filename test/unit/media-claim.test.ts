// The claim that starts our SRTP (src/workers/receive/werift-claim.ts, through the seam's
// src/net/werift/srtp-start.ts): the startSrtp hook, wrapped on one transport, run against
// werift's real RTCDtlsTransport.prototype.startSrtp on a stand-in transport — exactly one handler
// captured, the keys taken from srtp.config, our handler subscribed in its place — and each way
// werift's internals could move, failing loudly.

import assert from "node:assert/strict";
import { test } from "node:test";
import { RTCDtlsTransport, type RTCRtpTransceiver } from "werift";
import { monoNs } from "../../src/core/clock/clock.ts";
import { WeriftInternalsError } from "../../src/core/errors.ts";
import type { RemoteSrtpKeys } from "../../src/net/werift/srtp-start.ts";
import type { ReceiveStage } from "../../src/workers/receive/stages.ts";
import { claimMedia, type MediaClaim } from "../../src/workers/receive/werift-claim.ts";
import { viewerThread } from "../../src/workers/thread.ts";
import { stage } from "./udp-helpers.ts";

/** A claim where we unprotect (the lean path's, not the arena's) of this thread. */
function lean(start: (keys: RemoteSrtpKeys) => ReceiveStage, fail: MediaClaim["fail"]): MediaClaim {
  return {
    thread: viewerThread(),
    srtp: "ours",
    arena: false,
    head: (s) => {
      if (s.srtp !== "ours") return assert.fail("our claim started without the keys");
      return start(s.keys);
    },
    fail,
  };
}

/** A claim that must never start: what fails it goes to `errors`. */
function refusing(errors: Error[]): MediaClaim {
  return lean(
    () => assert.fail("must not start"),
    (e) => errors.push(e),
  );
}

const proto = RTCDtlsTransport.prototype as unknown as { startSrtp(this: object): void };

type Handler = (data: Buffer) => void;

/**
 * A stand-in for an RTCDtlsTransport whose DTLS just finished, as werift's startSrtp sees it:
 * the ICE connection's data event (own subscribe/execute, like werift's Event) and one UDP
 * transport whose onData feeds it, as werift's StunProtocol does for non-STUN datagrams.
 */
function standIn(config: unknown) {
  const handlers: Handler[] = [];
  const onData = {
    subscribe: (fn: Handler) => {
      handlers.push(fn);
      return { unSubscribe: () => {}, disposer: () => {} };
    },
    execute: (d: Buffer) => {
      for (const h of handlers) h(d);
    },
  };
  const transport = { onData: (d: Buffer, _addr: unknown) => onData.execute(d) };
  const dtls = {
    srtpStarted: false,
    config: {},
    srtp: undefined as unknown,
    iceTransport: { connection: { onData, protocols: [{ transport }] } },
    updateSrtpSession(this: { srtp: unknown }) {
      this.srtp = { config };
    },
    sendRtcp: async () => 0,
    startSrtp: proto.startSrtp,
  };
  return { dtls, handlers, onData, transport, tr: { dtlsTransport: dtls } as unknown as RTCRtpTransceiver };
}

const KEY = Buffer.alloc(16, 1);
const SALT = Buffer.alloc(12, 2);

/** What werift does once DTLS is up: the transport's own startSrtp, as a method. */
function startSrtp(dtls: { startSrtp(): void }): void {
  dtls.startSrtp();
}

test("startSrtp of a claimed transport hands the keys over and routes its datagrams to us, stamped first", async () => {
  const s = standIn({ profile: 7, keys: { remoteMasterKey: KEY, remoteMasterSalt: SALT } });
  let keys: RemoteSrtpKeys | null = null;
  const got: Buffer[] = [];
  const stamps: number[] = [];
  const dtlsGot: Buffer[] = [];
  s.onData.subscribe((d) => dtlsGot.push(d)); // werift's DTLS adapter subscribes before SRTP starts
  claimMedia(
    s.tr,
    lean(
      (k) => {
        keys = k;
        return stage((d, arrivalNs) => {
          got.push(d);
          stamps.push(arrivalNs);
        });
      },
      (err) => {
        throw err;
      },
    ),
  );
  startSrtp(s.dtls);
  assert.ok(keys);
  assert.equal((keys as RemoteSrtpKeys).profile, 7);
  assert.equal((keys as RemoteSrtpKeys).remoteMasterKey, KEY);
  assert.equal(s.handlers.length, 1, "werift's media handler captured, not subscribed");
  const srtp = Buffer.from([0x80, 96, 0, 1]);
  const srtcp = Buffer.from([0x81, 200, 0, 6]);
  const dtlsRecord = Buffer.from([22, 254, 253]);
  const before = monoNs();
  s.transport.onData(srtp, ["127.0.0.1", 9]); // beneath STUN parsing
  s.onData.execute(srtcp); // through the ICE connection's event
  const after = monoNs();
  s.transport.onData(dtlsRecord, ["127.0.0.1", 9]);
  assert.deepEqual(got, [], "media is queued, not processed inside the datagram's callback");
  // a slice ends after 100 µs: on a busy machine the second datagram may take another loop turn
  for (let i = 0; i < 100 && got.length < 2; i++) await new Promise((r) => setImmediate(r));
  assert.deepEqual(got, [srtp, srtcp], "media to the lean handler");
  assert.equal(stamps.length, 2);
  for (const t of stamps) assert.ok(t >= before && t <= after, "stamped when it arrived, not when processed");
  assert.deepEqual(dtlsGot, [dtlsRecord], "DTLS still to werift, media never");
  assert.equal(typeof s.onData.subscribe, "function", "subscribe restored");
  // an unclaimed transport stays on werift's path (its own handler subscribed)
  const plain = standIn({ profile: 7, keys: { remoteMasterKey: KEY, remoteMasterSalt: SALT } });
  startSrtp(plain.dtls);
  assert.equal(plain.handlers.length, 1);
  assert.throws(
    () =>
      claimMedia(
        plain.tr,
        lean(
          () => stage(() => {}),
          () => {},
        ),
      ),
    /already started/,
  );
});

test("moved internals fail the claim with a message naming what moved", () => {
  const cases: [unknown, RegExp][] = [
    [{ profile: 7, keys: {} }, /srtp\.config has no usable/],
    [{ profile: 2, keys: { remoteMasterKey: KEY, remoteMasterSalt: SALT } }, /srtp\.config has no usable/],
    [{ profile: 1, keys: { remoteMasterKey: KEY, remoteMasterSalt: SALT } }, /key\/salt are 16\/12 bytes/],
  ];
  for (const [config, re] of cases) {
    const s = standIn(config);
    const errors: Error[] = [];
    claimMedia(s.tr, refusing(errors));
    startSrtp(s.dtls);
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof WeriftInternalsError);
    assert.match(errors[0]!.message, re);
  }
  // the ICE connection's data event moved: the claim fails first, then werift's own code runs
  const s = standIn({ profile: 7, keys: { remoteMasterKey: KEY, remoteMasterSalt: SALT } });
  const errors: Error[] = [];
  claimMedia(s.tr, refusing(errors));
  (s.dtls as unknown as { iceTransport: unknown }).iceTransport = { connection: {} };
  assert.throws(() => startSrtp(s.dtls), TypeError);
  assert.match(errors[0]?.message ?? "", /onData\.subscribe is missing/);
  // startSrtp that subscribes twice (or never) is not the one this adapter knows
  const twice = standIn({ profile: 7, keys: { remoteMasterKey: KEY, remoteMasterSalt: SALT } });
  const errs2: Error[] = [];
  claimMedia(twice.tr, refusing(errs2));
  const update = twice.dtls.updateSrtpSession;
  twice.dtls.updateSrtpSession = function (this: { srtp: unknown }) {
    update.call(this);
    twice.onData.subscribe(() => {});
  };
  startSrtp(twice.dtls);
  assert.match(errs2[0]?.message ?? "", /subscribed 2 data handlers, expected exactly 1/);
});

test("a claim waits on its own transport only, and a withdrawn one leaves werift's startSrtp as it was", () => {
  const config = { profile: 7, keys: { remoteMasterKey: KEY, remoteMasterSalt: SALT } };
  const a = standIn(config);
  const b = standIn(config);
  const startedOn: string[] = [];
  const claim = (name: string) =>
    lean(
      () => {
        startedOn.push(name);
        return stage(() => {});
      },
      (err) => {
        throw err;
      },
    );
  const withdraw = claimMedia(a.tr, claim("a"));
  claimMedia(b.tr, claim("b"));
  assert.notEqual(a.dtls.startSrtp, proto.startSrtp, "the claim waits on this transport");
  withdraw();
  assert.equal(a.dtls.startSrtp, proto.startSrtp, "withdrawn: werift's own again");
  startSrtp(a.dtls);
  assert.equal(a.handlers.length, 1, "werift's media handler subscribed, as on an unclaimed transport");
  startSrtp(b.dtls);
  assert.deepEqual(startedOn, ["b"], "the other transport's claim is untouched");
  assert.equal(b.handlers.length, 0);
  assert.equal(b.dtls.startSrtp, proto.startSrtp, "once started, werift's own is back");
});
