// Join failure kinds and texts (docs/definitions.md#error-kinds).

import type { ViewerErrorKind } from "../../core/errors.ts";
import { goDuration } from "../../core/go-compat/fmt.ts";

export interface JoinState {
  failedBeforeJoin: boolean;
  runEnded: boolean;
  connected: boolean;
  gotRtp: boolean;
  joinTimeoutNs: number;
}

const REASONS = {
  ice: "the connection was not established",
  media: "connected, but no RTP arrived",
  keyframe: "media arrived but no complete keyframe",
} as const;

export function joinFailure(s: JoinState): { kind: ViewerErrorKind; message: string } {
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
