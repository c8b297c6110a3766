// The seam to libwebrtc for Node (@roamhq/wrtc 0.10.0, libwebrtc M106; an optional dependency whose
// prebuilt binary ships inside its registry package): the only file of src/ that loads it
// (test/unit/imports.test.ts), and the interface the reference viewers use
// (docs/definitions.md#reference-viewers). A package that is missing or will not load is a reason,
// never a throw: the run goes on without its reference viewers and the report says why.
import { createRequire } from "node:module";

export const WRTC_PACKAGE = "@roamhq/wrtc";

/** What of the package a reference viewer uses. */
export interface Wrtc {
  RTCPeerConnection: new (cfg: object) => WrtcPeer;
  nonstandard: { RTCVideoSink: new (track: unknown) => { onframe: (() => void) | null; stop(): void } };
}

export interface WrtcPeer {
  addTransceiver(kind: string, init: object): { receiver: { track: unknown } };
  createOffer(): Promise<{ sdp: string; type: string }>;
  createAnswer(): Promise<{ sdp: string; type: string }>;
  setLocalDescription(d?: object): Promise<void>;
  setRemoteDescription(d: object): Promise<void>;
  localDescription: { sdp: string } | null;
  iceGatheringState: string;
  onicegatheringstatechange: (() => void) | null;
  ontrack: ((e: { track: { kind: string } }) => void) | null;
  getStats(): Promise<Map<string, Record<string, unknown>>>;
  close(): void;
}

/** How a module is found and loaded (node's require; tests pass one that fails). */
export interface ModuleLoader {
  resolve(id: string): string;
  load(id: string): unknown;
}

function nodeLoader(): ModuleLoader {
  const require = createRequire(import.meta.url);
  return { resolve: (id) => require.resolve(id), load: (id) => require(id) as unknown };
}

function message(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split("\n")[0] ?? "";
}

/**
 * Why no reference viewer can run here, or null when the package is installed. Resolves only:
 * the main process never loads libwebrtc (it crashes in its clean-up at exit), each reference
 * viewer's own process does.
 */
export function wrtcMissing(loader: ModuleLoader = nodeLoader()): string | null {
  try {
    loader.resolve(WRTC_PACKAGE);
  } catch {
    return `${WRTC_PACKAGE} is not installed (an optional dependency of whipbench; npm installs it where its prebuilt libwebrtc exists, ${process.platform}-${process.arch} here)`;
  }
  return null;
}

/** The package loaded, or why it cannot be (not installed, or its binary would not load). */
export function loadWrtc(loader: ModuleLoader = nodeLoader()): { wrtc: Wrtc } | { reason: string } {
  const missing = wrtcMissing(loader);
  if (missing !== null) return { reason: missing };
  try {
    return { wrtc: loader.load(WRTC_PACKAGE) as Wrtc };
  } catch (err) {
    return { reason: `${WRTC_PACKAGE} did not load: ${message(err)}` };
  }
}
