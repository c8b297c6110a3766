// What a WHIP answer must hold before the publisher takes it (docs/definitions.md#publisher-figures:
// its error kinds): no counter-offer, a video section, an audio one when the run sends audio, and
// simulcast taken when the publisher sends layers (docs/definitions.md#simulcast-publisher).
import { PublisherError } from "../../core/errors.ts";
import { RID_URI } from "../../net/rtc.ts";

/** Throws the PublisherError of the first thing the answer lacks. */
export function checkAnswer(answer: { status: number; sdp: string }, audio: boolean, layers: boolean): void {
  if (answer.status === 406) throw new PublisherError("http_status", "the WHIP server sent a counter-offer");
  // werift accepts an answer without a video m-line (an audio one carrying the video mid):
  // it stops the transceiver and reports "connected" with nothing to send on
  if (!/^m=video [1-9]/m.test(answer.sdp))
    throw new PublisherError("bad_answer", "the WHIP answer has no video");
  if (audio && !/^m=audio [1-9]/m.test(answer.sdp))
    throw new PublisherError("bad_answer", "the WHIP answer has no audio (the scenario asks for audio)");
  const noLayers = layers ? simulcastAnswerProblem(answer.sdp) : null;
  if (noLayers !== null) throw new PublisherError("bad_answer", noLayers);
}

/**
 * Why a WHIP answer cannot take the layers: no `a=simulcast:recv`, or no rtp-stream-id extension
 * (a server that does not do simulcast would take one layer only); null when it can.
 */
export function simulcastAnswerProblem(sdp: string): string | null {
  const lines = sdp.split(/\r?\n/);
  if (!lines.some((l) => l.startsWith("a=simulcast:recv ")))
    return "the WHIP answer does not take simulcast (no a=simulcast:recv)";
  if (!lines.some((l) => l.startsWith("a=extmap:") && l.trimEnd().endsWith(` ${RID_URI}`)))
    return "the WHIP answer does not take simulcast (no rtp-stream-id extension)";
  return null;
}
