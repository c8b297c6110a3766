// A viewer pipeline over the three embedded VP8 layers' one fingerprint table and a send log of
// every layer's frames (docs/definitions.md#simulcast-publisher), for the per-layer tests.
import type { SimulcastClips } from "../../src/core/clip/simulcast.ts";
import { ClipTable, clipIdentity, type Hasher } from "../../src/core/delay/fingerprint.ts";
import { SendLog } from "../../src/core/delay/sendlog.ts";
import { ViewerPipeline } from "../../src/core/delay/viewer-pipeline.ts";

export const POST_NS = 1e15;

export function layeredPipeline(
  hasher: Hasher,
  sc: SimulcastClips,
  excludeFirstNs: number,
): { pipeline: ViewerPipeline; log: SendLog } {
  const table = new ClipTable(null, { ...clipIdentity(hasher, sc.combined), layers: 3 });
  const log = SendLog.create(3 * sc.layerFrames);
  const pipeline = new ViewerPipeline({
    codec: "vp8",
    stallNs: 500e6,
    excludeFirstNs,
    postNs: POST_NS,
    wallMinusMonoNs: 0,
    hasher,
    table,
    sendLog: log,
    absCaptureNegotiated: false,
  });
  return { pipeline, log };
}
