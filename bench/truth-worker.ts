// bench:truth's viewer thread: the standard worker entry, with the intake's tap writing every
// stamped RTP datagram (the relay leg's port, sequence number, stamp, lag bound) into the
// SharedArrayBuffer the benchmark handed over (truth-records.ts), and — for the baseline —
// inline processing.
import { workerData } from "node:worker_threads";
import { viewerThread } from "../src/workers/thread.ts";
import shardWorker from "../src/workers/worker-entry.ts";
import { stampWriter } from "./truth-records.ts";

const { tap, inline } = workerData as { tap: SharedArrayBuffer; inline: boolean };
const { intake } = viewerThread();
intake.setInline(inline);
intake.setTap(stampWriter(tap));

export default shardWorker;
