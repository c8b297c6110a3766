// The test-only answer faults of the built-in relay (RelayTestHooks.answerFault): a server whose
// answer has no video, is not SDP, or never starts DTLS.
import type { RTCPeerConnection } from "../../net/werift/api.ts";
import { neverStartDtls } from "../../net/werift/patches.ts";
import type { AnswerFault } from "./options.ts";

/** The answer `sdp` as the fault for endpoint `on` turns it (unchanged when none is set for it). */
export function faultyAnswer(
  sdp: string,
  pc: RTCPeerConnection,
  on: "whip" | "whep",
  fault: AnswerFault | undefined,
): string {
  if (fault?.on !== on) return sdp;
  if (fault.kind === "no-video") return sdp.replace(/^m=video /m, "m=audio ");
  if (fault.kind === "not-sdp") return "this is not SDP";
  // silent-dtls: a passive server, as most are: the peer is the DTLS client and retransmits its hello
  neverStartDtls(pc);
  return sdp.replaceAll("a=setup:active", "a=setup:passive");
}
