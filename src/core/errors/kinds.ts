// The viewer and publisher error kinds of docs/definitions.md#error-kinds as closed unions (part of
// the error catalogue; src/core/errors.ts re-exports them).

/** The viewer kinds of docs/definitions.md#error-kinds, in its order (`http_<status>` as one). */
export const VIEWER_ERROR_KINDS = [
  "not_started",
  "http_<status>",
  "transport",
  "bad_url",
  "bad_answer",
  "webrtc",
  "ice_failed",
  "ice_timeout",
  "no_media",
  "no_keyframe",
  "run_ended",
  "dropped",
  "client_handshake",
  "worker_died",
  "agent_lost",
  "agent_missing",
] as const;

/** Why a viewer failed (docs/definitions.md#error-kinds); `http_404` for a WHEP POST answered 404. */
export type ViewerErrorKind =
  | Exclude<(typeof VIEWER_ERROR_KINDS)[number], "http_<status>">
  | `http_${number}`;

/** The publisher kinds of docs/definitions.md#publisher-figures, in its order. */
export const PUBLISHER_ERROR_KINDS = [
  "webrtc",
  "config",
  "bad_answer",
  "ice_failed",
  "connect_timeout",
  "disconnected",
  "http_status",
  "transport",
  "bad_url",
] as const;

/** Why the WHIP publisher failed (no status code: `http_status`); counted as `publisher_<kind>`. */
export type PublisherErrorKind = (typeof PUBLISHER_ERROR_KINDS)[number];

const VIEWER_KINDS: ReadonlySet<string> = new Set(VIEWER_ERROR_KINDS);

/** A value read off the wire (an agent's record) that is one of the viewer kinds. */
export function isViewerErrorKind(x: unknown): x is ViewerErrorKind {
  if (typeof x !== "string") return false;
  if (/^http_\d{3}$/.test(x)) return true;
  return x !== "http_<status>" && VIEWER_KINDS.has(x);
}
