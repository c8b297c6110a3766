// Who receives what the arena reader reads (src/workers/receive/arena-reader.ts): a viewer's media
// handler, werift's own handler of the rest, and a shared socket's demultiplexer
// (socket-sharing.ts), which tells viewers apart by the datagram's source; and the reader's route
// of one registered socket.
import type { UdpReceive } from "../../net/werift/transports.ts";
import type { Intake } from "./intake.ts";
import type { ChainHead } from "./stages.ts";
/** werift's own handler of a UDP transport's datagrams. */
export type OtherHandler = UdpReceive;

/** Who receives a shared socket's datagram: its chain's head (null: `other` takes all), the rest. */
export interface DemuxTarget {
  media: ChainHead | null;
  other(data: Buffer, from: [string, number]): void;
}

/** A socket several viewers share, told apart by the datagram's source (socket-sharing.ts). */
export interface Demux {
  find(ip4: number, port: number): DemuxTarget | null;
  /**
   * Whose a datagram (a copy) from a source no viewer has yet is: its source is theirs from now
   * on. Null: nobody's (dropped, and counted).
   */
  claim(data: Buffer, from: [string, number]): DemuxTarget | null;
}

/** To werift, as libuv would; a media datagram keeps the kernel's stamp it was read with (`atNs`). */
export function deliver(
  intake: Intake,
  to: DemuxTarget,
  data: Buffer,
  from: [string, number],
  atNs: number,
): void {
  intake.carry(atNs);
  try {
    to.other(data, from);
  } finally {
    intake.carry(-1);
  }
}

/** As libuv would: not after the socket left the reader (its viewer closed it meanwhile). */
export function deliverOwn(route: Route, data: Buffer, from: [string, number]): void {
  if (!route.removed) route.other(data, from);
}

export interface Route {
  fd: number;
  /** the head of its viewer's chain (a shared socket's route has none: its demux says whose) */
  media: ChainHead | null;
  /** werift's handler of the rest (a shared socket's route has none: its demux says whose) */
  other: OtherHandler;
  /** a shared socket's: each datagram goes where its source says */
  demux: Demux | null;
  removed: boolean;
  /** the socket's drop count as the kernel last gave it (cumulative; 0 until one came) */
  drops: number;
}

export const nobody: OtherHandler = () => {};
