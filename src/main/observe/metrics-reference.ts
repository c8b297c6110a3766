// The reference viewers' families of /metrics (docs/definitions.md#reference-viewer-metrics):
// registered only when the scenario asks for reference viewers, after every other family, one
// counter per figure of core/reference/figures.ts (`whipbench_reference_<figure>`) and the gauge
// of reference viewers asked for, each with a `cohort` label (a cohort's name, or "unimpaired").
// A reference viewer's getStats counters are cumulative: each reading adds what grew since its
// previous one, so a family ends at the sum of the report's last readings.
import { Counter, Gauge, type Registry } from "prom-client";
import {
  REFERENCE_FIGURES,
  type ReferenceFigureKey,
  type ReferenceFigures,
} from "../../core/reference/figures.ts";

export interface ReferenceTarget {
  /** the cohort's name, or "unimpaired" */
  cohort: string;
  viewers: number;
}

export const REFERENCE_METRIC_PREFIX = "whipbench_reference_";

export class ReferenceMetrics {
  private readonly families = new Map<ReferenceFigureKey, Counter<"cohort">>();
  /** each reference viewer's last reading, by `<cohort>/<index>` */
  private readonly last = new Map<string, ReferenceFigures>();
  private readonly names: Set<string>;

  constructor(registry: Registry, targets: readonly ReferenceTarget[]) {
    const registers = [registry];
    const labelNames = ["cohort"] as const;
    this.names = new Set(targets.map((t) => t.cohort));
    const asked = new Gauge({
      name: `${REFERENCE_METRIC_PREFIX}viewers`,
      help: "libwebrtc reference viewers the scenario asks for beside a cohort's viewers (not load).",
      labelNames,
      registers,
    });
    for (const f of REFERENCE_FIGURES) {
      this.families.set(
        f.key,
        new Counter({
          name: `${REFERENCE_METRIC_PREFIX}${f.metric}`,
          help: `${f.help}, by libwebrtc's reference viewers (getStats ${f.stat}).`,
          labelNames,
          registers,
        }),
      );
    }
    for (const t of targets) {
      asked.set({ cohort: t.cohort }, t.viewers);
      for (const c of this.families.values()) c.inc({ cohort: t.cohort }, 0);
    }
  }

  /**
   * One reference viewer's cumulative figures: what grew since its last reading is added; a group
   * the scenario does not name is dropped.
   */
  apply(cohort: string, index: number, figures: ReferenceFigures): void {
    if (!this.names.has(cohort)) return;
    const id = `${cohort}/${index}`;
    const before = this.last.get(id);
    this.last.set(id, { ...figures });
    for (const f of REFERENCE_FIGURES) {
      const grew = figures[f.key] - (before?.[f.key] ?? 0);
      if (grew > 0) this.families.get(f.key)?.inc({ cohort }, grew);
    }
  }
}
