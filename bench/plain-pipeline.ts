// A viewer pipeline with no delay source, no send log and a 500 ms stall (the render model runs
// for every VP8/H.264 viewer): what the unit tests of the model feed hand-built packets into.
import { ViewerPipeline, type ViewerPipelineOptions } from "../src/core/delay/viewer-pipeline.ts";

export function plainPipeline(codec: string, more: Partial<ViewerPipelineOptions> = {}): ViewerPipeline {
  return new ViewerPipeline({
    codec,
    stallNs: 500e6,
    excludeFirstNs: 0,
    postNs: 0,
    wallMinusMonoNs: 0,
    hasher: null,
    table: null,
    sendLog: null,
    absCaptureNegotiated: false,
    ...more,
  });
}
