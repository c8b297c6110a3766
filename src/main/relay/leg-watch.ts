// A WHEP leg's connection as the built-in relay follows it (docs/definitions.md#built-in-relay):
// forwarding starts when it connects and stops when it fails or closes; a leg that fails, or that
// has not connected LEG_CONNECT_MS after its answer, is ended from the server's side as a DELETE
// would end it, so that a viewer that never got its answer or never sent its DELETE does not keep
// a session and its socket for the relay's whole life.
import { onTransportFeedback } from "../../net/rtcp-feedback.ts";
import type { RTCPeerConnection } from "../../net/werift/api.ts";
import type { Stream } from "./forward.ts";
import { estimateFeedback } from "./layer-estimate.ts";
import type { Leg } from "./leg.ts";

/** How long an answered leg may take to connect (ICE and DTLS) before the relay ends it. */
export const LEG_CONNECT_MS = 30_000;

export interface LegWatch {
  /** the leg connected: forwarding may start */
  connected(): void;
  /** end the session from the server's side */
  end(): void;
  /** the leg failed or closed: nothing more is sent to it */
  gone?(): void;
  /** a timer the relay clears when it closes */
  later(ms: number, fn: () => void): void;
  /** overrides LEG_CONNECT_MS (tests) */
  connectMs?: number | undefined;
}

export function watchLeg(pc: RTCPeerConnection, leg: Leg, stream: Stream, w: LegWatch): void {
  let counting = false;
  w.later(w.connectMs ?? LEG_CONNECT_MS, () => {
    if (!leg.sending) w.end();
  });
  pc.connectionStateChange.subscribe((state) => {
    if (state === "connected") {
      // the transport the leg's RTCP arrives on, once connected (as its keyframe requests)
      if (!counting)
        onTransportFeedback(leg.tr, (received, lost) => {
          leg.feedback++;
          if (leg.estimate !== undefined) estimateFeedback(leg, stream, received, lost);
        });
      counting = true;
      leg.sending = true;
      w.connected();
    }
    if (state === "failed" || state === "closed") {
      leg.sending = false;
      stream.legs.delete(leg);
      w.gone?.();
    }
    if (state === "failed") w.end();
  });
}
