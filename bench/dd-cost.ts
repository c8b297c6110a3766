// What reading the dependency descriptor costs per packet (docs/definitions.md#decodable-frames):
// one stream whose every packet carries a descriptor (L1T2, 3 packets a frame, 1 000-byte payloads,
// a keyframe every 30 frames) through our SRTP stage into a viewer pipeline with its render model,
// with the extension not negotiated (ddId 0: nothing is looked for, the packet's extension block is
// skipped as any other) and negotiated (each packet's descriptor read and kept, the frames through the
// generic finder). Rounds alternate, a fresh stage and pipeline each; the median CPU per packet of
// each and their difference are printed. Only the same run's rows compare.
//   node bench/dd-cost.ts [rounds]
import { RtpHeader } from "werift";
import { ddSender, ddStage, deltaDescriptor, keyframeDescriptor } from "./dd-writer.ts";
import { median } from "./median.ts";
import { plainPipeline } from "./plain-pipeline.ts";

const ROUNDS = Math.max(1, Number(process.argv[2] ?? 15));
const FRAMES = 3000;
const PER_FRAME = 3;
const DD_ID = 5;

const tx = ddSender();
const stream: Buffer[] = [];
for (let i = 0; i < FRAMES; i++) {
  const key = i % 30 === 0;
  for (let k = 0; k < PER_FRAME; k++) {
    const first = k === 0;
    const last = k === PER_FRAME - 1;
    const template = key ? 0 : i % 2 === 0 ? 1 : 2;
    const dd = key && first ? keyframeDescriptor(i, last) : deltaDescriptor(i, template, first, last);
    const h = new RtpHeader({
      sequenceNumber: i * PER_FRAME + k,
      timestamp: 3000 * i,
      payloadType: 96,
      ssrc: 7,
    });
    h.marker = last;
    h.extension = true;
    h.extensions = [{ id: DD_ID, payload: Buffer.from(dd) }];
    const payload = Buffer.alloc(1000, 7);
    payload[0] = first ? 0x10 : 0;
    payload[1] = key ? 0 : 1;
    stream.push(tx.encrypt(payload, h));
  }
}

/** CPU µs per packet of one pass over the stream. */
function pass(ddId: number): number {
  const pipeline = plainPipeline("vp8");
  const rx = ddStage(pipeline, ddId, false, (seq, b, off, len) =>
    pipeline.render.model?.descriptor(seq, b, off, len),
  );
  const t0 = process.cpuUsage();
  stream.forEach((p, i) => {
    rx.receive(Buffer.from(p), p.length, (i * 1e9) / 90);
  });
  const t = process.cpuUsage(t0);
  const finder = pipeline.finish((stream.length * 1e9) / 90).render.finder;
  rx.close();
  if (finder !== (ddId === 0 ? "seq-num" : "generic")) throw new Error(`finder ${finder} with ddId ${ddId}`);
  return (t.user + t.system) / stream.length;
}

const off: number[] = [];
const on: number[] = [];
pass(0);
pass(DD_ID);
for (let r = 0; r < ROUNDS; r++) {
  off.push(pass(0));
  on.push(pass(DD_ID));
}
const a = median(off);
const b = median(on);
console.log(`${stream.length} packets a pass, ${ROUNDS} rounds each, medians of CPU µs per packet:`);
console.log(`| descriptor | µs/packet |\n|---|---:|`);
console.log(`| not negotiated (not read) | ${a.toFixed(2)} |`);
console.log(`| negotiated (read, generic finder) | ${b.toFixed(2)} |`);
console.log(`reading it: ${(b - a).toFixed(2)} µs per packet (${(((b - a) / a) * 100).toFixed(1)} %)`);
