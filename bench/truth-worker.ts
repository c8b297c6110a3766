// bench:truth's viewer thread: the standard worker entry, with the intake's tap writing every
// stamped RTP datagram (the relay leg's port, sequence number, stamp, lag bound) into the
// SharedArrayBuffer the benchmark handed over, and — for the baseline — inline processing.
import { workerData } from "node:worker_threads";
import { intake } from "../src/workers/intake.ts";
import shardWorker from "../src/workers/worker-entry.ts";

const { tap, inline } = workerData as { tap: SharedArrayBuffer; inline: boolean };
const count = new Int32Array(tap, 0, 2);
const rec = new Float64Array(tap, 8);
intake.setInline(inline);
intake.setTap((port, data, stampNs, lagNs) => {
  // RTP only (RTCP's second byte is 192..223)
  if (data.length < 12 || (data[1]! >= 192 && data[1]! <= 223)) return;
  const i = Atomics.add(count, 0, 1);
  if ((i + 1) * 4 > rec.length) return;
  rec[i * 4] = port;
  rec[i * 4 + 1] = data.readUInt16BE(2);
  rec[i * 4 + 2] = stampNs;
  rec[i * 4 + 3] = lagNs;
});

export default shardWorker;
