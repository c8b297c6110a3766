// UDP helpers of the arena reader's and shared socket's tests: real sockets on 127.0.0.1.
import { createSocket, type Socket } from "node:dgram";
import type { ReceiveStage } from "../../src/workers/receive/stages.ts";

/** A UDP socket bound to a free port on 127.0.0.1. */
export async function bound(): Promise<Socket> {
  const s = createSocket("udp4");
  await new Promise<void>((r) => s.bind(0, "127.0.0.1", () => r()));
  return s;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every datagram `s` receives from now, with the port it came from. */
export function collect(s: Socket): { data: Buffer; port: number }[] {
  const got: { data: Buffer; port: number }[] = [];
  s.on("message", (data, rinfo) => got.push({ data, port: rinfo.port }));
  return got;
}

/** A chain stage (src/workers/receive/stages.ts) around a callback of (datagram, arrival instant, length). */
export function stage(fn: (data: Buffer, arrivalNs: number, length: number) => unknown): ReceiveStage {
  return {
    receive(data, length, arrivalNs) {
      fn(data, arrivalNs, length);
    },
    close() {},
  };
}
