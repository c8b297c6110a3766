// Join failure kinds and texts (docs/definitions.md#error-kinds).

import type { ViewerErrorKind } from "../../core/errors.ts";
import { goDuration } from "../../core/go-compat/fmt.ts";

/** What of the server's handshake reached the viewer before it joined (handshake-watch.ts). */
export interface HandshakeSeen {
  /** ICE reached connected or completed */
  iceConnected: boolean;
  /** STUN binding success responses that arrived from the server */
  stunResponses: number;
  /** DTLS datagrams that arrived from the server */
  dtlsDatagrams: number;
  /** our DTLS handshake finished (what failed after it, such as the server's fingerprint, is not ours) */
  dtlsDone: boolean;
}

export interface JoinState {
  failedBeforeJoin: boolean;
  runEnded: boolean;
  connected: boolean;
  gotRtp: boolean;
  joinTimeoutNs: number;
  handshake?: HandshakeSeen | undefined;
}

/**
 * The viewer's own handshake gave up (docs/definitions.md#error-kinds, `client_handshake`): the
 * server's datagrams of the step that did not finish arrived — STUN responses while ICE did not
 * connect, DTLS records once it had — so our side, not the server, did not finish. Null where the
 * server sent nothing of that step.
 */
export function clientHandshake(h: HandshakeSeen | undefined): string | null {
  if (h === undefined || h.dtlsDone) return null;
  if (!h.iceConnected)
    return h.stunResponses > 0
      ? `the viewer's own ICE did not finish though ${count(h.stunResponses, "STUN response")} from the server arrived`
      : null;
  return h.dtlsDatagrams > 0
    ? `the viewer's own DTLS handshake did not finish though ${count(h.dtlsDatagrams, "DTLS datagram")} from the server arrived`
    : null;
}

/** "1 DTLS datagram", "6 DTLS datagrams" */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

const REASONS = {
  ice: "the connection was not established",
  media: "connected, but no RTP arrived",
  keyframe: "media arrived but no complete keyframe",
} as const;

export function joinFailure(s: JoinState): { kind: ViewerErrorKind; message: string } {
  const own = !s.connected && !s.runEnded ? clientHandshake(s.handshake) : null;
  if (own !== null) {
    const when = s.failedBeforeJoin
      ? "the connection failed"
      : `not connected within the ${goDuration(s.joinTimeoutNs)} join timeout`;
    return { kind: "client_handshake", message: `${when}: ${own} (the client's failure, not the server's)` };
  }
  if (s.failedBeforeJoin) {
    return { kind: "ice_failed", message: "the connection failed before the first keyframe (ICE or DTLS)" };
  }
  const which = !s.connected ? "ice" : !s.gotRtp ? "media" : "keyframe";
  if (s.runEnded)
    return { kind: "run_ended", message: `the run ended before the viewer joined (${REASONS[which]})` };
  const t = goDuration(s.joinTimeoutNs);
  switch (which) {
    case "ice":
      return { kind: "ice_timeout", message: `${REASONS.ice} within the ${t} join timeout` };
    case "media":
      return { kind: "no_media", message: `${REASONS.media} within the ${t} join timeout` };
    default:
      return { kind: "no_keyframe", message: `${REASONS.keyframe} within the ${t} join timeout` };
  }
}
