// A strict little reader of the Prometheus text format 0.0.4 for the tests: families in order,
// each with its HELP, TYPE and sample lines (name, labels, value); and docs/definitions.md#prometheus-metrics's table of families.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  help: string;
  type: string;
  samples: Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function parseValue(v: string): number {
  if (v === "+Inf") return Number.POSITIVE_INFINITY;
  if (v === "-Inf") return Number.NEGATIVE_INFINITY;
  const n = Number(v);
  if (Number.isNaN(n)) throw new Error(`bad sample value ${v}`);
  return n;
}

/** Throws on any line out of place: a sample before its TYPE, TYPE before HELP, a bad line. */
export function parseExposition(text: string): Family[] {
  const out: Family[] = [];
  let pendingHelp: { name: string; help: string } | null = null;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    if (line.startsWith("# HELP ")) {
      const [name = "", ...rest] = line.slice(7).split(" ");
      pendingHelp = { name, help: rest.join(" ") };
      continue;
    }
    if (line.startsWith("# TYPE ")) {
      const [name = "", type = ""] = line.slice(7).split(" ");
      if (pendingHelp?.name !== name) throw new Error(`TYPE without HELP first: ${line}`);
      out.push({ name, help: pendingHelp.help, type, samples: [] });
      pendingHelp = null;
      continue;
    }
    if (line.startsWith("#")) throw new Error(`unexpected comment: ${line}`);
    const m = SAMPLE.exec(line);
    const fam = out[out.length - 1];
    if (!m || !fam) throw new Error(`bad sample line: ${line}`);
    const name = m[1] ?? "";
    const allowed =
      fam.type === "histogram" ? ["_bucket", "_sum", "_count"].map((s) => fam.name + s) : [fam.name];
    if (!allowed.includes(name)) throw new Error(`sample ${name} outside its family ${fam.name}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(LABEL)) labels[l[1] ?? ""] = l[2] ?? "";
    fam.samples.push({ name, labels, value: parseValue(m[3] ?? "") });
  }
  return out;
}

export function family(fams: readonly Family[], name: string): Family {
  const f = fams.find((x) => x.name === name);
  if (!f) throw new Error(`no family ${name}`);
  return f;
}

/** The one sample of `name` whose labels include `labels`. */
export function sampleValue(
  fams: readonly Family[],
  name: string,
  labels: Record<string, string> = {},
): number {
  for (const f of fams) {
    for (const s of f.samples) {
      if (s.name !== name) continue;
      if (Object.entries(labels).every(([k, v]) => s.labels[k] === v)) return s.value;
    }
  }
  throw new Error(`no sample ${name} ${JSON.stringify(labels)}`);
}

/** docs/definitions.md#prometheus-metrics's table, in order: name, type, label names besides `le`. */
export const SPEC_FAMILIES: [string, string, string[]][] = [
  ["whipbench_viewers_target", "gauge", []],
  ["whipbench_viewers_started_total", "counter", []],
  ["whipbench_viewers_joined_total", "counter", []],
  ["whipbench_viewers_failed_total", "counter", []],
  ["whipbench_viewers_active", "gauge", []],
  ["whipbench_rtp_packets_received_total", "counter", []],
  ["whipbench_rtp_bytes_received_total", "counter", []],
  ["whipbench_transport_feedback_sent_total", "counter", []],
  ["whipbench_rtx_packets_received_total", "counter", []],
  ["whipbench_publisher_rtp_packets_sent_total", "counter", []],
  ["whipbench_publisher_frames_sent_total", "counter", []],
  ["whipbench_packet_transit_seconds", "histogram", []],
  ["whipbench_one_way_delay_seconds", "histogram", ["source"]],
  ["whipbench_client_cpu_seconds_total", "counter", []],
  ["whipbench_client_goroutines", "gauge", []],
  ["whipbench_client_heap_bytes", "gauge", []],
];

/** docs/definitions.md#prometheus-metrics's per-cohort families (only with cohorts, after every other family), in order. */
export const COHORT_FAMILIES: [string, string, string[]][] = [
  ["whipbench_cohort_viewers_target", "gauge", ["cohort"]],
  ["whipbench_cohort_viewers_started_total", "counter", ["cohort"]],
  ["whipbench_cohort_viewers_joined_total", "counter", ["cohort"]],
  ["whipbench_cohort_viewers_failed_total", "counter", ["cohort"]],
  ["whipbench_cohort_viewers_active", "gauge", ["cohort"]],
  ["whipbench_cohort_one_way_delay_seconds", "histogram", ["cohort"]],
  ["whipbench_cohort_freezes_total", "counter", ["cohort"]],
  ["whipbench_cohort_frozen_seconds_total", "counter", ["cohort"]],
];

/** docs/definitions.md#reference-viewer-metrics: after every other family, with reference viewers only. */
export const REFERENCE_FAMILIES: [string, string, string[]][] = [
  ["whipbench_reference_viewers", "gauge", ["cohort"]],
  ["whipbench_reference_freezes_total", "counter", ["cohort"]],
  ["whipbench_reference_frozen_seconds_total", "counter", ["cohort"]],
  ["whipbench_reference_pauses_total", "counter", ["cohort"]],
  ["whipbench_reference_paused_seconds_total", "counter", ["cohort"]],
  ["whipbench_reference_frames_received_total", "counter", ["cohort"]],
  ["whipbench_reference_frames_decoded_total", "counter", ["cohort"]],
  ["whipbench_reference_frames_dropped_total", "counter", ["cohort"]],
  ["whipbench_reference_nacks_total", "counter", ["cohort"]],
  ["whipbench_reference_plis_total", "counter", ["cohort"]],
  ["whipbench_reference_jitter_buffer_delay_seconds_total", "counter", ["cohort"]],
  ["whipbench_reference_jitter_buffer_emitted_total", "counter", ["cohort"]],
];

/** docs/definitions.md#viewer-experience-metrics: what the viewers would have seen, whole run. */
export const FREEZE_FAMILIES: [string, string, string[]][] = [
  ["whipbench_freezes_total", "counter", []],
  ["whipbench_frozen_seconds_total", "counter", []],
];
