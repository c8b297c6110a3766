// The kernel's UDP receive drops (Linux /proc/net/snmp: RcvbufErrors and InErrors), read at the
// start and the end of a run. They count every socket on the host, not only ours, so a non-zero
// delta says "the host dropped", which is evidence enough that the client may have.
import { readFileSync } from "node:fs";

export interface UdpErrors {
  rcvbufErrors: number;
  inErrors: number;
}

/**
 * RcvbufErrors and InErrors now (a buffer overflow counts in both), or null where /proc/net/snmp
 * cannot be read.
 */
export function udpReceiveErrors(): UdpErrors | null {
  try {
    const lines = readFileSync("/proc/net/snmp", "utf8")
      .split("\n")
      .filter((l) => l.startsWith("Udp:"));
    const names = lines[0]?.split(/\s+/) ?? [];
    const values = lines[1]?.split(/\s+/) ?? [];
    const at = (key: string) => Number(values[names.indexOf(key)] ?? Number.NaN);
    const e = { rcvbufErrors: at("RcvbufErrors"), inErrors: at("InErrors") };
    return Number.isFinite(e.rcvbufErrors) && Number.isFinite(e.inErrors) ? e : null;
  } catch {
    return null;
  }
}

export function udpErrorsDelta(start: UdpErrors | null, end: UdpErrors | null): UdpErrors | null {
  if (!start || !end) return null;
  return { rcvbufErrors: end.rcvbufErrors - start.rcvbufErrors, inErrors: end.inErrors - start.inErrors };
}
