// A viewer's audio track (docs/definitions.md#audio-track): its pipeline, made on the first audio
// packet, and the A/V offset both tracks' delay samples go to; the record at the end.
import { AudioPipeline } from "../../core/delay/audio-pipeline.ts";
import { AvOffset } from "../../core/delay/av-offset.ts";
import type { AudioRecord } from "../../core/types.ts";
import type { AudioSink } from "../receive/chain.ts";
import type { ShardContext } from "./viewer-context.ts";

/** What the viewer's callbacks share of its audio track. */
export interface AudioState {
  postNs: number;
  audio: AudioPipeline | null;
  offset: AvOffset | null;
}

/** The viewer's A/V offset, made on first use (after its POST: no media comes before). */
export function offsetOf(state: AudioState): AvOffset {
  state.offset ??= new AvOffset(state.postNs);
  return state.offset;
}

function pipelineOf(ctx: ShardContext, state: AudioState): AudioPipeline {
  state.audio ??= new AudioPipeline({
    postNs: state.postNs,
    excludeFirstNs: ctx.excludeFirstNs,
    stallNs: ctx.stallNs,
    hasher: ctx.hasher,
    table: ctx.audioTable,
    sendLog: ctx.audioLog,
    offset: offsetOf(state),
  });
  return state.audio;
}

/** Where the receive path hands the viewer's audio packets. */
export function audioSink(ctx: ShardContext, state: AudioState): AudioSink {
  return (seq, ts, marker, payload, arrivalNs) => {
    pipelineOf(ctx, state).onPacket(seq, ts, marker, payload, arrivalNs);
  };
}

/** The audio record at the end; a viewer that received no audio packet reports an empty track. */
export function audioRecord(ctx: ShardContext, state: AudioState): AudioRecord {
  return pipelineOf(ctx, state).finish(state.offset?.offsetsNs() ?? []);
}
