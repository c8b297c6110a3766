// UDP helpers of the arena reader's and shared socket's tests: real sockets on 127.0.0.1.
import { createSocket, type Socket } from "node:dgram";

/** A UDP socket bound to a free port on 127.0.0.1. */
export async function bound(): Promise<Socket> {
  const s = createSocket("udp4");
  await new Promise<void>((r) => s.bind(0, "127.0.0.1", () => r()));
  return s;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
