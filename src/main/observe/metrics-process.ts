// The client's process-wide series (docs/definitions.md#prometheus-metrics families 12–14, then
// ours), read at each scrape. Node has no goroutines: `whipbench_client_goroutines` keeps the
// reference's name and carries the nearest Node figure, the main thread's active libuv resources
// (sockets, timers, handles and requests in flight, from process.getActiveResourcesInfo()).
import { Counter, Gauge, type Registry } from "prom-client";
import { udpErrorsDelta, udpReceiveErrors } from "./udp-drops.ts";

export function registerProcessMetrics(registry: Registry): void {
  const registers = [registry];
  new Counter({
    name: "whipbench_client_cpu_seconds_total",
    help: "Process CPU seconds (user+system) since the process started, every thread included.",
    registers,
    collect(this: Counter) {
      const u = process.cpuUsage();
      this.reset();
      this.inc((u.user + u.system) / 1e6);
    },
  });
  new Gauge({
    name: "whipbench_client_goroutines",
    help: "Node substitute for goroutines: active libuv resources (sockets, timers, handles, requests) of the main thread.",
    registers,
    collect(this: Gauge) {
      this.set(process.getActiveResourcesInfo().length);
    },
  });
  new Gauge({
    name: "whipbench_client_heap_bytes",
    help: "V8 heap in use now (heapUsed of the main thread's isolate), bytes.",
    registers,
    collect(this: Gauge) {
      this.set(process.memoryUsage().heapUsed);
    },
  });
  new Gauge({
    name: "whipbench_client_rss_bytes",
    help: "Resident set size of the whole process now, bytes.",
    registers,
    collect(this: Gauge) {
      this.set(process.memoryUsage.rss());
    },
  });
  // host-wide kernel counters, counted from the start of the run; no family where unreadable
  const base = udpReceiveErrors();
  if (base !== null) {
    new Counter({
      name: "whipbench_host_udp_receive_errors_total",
      help: "Kernel UDP receive errors on this host since the run started, by /proc/net/snmp counter (a receive-buffer overflow counts in both; every socket of the host, not only ours).",
      labelNames: ["kind"],
      registers,
      collect(this: Counter<"kind">) {
        const d = udpErrorsDelta(base, udpReceiveErrors());
        this.reset();
        if (d === null) return;
        this.inc({ kind: "RcvbufErrors" }, Math.max(0, d.rcvbufErrors));
        this.inc({ kind: "InErrors" }, Math.max(0, d.inErrors));
      },
    });
  }
}
