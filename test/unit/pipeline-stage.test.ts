// The receive chain's last stage (src/workers/receive/stages.ts PipelineStage): packets reach the
// viewer's pipeline once it exists, counted, and none that arrived after the viewer's end does,
// while one that arrived before it and is processed later still does.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ViewerPipeline } from "../../src/core/delay/viewer-pipeline.ts";
import { PipelineStage } from "../../src/workers/receive/stages.ts";

test("the pipeline's feed counts what it hands on and stops at the viewer's end", () => {
  const fed: number[] = [];
  const pipeline = {
    onPacket: (seq: number) => {
      fed.push(seq);
    },
  } as unknown as ViewerPipeline;
  const counters = { packets: 0, bytes: 0 };
  let after = 0;
  const feed = new PipelineStage({ counters, afterPacket: () => after++ });
  const payload = new Uint8Array(10);
  feed.packet(1, 0, false, payload, 1_000, -1);
  assert.deepEqual(fed, [], "nothing before the pipeline exists");
  feed.feed(pipeline);
  feed.packet(2, 0, false, payload, 2_000, -1);
  feed.stop(3_000);
  feed.packet(3, 0, false, payload, 3_000, -1); // arrived at the end, processed after it
  feed.packet(4, 0, false, payload, 3_001, -1); // arrived after the end
  assert.deepEqual(fed, [2, 3]);
  assert.deepEqual(counters, { packets: 2, bytes: 20 });
  assert.equal(after, 2);
});
